import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../store/index.js';
import { EncryptingStore, ensureKeySet, keyUsage, readKeySet, SECRETS_PREFIX } from '../apiserver/encryption/index.js';
import { addStandbyKey, KeysCommandError, listKeys, pruneKeys, rewriteSecrets, rotateKeys, useKey } from './keys.js';

const secret = (rev: number) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', resourceVersion: String(rev) }, data: { k: 'dg==' } });

describe('conductor keys', () => {
  test('rotate → prune refuses while a secret uses the old key → rewrite → prune retires it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-keys-cli-'));
    try {
      const ks = await ensureKeySet(dir);
      let store = openSqliteStore({ path: join(dir, 'state.db'), compactionIntervalMs: 0 });
      await new EncryptingStore(store, { keys: ks }).create(`${SECRETS_PREFIX}ns/s`, secret);
      await store.close();

      assert.match(await rotateKeys(dir), /added key key-2; it is now the primary key \(previous: key-1\)/);
      assert.match(await listKeys(dir), /key-1\t.*\t\nkey-2\t.*\tyes/);
      await assert.rejects(pruneKeys(dir), (err: unknown) => err instanceof KeysCommandError && /still use key-1 \(1 values\)/.test(err.message));
      assert.match(await rewriteSecrets(dir), /re-encrypted 1 of 1 stored secrets under key key-2/);
      assert.match(await pruneKeys(dir), /removed key-1; key-2 remains/);
      const after = (await readKeySet(dir))!;
      assert.deepEqual(
        after.keys.map((k) => k.id),
        ['key-2'],
      );

      store = openSqliteStore({ path: join(dir, 'state.db'), compactionIntervalMs: 0 });
      try {
        assert.deepEqual(Object.fromEntries(await keyUsage(store, [SECRETS_PREFIX])), { 'key-2': 1 });
        const plain = await new EncryptingStore(store, { keys: after }).get(`${SECRETS_PREFIX}ns/s`);
        assert.equal(JSON.parse(plain!.value).data.k, 'dg==');
      } finally {
        await store.close();
      }
      assert.match(await pruneKeys(dir), /nothing to prune/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('rewrite prints its progress: the count first, then a line per page of secrets checked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-keys-cli-'));
    try {
      const ks = await ensureKeySet(dir);
      const store = openSqliteStore({ path: join(dir, 'state.db'), compactionIntervalMs: 0 });
      const enc = new EncryptingStore(store, { keys: ks });
      for (let i = 0; i < 1200; i++) await enc.create(`${SECRETS_PREFIX}ns/s-${String(i).padStart(4, '0')}`, secret);
      await store.close();
      await rotateKeys(dir);
      const lines: string[] = [];
      assert.match(await rewriteSecrets(dir, (line) => lines.push(line)), /re-encrypted 1200 of 1200 stored secrets under key key-2/);
      assert.deepEqual(lines, [
        're-encrypting 1,200 stored Secrets under key key-2\n',
        'checked 500/1,200 Secrets, rewrote 500\n',
        'checked 1,000/1,200 Secrets, rewrote 1,000\n',
        'checked 1,200/1,200 Secrets, rewrote 1,200\n',
      ]);
      const again: string[] = [];
      await rewriteSecrets(dir, (line) => again.push(line));
      assert.equal(again.at(-1), 'checked 1,200/1,200 Secrets, rewrote 0\n', 'nothing left to rewrite');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('rotation for several servers: a standby key first, then "use" makes it primary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-keys-cli-'));
    try {
      await ensureKeySet(dir);
      assert.match(await addStandbyKey(dir), /added key key-2 on standby; key-1 stays the primary key/);
      assert.deepEqual(
        (await readKeySet(dir))?.keys.map((k) => k.id),
        ['key-1', 'key-2'],
      );
      assert.equal((await readKeySet(dir))?.primary, 'key-1');
      await assert.rejects(useKey(dir, 'key-9'), (err: unknown) => err instanceof KeysCommandError && /no key "key-9".*key-1, key-2/.test(err.message));
      assert.match(await useKey(dir, 'key-2'), /key-2 is now the primary key \(previous: key-1\)/);
      assert.equal((await readKeySet(dir))?.primary, 'key-2');
      assert.match(await useKey(dir, 'key-2'), /already the primary key/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('commands on a data dir without a key file say how to create one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-keys-cli-'));
    try {
      await assert.rejects(rotateKeys(dir), /no encryption key file at .*keys\.json: start the server once/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('rewrite refuses while a server holds the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-keys-cli-'));
    try {
      await ensureKeySet(dir);
      const held = openSqliteStore({ path: join(dir, 'state.db'), compactionIntervalMs: 0 });
      try {
        await assert.rejects(rewriteSecrets(dir), /stop the server first/);
      } finally {
        await held.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
