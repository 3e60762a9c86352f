import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isApiError } from '../errors.js';
import { deepCopy, type JsonValue } from '../object.js';
import { applyJsonPatch, parseJsonPointer } from './json-patch.js';

const doc: JsonValue = {
  metadata: { name: 'x', labels: { app: 'web', 'a/b': '1', 'm~n': '2' } },
  spec: { list: ['a', 'b', 'c'], nested: { deep: true } },
};

/** The value at a JSON pointer, or undefined when absent. */
function at(doc: JsonValue, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = doc;
  for (const token of parseJsonPointer(pointer)!) {
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? node[Number(token)] : Object.prototype.hasOwnProperty.call(node, token) ? node[token] : undefined;
  }
  return node;
}

describe('applyJsonPatch applies', () => {
  // `want` maps JSON pointers to the value wanted there (undefined: absent).
  const cases: Array<{ reason: string; patch: JsonValue; want: Record<string, JsonValue | undefined> }> = [
    { reason: 'add of a new key', patch: [{ op: 'add', path: '/metadata/labels/tier', value: 'db' }], want: { '/metadata/labels/tier': 'db' } },
    { reason: 'add over an existing key replaces it', patch: [{ op: 'add', path: '/metadata/name', value: 'y' }], want: { '/metadata/name': 'y' } },
    { reason: 'add inside an array inserts', patch: [{ op: 'add', path: '/spec/list/1', value: 'z' }], want: { '/spec/list': ['a', 'z', 'b', 'c'] } },
    { reason: 'add at the array end with -', patch: [{ op: 'add', path: '/spec/list/-', value: 'z' }], want: { '/spec/list': ['a', 'b', 'c', 'z'] } },
    { reason: 'add at the array length', patch: [{ op: 'add', path: '/spec/list/3', value: 'z' }], want: { '/spec/list': ['a', 'b', 'c', 'z'] } },
    { reason: 'remove a key', patch: [{ op: 'remove', path: '/spec/nested' }], want: { '/spec': { list: ['a', 'b', 'c'] } } },
    { reason: 'remove an array item', patch: [{ op: 'remove', path: '/spec/list/0' }], want: { '/spec/list': ['b', 'c'] } },
    { reason: 'replace a value', patch: [{ op: 'replace', path: '/spec/nested/deep', value: false }], want: { '/spec/nested/deep': false } },
    {
      reason: 'escaped keys ~1 and ~0',
      patch: [
        { op: 'replace', path: '/metadata/labels/a~1b', value: 'x' },
        { op: 'remove', path: '/metadata/labels/m~0n' },
      ],
      want: { '/metadata/labels': { app: 'web', 'a/b': 'x' } },
    },
    { reason: 'move a value', patch: [{ op: 'move', from: '/spec/nested', path: '/status' }], want: { '/status': { deep: true }, '/spec/nested': undefined } },
    {
      reason: 'copy a value by value',
      patch: [
        { op: 'copy', from: '/spec/list', path: '/spec/copy' },
        { op: 'add', path: '/spec/copy/-', value: 'd' },
      ],
      want: { '/spec/list': ['a', 'b', 'c'], '/spec/copy': ['a', 'b', 'c', 'd'] },
    },
    {
      reason: 'a passing test then a change',
      patch: [
        { op: 'test', path: '/metadata/labels/app', value: 'web' },
        { op: 'replace', path: '/metadata/labels/app', value: 'api' },
      ],
      want: { '/metadata/labels/app': 'api' },
    },
    {
      reason: 'test compares objects deeply regardless of key order',
      patch: [{ op: 'test', path: '/spec', value: { nested: { deep: true }, list: ['a', 'b', 'c'] } }],
      want: { '': doc },
    },
    { reason: 'replace the whole document', patch: [{ op: 'replace', path: '', value: { a: 1 } }], want: { '': { a: 1 } } },
    { reason: 'an empty patch', patch: [], want: { '': doc } },
    { reason: 'a key called constructor can be added', patch: [{ op: 'add', path: '/constructor', value: 1 }], want: { '/constructor': 1 } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = deepCopy(doc);
      const got = applyJsonPatch(doc, c.patch);
      for (const [pointer, value] of Object.entries(c.want)) assert.deepEqual(at(got, pointer), value, pointer);
      assert.deepEqual(doc, before, 'the original must not change');
    });
  }
});

