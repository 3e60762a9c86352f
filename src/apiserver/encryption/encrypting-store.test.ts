import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../machinery/errors.js';
import { StoreError, type StoreEvent } from '../../store/types.js';
import { tempStore } from '../../store/sqlite/testing.js';
import { EncryptingStore, SECRETS_PREFIX } from './encrypting-store.js';
import { isSealed, sealedKeyId } from './envelope.js';
import { newKey, rotated, type KeySet } from './key-file.js';
import { keyUsage, PLAINTEXT, reencryptAll, withRevision } from './migration.js';

const secretKey = `${SECRETS_PREFIX}ns/db`;
const mapKey = '/registry/core/configmaps/ns/cfg';
const secretJson = (rev: number) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: 'ns', resourceVersion: String(rev) },
    data: { password: 'aHVudGVyMg==' },
  });

function keySet(): KeySet {
  const k = newKey([]);
  return { primary: k.id, keys: [k] };
}

async function withStores(fn: (t: ReturnType<typeof tempStore>, enc: EncryptingStore, ks: KeySet) => Promise<void>): Promise<void> {
  const t = tempStore();
  const ks = keySet();
  try {
    await fn(t, new EncryptingStore(t.store, { keys: ks }), ks);
  } finally {
    await t.cleanup();
  }
}

describe('EncryptingStore', () => {
  test('secrets are stored sealed and read back plain; other values pass through untouched', () =>
    withStores(async (t, enc, ks) => {
      const created = await enc.create(secretKey, secretJson);
      assert.equal(created.value, secretJson(created.modRevision));
      await enc.create(mapKey, () => '{"kind":"ConfigMap"}');

      const raw = (await t.store.get(secretKey))!;
      assert.equal(sealedKeyId(raw.value), ks.primary);
      assert.ok(!raw.value.includes('aHVudGVyMg'));
      assert.equal((await t.store.get(mapKey))!.value, '{"kind":"ConfigMap"}');

      assert.equal((await enc.get(secretKey))!.value, secretJson(created.modRevision));
      const all = await enc.list('/registry/');
      assert.deepEqual(
        all.items.map((kv) => kv.value),
        ['{"kind":"ConfigMap"}', secretJson(created.modRevision)],
      );
      const gone = await enc.delete(secretKey);
      assert.equal(gone.value, secretJson(created.modRevision));
    }));

  test('watch events (and their previous values) arrive decrypted', () =>
    withStores(async (_t, enc) => {
      const events: StoreEvent[] = [];
      const w = enc.watch(SECRETS_PREFIX, enc.currentRevision(), { onEvents: (evs) => events.push(...evs), onError: (err) => assert.fail(err) });
      const a = await enc.create(secretKey, secretJson);
      const b = await enc.update(secretKey, a.modRevision, secretJson);
      await enc.delete(secretKey);
      await new Promise((r) => setTimeout(r, 20));
      w.close();
      assert.deepEqual(
        events.map((e) => [e.type, e.kv.value, e.prev?.value]),
        [
          ['put', secretJson(a.modRevision), undefined],
          ['put', secretJson(b.modRevision), secretJson(a.modRevision)],
          ['delete', secretJson(b.modRevision), secretJson(b.modRevision)],
        ],
      );
    }));

  test('a conflict carries the current value decrypted', () =>
    withStores(async (_t, enc) => {
      const a = await enc.create(secretKey, secretJson);
      await enc.update(secretKey, a.modRevision, secretJson);
      const err = await enc.update(secretKey, a.modRevision, secretJson).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof StoreError && err.code === 'conflict');
      assert.ok(err.current && !isSealed(err.current.value));
    }));

  test('values stored before encryption was on still read, and re-encryption seals them', () =>
    withStores(async (t, enc, ks) => {
      await t.store.create(secretKey, secretJson);
      assert.equal(JSON.parse((await enc.get(secretKey))!.value).kind, 'Secret');
      assert.deepEqual([...(await keyUsage(t.store, enc.prefixes))], [[PLAINTEXT, 1]]);
      const r = await reencryptAll(enc);
      assert.deepEqual(r, { rewritten: 1, scanned: 1 });
      const raw = (await t.store.get(secretKey))!;
      assert.equal(sealedKeyId(raw.value), ks.primary);
      // The object keeps its content and carries its new revision.
      const plain = JSON.parse((await enc.get(secretKey))!.value);
      assert.equal(plain.metadata.resourceVersion, String(raw.modRevision));
      assert.equal(plain.data.password, 'aHVudGVyMg==');
    }));

  test('after a rotation old values still decrypt, new writes use the new key, and re-encryption moves everything to it', async () => {
    const t = tempStore();
    try {
      const ks1 = keySet();
      const enc1 = new EncryptingStore(t.store, { keys: ks1 });
      await enc1.create(secretKey, secretJson);
      const { keySet: ks2, added } = rotated(ks1);
      const enc2 = new EncryptingStore(t.store, { keys: ks2 });
      assert.equal(JSON.parse((await enc2.get(secretKey))!.value).data.password, 'aHVudGVyMg==');
      await enc2.create(`${SECRETS_PREFIX}ns/other`, secretJson);
      assert.deepEqual(Object.fromEntries(await keyUsage(t.store, enc2.prefixes)), { [ks1.primary]: 1, [added.id]: 1 });
      assert.deepEqual(await reencryptAll(enc2), { rewritten: 1, scanned: 2 });
      assert.deepEqual(Object.fromEntries(await keyUsage(t.store, enc2.prefixes)), { [added.id]: 2 });
      assert.deepEqual(await reencryptAll(enc2), { rewritten: 0, scanned: 2 });
    } finally {
      await t.cleanup();
    }
  });

  test('a value under a key the server does not hold is a 503 naming the key, on get, list and watch', async () => {
    const t = tempStore();
    try {
      const ks1 = keySet();
      await new EncryptingStore(t.store, { keys: ks1 }).create(secretKey, secretJson);
      const stranger = { ...newKey([]), id: 'key-7' };
      const other = new EncryptingStore(t.store, { keys: { primary: stranger.id, keys: [stranger] } });
      for (const read of [() => other.get(secretKey), () => other.list(SECRETS_PREFIX)]) {
        const err = await read().then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(err instanceof ApiError, `want an ApiError, got ${String(err)}`);
        assert.equal(err.code, 503);
        assert.match(err.message, new RegExp(`key "${ks1.primary}" is missing`));
      }
      const ended = new Promise<unknown>((resolve) => {
        other.watch(SECRETS_PREFIX, 0, { onEvents: () => resolve('events'), onError: resolve });
      });
      await new EncryptingStore(t.store, { keys: ks1 }).create(`${SECRETS_PREFIX}ns/second`, secretJson);
      const err = await ended;
      assert.ok(err instanceof ApiError && err.code === 503);
    } finally {
      await t.cleanup();
    }
  });

  test('withRevision puts the revision into metadata and leaves other text alone', () => {
    assert.equal(JSON.parse(withRevision(secretJson(3), 9)).metadata.resourceVersion, '9');
    assert.equal(withRevision('not json', 9), 'not json');
  });
});
