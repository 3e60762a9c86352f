import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PathElement } from './field-path.js';
import {
  compareElements,
  decodeElement,
  encodeElement,
  fieldElement,
  indexElement,
  keyElement,
  pathToString,
  PathSyntaxError,
  valueElement,
} from './field-path.js';

describe('encodeElement / decodeElement', () => {
  const cases: { reason: string; element: PathElement; encoded: string }[] = [
    { reason: 'a field is f:name', element: fieldElement('data'), encoded: 'f:data' },
    { reason: 'a field name may hold dots and colons', element: fieldElement('app.kubernetes.io/name:x'), encoded: 'f:app.kubernetes.io/name:x' },
    { reason: 'a keyed item is k: with its key as JSON', element: keyElement({ name: 'x' }), encoded: 'k:{"name":"x"}' },
    {
      reason: 'key fields are sorted by name',
      element: keyElement({ protocol: 'TCP', containerPort: 80 }),
      encoded: 'k:{"containerPort":80,"protocol":"TCP"}',
    },
    { reason: 'a set item is v: with its value as JSON', element: valueElement('a"b'), encoded: 'v:"a\\"b"' },
    { reason: 'a numeric set item', element: valueElement(42), encoded: 'v:42' },
    { reason: 'a positional item is i:N', element: indexElement(3), encoded: 'i:3' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.equal(encodeElement(c.element), c.encoded);
      assert.equal(encodeElement(decodeElement(c.encoded)), c.encoded);
    });
  }

  const bad: { reason: string; text: string; message: RegExp }[] = [
    { reason: 'an unknown prefix', text: 'x:foo', message: /must start with "f:", "k:", "v:" or "i:"/ },
    { reason: 'a bare dot is not an element', text: '.', message: /must start with/ },
    { reason: 'a key that is not JSON', text: 'k:{name', message: /list item key is not valid JSON/ },
    { reason: 'a key that is not an object', text: 'k:"x"', message: /must be a non-empty JSON object/ },
    { reason: 'an empty key', text: 'k:{}', message: /must be a non-empty JSON object/ },
    { reason: 'a value that is not JSON', text: 'v:abc', message: /set item value is not valid JSON/ },
    { reason: 'a negative index', text: 'i:-1', message: /non-negative integer/ },
    { reason: 'an index with leading zeros', text: 'i:01', message: /non-negative integer/ },
    // Walked recursively later: refused before parsing, like request bodies (issue 10 item 3).
    {
      reason: 'a key nested 100,000 deep',
      text: `k:{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      message: /list item key nests deeper than 100 levels/,
    },
    { reason: 'a value nested 101 deep', text: `v:${'['.repeat(101)}${']'.repeat(101)}`, message: /set item value nests deeper than 100 levels/ },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => decodeElement(c.text),
        (err: unknown) => err instanceof PathSyntaxError && c.message.test(err.message),
      );
    });
  }
});

describe('pathToString', () => {
  const cases: { reason: string; path: PathElement[]; want: string }[] = [
    { reason: 'fields join with dots', path: [fieldElement('data'), fieldElement('key')], want: '.data.key' },
    {
      reason: 'keyed items print their key fields',
      path: [fieldElement('spec'), fieldElement('containers'), keyElement({ name: 'app' }), fieldElement('image')],
      want: '.spec.containers[name="app"].image',
    },
    { reason: 'several key fields are sorted', path: [keyElement({ protocol: 'TCP', port: 80 })], want: '[port=80,protocol="TCP"]' },
    { reason: 'set items print their value', path: [fieldElement('finalizers'), valueElement('x')], want: '.finalizers[="x"]' },
    { reason: 'indexes print bare', path: [fieldElement('args'), indexElement(2)], want: '.args[2]' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(pathToString(c.path), c.want));
});

describe('compareElements', () => {
  test('orders fields, then keys, then values, then indexes', () => {
    const sorted = [indexElement(0), valueElement('a'), keyElement({ a: 1 }), fieldElement('z'), fieldElement('a')].sort(compareElements).map(encodeElement);
    assert.deepEqual(sorted, ['f:a', 'f:z', 'k:{"a":1}', 'v:"a"', 'i:0']);
  });
  test('orders indexes numerically', () => {
    assert.ok(compareElements(indexElement(2), indexElement(10)) < 0);
  });
});
