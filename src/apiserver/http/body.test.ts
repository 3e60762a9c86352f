import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../machinery/errors.js';
import { checkNesting, decodeBody, MAX_BODY_DEPTH } from './body.js';

const bad = (err: unknown) => err instanceof ApiError && err.code === 400 && /nests deeper than 100 levels/.test(err.message);

describe('body nesting limit', () => {
  const cases: { reason: string; text: string; contentType: string; ok: boolean }[] = [
    { reason: 'JSON at the limit is accepted', text: `${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`, contentType: 'application/json', ok: true },
    { reason: 'JSON one deeper is refused', text: `${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`, contentType: 'application/json', ok: false },
    { reason: '10,000 levels of objects are refused before parsing', text: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, contentType: 'application/json', ok: false },
    { reason: 'brackets inside strings do not count', text: JSON.stringify({ s: '['.repeat(1000) }), contentType: 'application/json', ok: true },
    { reason: 'escaped quotes do not end a string', text: JSON.stringify({ s: `\\"${'['.repeat(1000)}` }), contentType: 'application/json', ok: true },
    { reason: 'deep YAML flow collections are refused', text: `a: ${'['.repeat(5000)}`, contentType: 'application/yaml', ok: false },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.ok) decodeBody(Buffer.from(c.text), c.contentType);
      else assert.throws(() => decodeBody(Buffer.from(c.text), c.contentType), bad);
    });
  }

  test('property: JSON nested d levels is accepted exactly when d ≤ the limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.boolean(), (d, objects) => {
        const text = objects ? `${'{"k":'.repeat(d)}0${'}'.repeat(d)}` : `${'['.repeat(d)}${']'.repeat(d)}`;
        if (d <= 100) checkNesting(text, 100);
        else assert.throws(() => checkNesting(text, 100), bad);
      }),
    );
  });
});
