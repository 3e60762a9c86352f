import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../machinery/errors.js';
import { parseDocument, stringify } from 'yaml';
import { checkNesting, checkYamlNesting, decodeBody, MAX_BODY_DEPTH } from './body.js';

const bad = (err: unknown) => err instanceof ApiError && err.code === 400 && /nests deeper than 100 levels/.test(err.message);

describe('body nesting limit', () => {
  const cases: { reason: string; text: string; contentType: string; ok: boolean }[] = [
    { reason: 'JSON at the limit is accepted', text: `${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`, contentType: 'application/json', ok: true },
    {
      reason: 'JSON one deeper is refused',
      text: `${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`,
      contentType: 'application/json',
      ok: false,
    },
    {
      reason: '10,000 levels of objects are refused before parsing',
      text: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
      contentType: 'application/json',
      ok: false,
    },
    { reason: 'brackets inside strings do not count', text: JSON.stringify({ s: '['.repeat(1000) }), contentType: 'application/json', ok: true },
    { reason: 'escaped quotes do not end a string', text: JSON.stringify({ s: `\\"${'['.repeat(1000)}` }), contentType: 'application/json', ok: true },
    { reason: 'deep YAML flow collections are refused', text: `a: ${'['.repeat(5000)}`, contentType: 'application/yaml', ok: false },
    // Block collections nest by indentation, with no bracket to count.
    { reason: 'YAML compact sequences `- - - x` 100 deep are accepted', text: `${'- '.repeat(MAX_BODY_DEPTH)}x`, contentType: 'application/yaml', ok: true },
    {
      reason: 'YAML compact sequences `- - - x` 101 deep are refused',
      text: `${'- '.repeat(MAX_BODY_DEPTH + 1)}x`,
      contentType: 'application/yaml',
      ok: false,
    },
    {
      reason: 'YAML compact sequences 100,000 deep are refused before parsing (the crash of issue 10)',
      text: `${'- '.repeat(100_000)}x`,
      contentType: 'application/yaml',
      ok: false,
    },
    { reason: 'the same as an apply patch', text: `${'- '.repeat(100_000)}x`, contentType: 'application/apply-patch+yaml', ok: false },
    { reason: 'YAML explicit keys `? ? ? x` 101 deep are refused', text: `${'? '.repeat(MAX_BODY_DEPTH + 1)}x`, contentType: 'application/yaml', ok: false },
    {
      reason: 'YAML sequences nested by indentation are refused',
      text: Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}-`).join('\n'),
      contentType: 'application/yaml',
      ok: false,
    },
    {
      reason: 'YAML mappings nested by indentation are refused',
      text: Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n'),
      contentType: 'application/yaml',
      ok: false,
    },
    {
      reason: 'YAML mappings nested by indentation, 100 deep, are accepted',
      text: Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n'),
      contentType: 'application/yaml',
      ok: true,
    },
    {
      reason: "YAML sequences at their key's indentation are refused",
      text: Array.from({ length: 60 }, (_, i) => `${' '.repeat(2 * i)}k${i}:\n${' '.repeat(2 * i)}-`).join('\n'),
      contentType: 'application/yaml',
      ok: false,
    },
    { reason: 'YAML block and flow nesting add up', text: `${'- '.repeat(60)}${'['.repeat(41)}${']'.repeat(41)}`, contentType: 'application/yaml', ok: false },
    {
      reason: 'dashes and brackets inside YAML block scalars and strings do not count',
      text: `a: |\n  ${'- '.repeat(500)}\nb: "${'['.repeat(500)}"\nc: '${'{'.repeat(500)}'\n`,
      contentType: 'application/yaml',
      ok: true,
    },
    {
      reason: 'a quote inside a plain YAML scalar does not hide later brackets',
      text: `a: it"s\nb: ${'['.repeat(200)}${']'.repeat(200)}\n`,
      contentType: 'application/yaml',
      ok: false,
    },
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

/** The depth of a decoded value: 0 for a scalar, 1 + its deepest child for a collection. */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let d = 0;
  for (const c of Object.values(v)) d = Math.max(d, depthOf(c));
  return 1 + d;
}

describe('YAML nesting count', () => {
  // Nested values written by the yaml library in its block and flow styles: the count made
  // before parsing is never below the depth the parser builds.
  const nested = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null)),
      tie('list'),
      tie('map'),
    ),
    list: fc.array(tie('node'), { maxLength: 3 }),
    map: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('node'), { maxKeys: 3 }),
  })).node;

  test('property: the count before parsing is at least the depth parsed, for block and flow YAML', () => {
    fc.assert(
      fc.property(nested, fc.constantFrom('block', 'flow', 'mixed'), fc.integer({ min: 0, max: 3 }), (value, style, indent) => {
        const text = stringify(value, {
          collectionStyle: style === 'mixed' ? 'any' : style,
          indent: indent + 1,
          indentSeq: indent % 2 === 0,
          flowCollectionPadding: false,
        });
        let parsed: unknown;
        try {
          parsed = decodeBody(Buffer.from(text), 'application/yaml', { allowEmpty: true });
        } catch (err) {
          // The writer sometimes emits YAML its own parser refuses (odd keys): nothing to compare.
          fc.pre(!(err instanceof ApiError && /not valid YAML/.test(err.message)));
          throw err;
        }
        const depth = depthOf(parsed);
        if (depth > 0) assert.throws(() => checkYamlNesting(text, depth - 1), /nests deeper than/, `${JSON.stringify(text)} counted less than ${depth}`);
        checkYamlNesting(text, depth + 1);
      }),
      { numRuns: 500 },
    );
  });
});

