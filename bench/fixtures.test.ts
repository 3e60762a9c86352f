import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { configMapJson, filler, objectName } from './fixtures.js';

describe('configMapJson', () => {
  test('the JSON is exactly the requested size and a valid ConfigMap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 200, max: 4096 }), (i, bytes) => {
        const text = configMapJson('bench-ns', objectName(i), bytes);
        const obj = JSON.parse(text) as { kind: string; metadata: { name: string; namespace: string }; data: Record<string, string> };
        return Buffer.byteLength(text) === bytes && obj.kind === 'ConfigMap' && obj.metadata.name === objectName(i) && obj.metadata.namespace === 'bench-ns';
      }),
    );
  });
  test('defaults to 1 KB', () => {
    assert.equal(Buffer.byteLength(configMapJson('ns', 'cm-000001')), 1024);
  });
  test('refuses a size too small for the metadata', () => {
    assert.throws(() => configMapJson('ns', 'cm-000001', 50), /needs at least \d+ bytes/);
  });
});

describe('objectName', () => {
  const cases = [
    { reason: 'pads to six digits', input: 42, want: 'cm-000042' },
    { reason: 'zero is valid', input: 0, want: 'cm-000000' },
    { reason: 'wider numbers are not truncated', input: 1_234_567, want: 'cm-1234567' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(objectName(c.input), c.want));
  test('rejects negative and fractional indexes', () => {
    assert.throws(() => objectName(-1), /non-negative integer/);
    assert.throws(() => objectName(1.5), /non-negative integer/);
  });
});

describe('filler', () => {
  test('is deterministic per seed, differs between seeds, and uses only [A-Za-z0-9]', () => {
    assert.equal(filler(64, 7), filler(64, 7));
    assert.notEqual(filler(64, 7), filler(64, 8));
    assert.match(filler(500, 3), /^[A-Za-z0-9]{500}$/);
  });
});
