import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deepCopy, deepEqual, sameStatusIgnoringTransitionTimes } from './object.js';

describe('deepCopy', () => {
  test('a copy equals the original and shares nothing with it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const c = deepCopy(v);
        assert.deepEqual(c, v);
        assert.ok(deepEqual(c, v));
        if (v !== null && typeof v === 'object') assert.notEqual(c, v);
      }),
      { numRuns: 300 },
    );
  });

  test('changing the copy leaves the original alone', () => {
    const original = { metadata: { labels: { a: '1' } }, items: [{ x: 1 }] };
    const copy = deepCopy(original);
    copy.metadata.labels.a = '2';
    copy.items[0].x = 2;
    assert.equal(original.metadata.labels.a, '1');
    assert.equal(original.items[0].x, 1);
  });

  test('a __proto__ key is copied as data, not as a prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = deepCopy(parsed);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'a']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('sameStatusIgnoringTransitionTimes', () => {
  const cond = (status: string, time: string) => ({ type: 'Ready', status, reason: 'R', lastTransitionTime: time });
  for (const c of [
    {
      reason: 'only a condition time differs: same',
      a: { phase: 'Bound', conditions: [cond('True', 't1')] },
      b: { phase: 'Bound', conditions: [cond('True', 't2')] },
      want: true,
    },
    { reason: 'a condition status differs: not the same', a: { conditions: [cond('True', 't1')] }, b: { conditions: [cond('False', 't1')] }, want: false },
    { reason: 'another field differs: not the same', a: { phase: 'Bound', conditions: [] }, b: { phase: 'Pending', conditions: [] }, want: false },
    {
      reason: 'a time missing on one side: same',
      a: { conditions: [{ type: 'Ready', status: 'True' }] },
      b: { conditions: [cond('True', 't9')].map(({ reason: _r, ...x }) => x) },
      want: true,
    },
    { reason: 'no status on either side: same', a: undefined, b: undefined, want: true },
    { reason: 'status without conditions compares as is', a: { phase: 'Bound' }, b: { phase: 'Bound' }, want: true },
  ]) {
    test(c.reason, () => assert.equal(sameStatusIgnoringTransitionTimes(c.a, c.b), c.want));
  }
});
