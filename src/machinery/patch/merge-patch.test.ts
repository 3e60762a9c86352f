import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isApiError } from '../errors.js';
import { deepCopy, type JsonValue } from '../object.js';
import { applyMergePatch, createMergePatch } from './merge-patch.js';

describe('applyMergePatch', () => {
  // The examples of RFC 7386 appendix A whose patch is an object, plus Kubernetes-shaped ones.
  const cases: Array<{ reason: string; original: JsonValue; patch: JsonValue; want: JsonValue }> = [
    { reason: 'a changed member', original: { a: 'b' }, patch: { a: 'c' }, want: { a: 'c' } },
    { reason: 'a new member', original: { a: 'b' }, patch: { b: 'c' }, want: { a: 'b', b: 'c' } },
    { reason: 'null removes a member', original: { a: 'b' }, patch: { a: null }, want: {} },
    { reason: 'null removes only that member', original: { a: 'b', b: 'c' }, patch: { a: null }, want: { b: 'c' } },
    { reason: 'an array replaces a string', original: { a: ['b'] }, patch: { a: 'c' }, want: { a: 'c' } },
    { reason: 'a string replaces an array', original: { a: 'c' }, patch: { a: ['b'] }, want: { a: ['b'] } },
    { reason: 'nested objects merge', original: { a: { b: 'c' } }, patch: { a: { b: 'd', c: null } }, want: { a: { b: 'd' } } },
    { reason: 'arrays are replaced whole', original: { a: [{ b: 'c' }] }, patch: { a: [1] }, want: { a: [1] } },
    { reason: 'an object replaces a non-object and drops its nulls', original: { e: null }, patch: { a: 1 }, want: { e: null, a: 1 } },
    { reason: 'a non-object original becomes an object', original: ['a', 'b'], patch: { a: 'b' }, want: { a: 'b' } },
    { reason: 'nulls inside new objects are dropped', original: {}, patch: { a: { bb: { ccc: null } } }, want: { a: { bb: {} } } },
    { reason: 'an empty patch changes nothing', original: { a: 1 }, patch: {}, want: { a: 1 } },
    {
      reason: 'labels of a Kubernetes object',
      original: { metadata: { name: 'x', labels: { a: '1', b: '2' } }, data: { k: 'v' } },
      patch: { metadata: { labels: { a: null, c: '3' } }, data: { k: 'w' } },
      want: { metadata: { name: 'x', labels: { b: '2', c: '3' } }, data: { k: 'w' } },
    },
    {
      reason: 'a __proto__ key is an ordinary key',
      original: {},
      patch: JSON.parse('{"__proto__": {"polluted": true}}') as JsonValue,
      want: JSON.parse('{"__proto__": {"polluted": true}}') as JsonValue,
    },
    { reason: 'a constructor key is not read from the prototype', original: {}, patch: { constructor: { a: 1 } }, want: { constructor: { a: 1 } } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = deepCopy(c.original);
      const patchBefore = deepCopy(c.patch);
      const got = applyMergePatch(c.original, c.patch);
      assert.deepEqual(got, c.want);
      assert.deepEqual(c.original, before, 'the original must not change');
      assert.deepEqual(c.patch, patchBefore, 'the patch must not change');
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    });
  }

  const bad: Array<{ reason: string; patch: JsonValue; want: string }> = [
    { reason: 'a string', patch: 'abc', want: 'a merge patch must be a JSON object, got a string' },
    { reason: 'a number', patch: 5, want: 'a merge patch must be a JSON object, got a number' },
    { reason: 'an array', patch: [{ a: 1 }], want: 'a merge patch must be a JSON object, got an array' },
    { reason: 'null', patch: null, want: 'a merge patch must be a JSON object, got null' },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason} with a 400`, () => {
      assert.throws(
        () => applyMergePatch({ a: 1 }, c.patch),
        (err: unknown) => isApiError(err) && err.code === 400 && err.message === c.want,
      );
    });
  }

  test('the result shares nothing with the patch', () => {
    const patch = { a: { b: [1, 2] } };
    const got = applyMergePatch({}, patch) as { a: { b: number[] } };
    got.a.b.push(3);
    assert.deepEqual(patch, { a: { b: [1, 2] } });
  });
});

describe('createMergePatch', () => {
  const cases: Array<{ reason: string; from: JsonValue; to: JsonValue; want: JsonValue }> = [
    { reason: 'no change is an empty patch', from: { a: 1 }, to: { a: 1 }, want: {} },
    { reason: 'a removed key becomes null', from: { a: 1, b: 2 }, to: { b: 2 }, want: { a: null } },
    { reason: 'nested changes stay nested', from: { m: { a: 1, b: 1 } }, to: { m: { a: 2, b: 1 } }, want: { m: { a: 2 } } },
    { reason: 'arrays are sent whole', from: { l: [1, 2] }, to: { l: [1, 3] }, want: { l: [1, 3] } },
    { reason: 'a non-object target is the patch', from: { a: 1 }, to: [1], want: [1] },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(createMergePatch(c.from, c.to), c.want));
});

describe('properties', () => {
  const key = fc.constantFrom('a', 'b', 'c', 'labels', 'spec');
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      fc.oneof(fc.string(), fc.integer(), fc.boolean()),
      fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 3 }),
      fc.dictionary(key, tie('tree'), { maxKeys: 4, noNullPrototype: true }),
    ),
  }));
  const doc = fc.dictionary(key, tree as fc.Arbitrary<JsonValue>, { maxKeys: 5, noNullPrototype: true });

  test('applying createMergePatch(from, to) to from gives to', () => {
    fc.assert(
      fc.property(doc, doc, (from, to) => {
        assert.deepEqual(applyMergePatch(from, createMergePatch(from, to)), to);
      }),
    );
  });

  test('applying a patch twice is the same as once', () => {
    fc.assert(
      fc.property(doc, doc, (original, patch) => {
        const once = applyMergePatch(original, patch);
        assert.deepEqual(applyMergePatch(once, patch), once);
      }),
    );
  });
});