describe('YAML nesting count against odd text', () => {
  // Aliases are left out: the depth they add is built without recursion, and checked after decoding.
  test('property: for text built from YAML punctuation, the count is at least the depth the parser builds', () => {
    // prettier-ignore
    const piece = fc.constantFrom('- ', '? ', ': ', 'a', 'b: ', '\n', '\n  ', '\n    ', '\n ', ' ', '  ', '[', ']', '{', '}', ', ', ',', '"', "'", '|\n', '>-\n', '# c', '&x ', '!t ', '---\n', '\t', '-', ':', '?', '... ', '- - ', 'k:\n', '[a: ', '{? ', '- [', '? - ', ': - ', '\n- ', '\n  - ', '\n  ? ', '\n  : ', 'x: |\n  ', '"q": ', '| # c\n');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        const doc = parseDocument(text, { uniqueKeys: false });
        if (doc.errors.length > 0) return;
        let depth: number;
        try {
          depth = depthOf(doc.toJS({ maxAliasCount: 100 }));
        } catch {
          return;
        }
        if (depth > 0) assert.throws(() => checkYamlNesting(text, depth - 1), /nests deeper than/, `${JSON.stringify(text)} counted less than ${depth}`);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('non-finite numbers', () => {
  const invalid = (field: string) => (err: unknown) =>
    err instanceof ApiError &&
    err.code === 422 &&
    err.message.includes(field) &&
    /finite/.test(err.message) &&
    err.status.details?.causes?.[0]?.field === field;
  const cases: { reason: string; text: string; contentType: string; field: string }[] = [
    { reason: 'a JSON number too large for a double', text: '{"spec":{"size":1e400}}', contentType: 'application/json', field: 'spec.size' },
    { reason: 'a negative one', text: '{"spec":{"size":-1e400}}', contentType: 'application/json', field: 'spec.size' },
    { reason: 'one in a list', text: '{"spec":{"sizes":[1,2,1e999]}}', contentType: 'application/merge-patch+json', field: 'spec.sizes[2]' },
    { reason: 'YAML .inf', text: 'spec:\n  size: .inf\n', contentType: 'application/yaml', field: 'spec.size' },
    { reason: 'YAML -.inf', text: 'spec:\n  size: -.Inf\n', contentType: 'application/yaml', field: 'spec.size' },
    { reason: 'YAML .nan', text: 'spec:\n  size: .nan\n', contentType: 'application/yaml', field: 'spec.size' },
    { reason: 'a huge YAML integer', text: `spec:\n  size: 1${'0'.repeat(400)}\n`, contentType: 'application/yaml', field: 'spec.size' },
    { reason: 'a huge YAML float in an apply patch', text: 'spec:\n  size: 1.5e500\n', contentType: 'application/apply-patch+yaml', field: 'spec.size' },
    { reason: 'a key that needs quoting', text: '{"data":{"a b":1e400}}', contentType: 'application/json', field: 'data["a b"]' },
  ];
  for (const c of cases) {
    test(`${c.reason} is a 422 naming ${c.field}`, () => {
      assert.throws(() => decodeBody(Buffer.from(c.text), c.contentType), invalid(c.field));
    });
  }
  test('large finite numbers are kept', () => {
    assert.deepEqual(decodeBody(Buffer.from('{"a":1.7976931348623157e308,"b":-5e-324}'), 'application/json'), { a: 1.7976931348623157e308, b: -5e-324 });
  });
});