describe('applyJsonPatch rejects', () => {
  const cases: Array<{ reason: string; patch: JsonValue; code: number; message: string | RegExp }> = [
    { reason: 'a body that is an object', patch: { op: 'add' }, code: 400, message: 'a JSON patch must be a JSON array of operations, got an object' },
    { reason: 'a body that is a string', patch: 'x', code: 400, message: 'a JSON patch must be a JSON array of operations, got a string' },
    { reason: 'an operation that is not an object', patch: [1], code: 400, message: 'JSON patch operation 0 must be an object, got a number' },
    { reason: 'an unknown op', patch: [{ op: 'merge', path: '/a' }], code: 400, message: /^JSON patch operation 0 has op "merge"; expected one of "add"/ },
    { reason: 'a missing op', patch: [{ path: '/a' }], code: 400, message: /has op null/ },
    {
      reason: 'a path without a leading slash',
      patch: [{ op: 'remove', path: 'a' }],
      code: 400,
      message: 'JSON patch operation 0 (remove) needs "path" to be a JSON pointer such as "/metadata/labels/app", got "a"',
    },
    { reason: 'a bad escape in a path', patch: [{ op: 'remove', path: '/a~2' }], code: 400, message: /needs "path" to be a JSON pointer/ },
    { reason: 'a missing value', patch: [{ op: 'add', path: '/a' }], code: 400, message: 'JSON patch operation 0 (add /a) needs a "value"' },
    { reason: 'a missing from', patch: [{ op: 'move', path: '/a' }], code: 400, message: /needs "from" to be a JSON pointer/ },
    {
      reason: 'a failed test',
      patch: [{ op: 'test', path: '/metadata/name', value: 'y' }],
      code: 422,
      message:
        'the server rejected our request due to an error in our request: JSON patch operation 0 (test /metadata/name) failed: the value is "x", expected "y"',
    },
    {
      reason: 'a test of a missing path',
      patch: [{ op: 'test', path: '/nope', value: 1 }],
      code: 422,
      message: /\(test \/nope\) failed: "\/nope" does not exist/,
    },
    {
      reason: 'an add under a missing parent',
      patch: [{ op: 'add', path: '/spec/missing/x', value: 1 }],
      code: 422,
      message: /\(add \/spec\/missing\/x\) failed: "\/spec\/missing" does not exist/,
    },
    {
      reason: 'an add under a primitive',
      patch: [{ op: 'add', path: '/metadata/name/x', value: 1 }],
      code: 422,
      message: /"\/metadata\/name" is a string, not an object or an array/,
    },
    { reason: 'a remove of a missing key', patch: [{ op: 'remove', path: '/spec/missing' }], code: 422, message: /"\/spec\/missing" does not exist/ },
    { reason: 'a remove of an inherited key', patch: [{ op: 'remove', path: '/spec/toString' }], code: 422, message: /"\/spec\/toString" does not exist/ },
    { reason: 'a replace of a missing key', patch: [{ op: 'replace', path: '/spec/missing', value: 1 }], code: 422, message: /does not exist/ },
    {
      reason: 'an index past the end',
      patch: [{ op: 'add', path: '/spec/list/4', value: 1 }],
      code: 422,
      message: /index 4 is out of range for the array at "\/spec\/list" \(length 3\)/,
    },
    { reason: 'a replace at the array length', patch: [{ op: 'replace', path: '/spec/list/3', value: 1 }], code: 422, message: /index 3 is out of range/ },
    {
      reason: 'an index with a leading zero',
      patch: [{ op: 'remove', path: '/spec/list/01' }],
      code: 422,
      message: /is an array and "01" is not an array index/,
    },
    { reason: 'a non-numeric index', patch: [{ op: 'replace', path: '/spec/list/x', value: 1 }], code: 422, message: /"x" is not an array index/ },
    {
      reason: 'a move into its own child',
      patch: [{ op: 'move', from: '/spec', path: '/spec/inner' }],
      code: 422,
      message: /cannot be moved into one of its own children/,
    },
    {
      reason: 'a move from a missing path',
      patch: [{ op: 'move', from: '/nope', path: '/x' }],
      code: 422,
      message: /\(move from \/nope to \/x\) failed: "\/nope" does not exist/,
    },
    { reason: 'removing the root', patch: [{ op: 'remove', path: '' }], code: 422, message: /the document root cannot be removed/ },
    { reason: 'a __proto__ key', patch: [{ op: 'add', path: '/__proto__/polluted', value: 1 }], code: 422, message: /the key "__proto__" is not supported/ },
    {
      reason: 'a later failure undoes nothing visible: the whole patch fails',
      patch: [
        { op: 'add', path: '/a', value: 1 },
        { op: 'test', path: '/a', value: 2 },
      ],
      code: 422,
      message: /operation 1 \(test \/a\) failed: the value is 1, expected 2/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = deepCopy(doc);
      assert.throws(
        () => applyJsonPatch(doc, c.patch),
        (err: unknown) => {
          assert.ok(isApiError(err), String(err));
          assert.equal(err.code, c.code);
          assert.equal(err.reason, c.code === 400 ? 'BadRequest' : 'Invalid');
          if (typeof c.message === 'string') assert.equal(err.message, c.message);
          else assert.match(err.message, c.message);
          return true;
        },
      );
      assert.deepEqual(doc, before);
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    });
  }

  test('more than 10000 operations is a 413', () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '', value: {} }));
    assert.throws(
      () => applyJsonPatch({}, ops),
      (err: unknown) => isApiError(err) && err.code === 413 && /maximum operations in a JSON patch is 10000, got 10001/.test(err.message),
    );
  });
});

describe('parseJsonPointer', () => {
  test('splits and unescapes tokens', () => {
    assert.deepEqual(parseJsonPointer(''), []);
    assert.deepEqual(parseJsonPointer('/'), ['']);
    assert.deepEqual(parseJsonPointer('/a~1b/~01'), ['a/b', '~1']);
    assert.equal(parseJsonPointer('a'), undefined);
    assert.equal(parseJsonPointer('/~'), undefined);
  });
});

describe('properties', () => {
  test('any operation list either applies or fails with a 400 or 422 ApiError', () => {
    const pointer = fc
      .array(fc.constantFrom('metadata', 'labels', 'app', 'spec', 'list', '0', '1', '3', '-', 'x', '__proto__', 'toString'), { maxLength: 4 })
      .map((p) => (p.length ? `/${p.join('/')}` : ''));
    const op = fc.record({
      op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
      path: fc.oneof(pointer, fc.constant('nope')),
      from: pointer,
      value: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant({ a: 1 })),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 5 }), (ops) => {
        try {
          applyJsonPatch(doc, ops);
        } catch (err) {
          assert.ok(isApiError(err) && (err.code === 400 || err.code === 422), String(err));
        }
      }),
    );
    assert.equal(({} as Record<string, unknown>)['a'], undefined);
  });
});
