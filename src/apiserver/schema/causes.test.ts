import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { badValue, childPath, goFloat, goQuote, indexPath, keyPath } from './causes.js';

describe('paths', () => {
  const cases = [
    { reason: 'a field of the root', got: childPath('', 'spec'), want: 'spec' },
    { reason: 'a nested field', got: childPath('spec', 'replicas'), want: 'spec.replicas' },
    { reason: 'a list item', got: childPath(indexPath('spec.items', 2), 'name'), want: 'spec.items[2].name' },
    { reason: 'a map value', got: keyPath('spec.map', 'key'), want: 'spec.map[key]' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(c.got, c.want));
});

describe('Go-style value rendering', () => {
  const cases: { reason: string; value: unknown; want: string }[] = [
    { reason: 'strings are quoted', value: 'a"b', want: '"a\\"b"' },
    { reason: 'control characters are escaped', value: 'a\nb\u0001', want: '"a\\nb\\x01"' },
    { reason: 'unicode stays readable', value: 'héllo', want: '"héllo"' },
    { reason: 'integers print plainly', value: 1000000, want: '1000000' },
    { reason: 'fractions print shortest', value: 0.75, want: '0.75' },
    { reason: 'booleans', value: true, want: 'true' },
    { reason: 'null is quoted "null"', value: null, want: '"null"' },
    { reason: 'maps print as Go maps with sorted keys', value: { b: 1, a: 'x' }, want: 'map[string]interface {}{"a":"x", "b":1}' },
    { reason: 'lists print as Go slices', value: ['a', 1], want: '[]interface {}{"a", 1}' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(badValue(c.value), c.want));

  const floats: { value: number; want: string }[] = [
    { value: 1, want: '1' },
    { value: 0.5, want: '0.5' },
    { value: 1e6, want: '1e+06' },
    { value: 123456.5, want: '123456.5' },
    { value: 1.5e-7, want: '1.5e-07' },
    { value: -2.5e21, want: '-2.5e+21' },
  ];
  for (const f of floats) test(`goFloat(${f.value}) is ${f.want}`, () => assert.equal(goFloat(f.value), f.want));

  test('goQuote output is a valid quoted string that round-trips printable ASCII', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...' abc"\\\'/{}'.split('')) }), (s) => {
        assert.equal(JSON.parse(goQuote(s)), s);
      }),
    );
  });
});
