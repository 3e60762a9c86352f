/**
 * Secrets are encrypted at rest: nothing of a secret's data is in the SQLite file; after a
 * key rotation and a restart old secrets still read, new ones use the new key, the server
 * re-encrypts old ones, the old key can be pruned; a missing key is a 503 naming it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { apiFromKubeconfig } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { cliPath, kubectlOk, kubectl, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const run = promisify(execFile);
const env = { CONDUCTOR_CONTROLLERS: 'false' };
const password1 = 'first-plaintext-Zq81xW';
const password2 = 'second-plaintext-Lm27pQ';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Every stored value of secrets: [revision, value] from the log (history included). */
function storedSecrets(dataDir: string): { rev: number; live: boolean; value: string }[] {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT l.rev AS rev, (k.mod_rev IS NOT NULL) AS live, l.value AS value FROM log l LEFT JOIN kv k ON k.key = l.key AND k.mod_rev = l.rev WHERE l.key LIKE '/registry/core/secrets/%' AND l.value IS NOT NULL`,
      )
      .all()
      .map((r) => {
        const row = r as { rev: number; live: number; value: string };
        return { rev: row.rev, live: row.live === 1, value: row.value };
      });
  } finally {
    db.close();
  }
}

/** The raw bytes of every file of the store (database, WAL). */
function rawStoreBytes(dataDir: string): Buffer {
  return Buffer.concat(
    readdirSync(dataDir)
      .filter((f) => f.startsWith('state.db'))
      .map((f) => readFileSync(join(dataDir, f))),
  );
}

function keyIdOf(value: string): string | undefined {
  return /^conductor:enc:aes-gcm:v1:([^:]+):/.exec(value)?.[1];
}

describe('secrets at rest', () => {
  test('encrypted on disk, readable through the API and watches; rotation, re-encryption, pruning, missing key', async () => {
    const dataDir = tempDir();
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ dataDir, env });
      await kubectlOk(server, ['create', 'secret', 'generic', 's1', `--from-literal=password=${password1}`]);
      const api = apiFromKubeconfig(server.kubeconfig);
      const watch = api.watch('/api/v1/namespaces/default/secrets?watch=true&resourceVersion=0');
      await watch.until((evs) => evs.some((e) => e.object.metadata.name === 's1'));
      assert.equal(Buffer.from(watch.events.find((e) => e.object.metadata.name === 's1')!.object.data.password, 'base64').toString(), password1);
      const created = await api.request('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's-json' }, stringData: { token: password2 } });
      assert.equal(created.status, 201, created.text);
      await watch.until((evs) => evs.some((e) => e.type === 'ADDED' && e.object.metadata.name === 's-json'));
      assert.equal(watch.events.find((e) => e.object.metadata.name === 's-json')!.object.data.token, b64(password2));
      watch.stop();
      api.close();
      assert.equal(await server.stop(), 0);

      for (const needle of [password1, b64(password1), password2, b64(password2)]) {
        assert.ok(!rawStoreBytes(dataDir).includes(needle), `the store files hold ${needle}`);
      }
      const first = storedSecrets(dataDir);
      assert.ok(first.length >= 2);
      assert.deepEqual([...new Set(first.map((r) => keyIdOf(r.value)))], ['key-1']);

      // Rotate, restart: the old secret reads, a new one is written with the new key.
      const rotated = await run(process.execPath, [cliPath, 'keys', 'rotate', '--data-dir', dataDir]);
      assert.match(rotated.stdout, /added key key-2/);
      server = await startServer({ dataDir, env });
      assert.equal(Buffer.from(await kubectlOk(server, ['get', 'secret', 's1', '-o', 'jsonpath={.data.password}']), 'base64').toString(), password1);
      await kubectlOk(server, ['create', 'secret', 'generic', 's2', '--from-literal=password=third-plaintext']);
      // The server re-encrypts s1 in the background; wait until a read shows the rewrite (new resourceVersion).
      assert.equal(await server.stop(), 0);
      const second = storedSecrets(dataDir);
      const ids = new Set(second.map((r) => keyIdOf(r.value)));
      assert.ok(ids.has('key-1') && ids.has('key-2'), `both key ids are stored (history and live): ${[...ids].join(', ')}`);
      assert.deepEqual([...new Set(second.filter((r) => r.live).map((r) => keyIdOf(r.value)))], ['key-2'], 'live secrets are all under the primary key');

      const pruned = await run(process.execPath, [cliPath, 'keys', 'prune', '--data-dir', dataDir]);
      assert.match(pruned.stdout, /removed key-1; key-2 remains/);
      assert.deepEqual([...new Set(storedSecrets(dataDir).map((r) => keyIdOf(r.value)))], ['key-2']);

      // A key file without the key in use: reads of secrets are a 503 naming it; other kinds still work.
      const keyFile = join(dataDir, 'encryption', 'keys.json');
      const doc = JSON.parse(readFileSync(keyFile, 'utf8'));
      doc.keys[0].id = 'key-9';
      doc.primary = 'key-9';
      writeFileSync(keyFile, JSON.stringify(doc));
      server = await startServer({ dataDir, env });
      const broken = apiFromKubeconfig(server.kubeconfig);
      const got = await broken.request('GET', '/api/v1/namespaces/default/secrets/s1');
      assert.equal(got.status, 503, got.text);
      assert.match(got.json().message, /encryption key "key-2" is missing/);
      assert.equal((await broken.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
      const viaKubectl = await kubectl(server, ['get', 'secrets']);
      assert.notEqual(viaKubectl.code, 0);
      assert.match(viaKubectl.stderr, /key-2/);
      broken.close();
      await eventually(() => /"keyId":"key-2".*which the encryption key file does not hold/.test(server!.stderr()), 'the server logs the missing key', 5_000);
      await server.stop();
    } finally {
      await server?.kill();
      removeDir(dataDir);
    }
  });
});
