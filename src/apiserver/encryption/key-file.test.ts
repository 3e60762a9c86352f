import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureKeySet, formatKeySet, keyFilePath, newKey, parseKeySet, readKeySet, rotated, writeKeySet } from './key-file.js';

describe('key file', () => {
  test('the first start creates one 32-byte key, mode 0600 in a 0700 folder, and later starts read it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-keys-'));
    try {
      const first = await ensureKeySet(dir);
      assert.equal(first.keys.length, 1);
      assert.equal(first.keys[0].secret.length, 32);
      assert.equal(first.primary, first.keys[0].id);
      assert.equal(statSync(keyFilePath(dir)).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'encryption')).mode & 0o777, 0o700);
      const again = await ensureKeySet(dir);
      assert.deepEqual(again, first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('rotation adds a new primary key and keeps the old ones; the write leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-keys-'));
    try {
      const ks = await ensureKeySet(dir);
      const { keySet, added } = rotated(ks);
      await writeKeySet(dir, keySet);
      const read = (await readKeySet(dir))!;
      assert.equal(read.primary, added.id);
      assert.deepEqual(
        read.keys.map((k) => k.id),
        [ks.primary, added.id],
      );
      assert.notDeepEqual(read.keys[0].secret, read.keys[1].secret);
      assert.deepEqual(readdirSync(join(dir, 'encryption')), ['keys.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('new key ids skip ids already taken', () => {
    const a = newKey([]);
    const b = { ...newKey([]), id: 'key-2' };
    assert.equal(newKey([a, b]).id, 'key-3');
  });

  const good = JSON.parse(formatKeySet({ primary: 'key-1', keys: [newKey([])] })) as Record<string, unknown>;
  const cases: { reason: string; doc: unknown; want: RegExp }[] = [
    { reason: 'not JSON', doc: '{', want: /not valid JSON/ },
    { reason: 'wrong version', doc: { ...good, version: 2 }, want: /version 2, expected 1/ },
    { reason: 'no keys', doc: { ...good, keys: [] }, want: /"keys" must be a non-empty list/ },
    { reason: 'primary names no key', doc: { ...good, primary: 'key-9' }, want: /"primary" must name one of the keys \(key-1\)/ },
    { reason: 'short secret', doc: { ...good, keys: [{ id: 'key-1', algorithm: 'aes-256-gcm', secret: 'AAAA' }] }, want: /secret must be 32 bytes/ },
    { reason: 'other algorithm', doc: { ...good, keys: [{ id: 'key-1', algorithm: 'aes-cbc', secret: 'AAAA' }] }, want: /algorithm must be "aes-256-gcm"/ },
    {
      reason: 'id with a colon (would break the envelope)',
      doc: { ...good, keys: [{ id: 'a:b', algorithm: 'aes-256-gcm', secret: '' }] },
      want: /id must match/,
    },
  ];
  for (const c of cases) {
    test(`a bad key file is refused: ${c.reason}`, () => {
      assert.throws(() => parseKeySet(typeof c.doc === 'string' ? c.doc : JSON.stringify(c.doc), 'keys.json'), c.want);
    });
  }
});
