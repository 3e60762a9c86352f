/**
 * `conductor migrate --from DATA_DIR --to-etcd URL`: a real SQLite data dir (written by a
 * real server, then stopped) copied into a real etcd; Secrets stay encrypted (the stored bytes
 * are copied), a non-empty target is refused without --force, the counts are verified and
 * printed, and a server on that etcd, given the same data dir, serves the objects to kubectl.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { etcdMissing, startEtcdCluster, type EtcdCluster } from '../support/etcd.js';
import { kubectlOk, removeDir, startServer, tempDir } from '../support/server.js';
import { openEtcdStore, openSqliteStore } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';

const missing = etcdMissing();
const SECRET_KEY = '/registry/core/secrets/default/db-password';

describe('conductor migrate from SQLite to etcd', { skip: missing }, () => {
  let etcd: EtcdCluster;
  const dataDir = tempDir();

  before(async () => {
    etcd = await startEtcdCluster(1);
    // A real data dir: a server on SQLite writes objects of several kinds, then stops.
    const sqlite = await startServer({ dataDir, env: { CONDUCTOR_CONTROLLERS: 'false' } });
    try {
      await kubectlOk(sqlite, ['create', 'namespace', 'team-a']);
      for (let i = 0; i < 30; i++) await kubectlOk(sqlite, ['create', 'configmap', `cm-${i}`, '-n', 'team-a', `--from-literal=i=${i}`]);
      await kubectlOk(sqlite, ['create', 'secret', 'generic', 'db-password', '--from-literal=password=hunter22']);
    } finally {
      assert.equal(await sqlite.stop(), 0, sqlite.stderr());
    }
  });
  after(async () => {
    await etcd?.stop();
    removeDir(dataDir);
  });

  test('copies every object, prints progress and the verified counts', async () => {
    const r = await runCli(['migrate', '--from', dataDir, '--to-etcd', etcd.endpoints.join(',')], 60_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /copied (\d+)\/\1 objects/);
    assert.match(r.stdout, /^ok +\/registry\/core\/configmaps\/ source (\d+) etcd \1$/m);
    assert.match(r.stdout, /^ok +\/registry\/core\/secrets\/ source (\d+) etcd \1$/m);
    assert.doesNotMatch(r.stdout, /MISMATCH/);
    assert.match(r.stdout, /migrated \d+ objects .*the counts match/);

    // The same keys, the same bytes: the Secret is still encrypted at rest, now in etcd.
    const source = openSqliteStore({ path: join(dataDir, 'state.db'), compactionIntervalMs: 0 });
    const target = await openEtcdStore({ endpoints: etcd.endpoints, keyPrefix: '/conductor', compactionIntervalMs: 0 });
    try {
      assert.equal(await target.count(''), await source.count(''));
      const stored = await target.get(SECRET_KEY);
      assert.ok(stored, 'the Secret is in etcd under the default prefix');
      assert.equal(stored.value, (await source.get(SECRET_KEY))?.value);
      assert.doesNotMatch(stored.value, /hunter22|aHVudGVyMjI/, 'no plaintext or base64 of the password');
    } finally {
      await target.close();
      await source.close();
    }
  });

  test('a non-empty target is refused without --force; with --force it is replaced', async () => {
    const refused = await runCli(['migrate', '--from', dataDir, '--to-etcd', etcd.endpoints.join(',')], 60_000);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /already holds \d+ keys.*--force/);
    const forced = await runCli(['migrate', '--from', dataDir, '--to-etcd', etcd.endpoints.join(','), '--force'], 60_000);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /the counts match/);
  });

  test('bad input: no state.db in --from, or no target', async () => {
    const empty = tempDir();
    try {
      const r = await runCli(['migrate', '--from', empty, '--to-etcd', etcd.endpoints[0]]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /state\.db does not exist/);
    } finally {
      removeDir(empty);
    }
    const noTarget = await runCli(['migrate', '--from', dataDir]);
    assert.equal(noTarget.code, 2);
    assert.match(noTarget.stderr, /--to-etcd is required/);
  });

  test('a server on that etcd, with the same data dir, serves the objects to kubectl', { timeout: 60_000 }, async () => {
    const server = await startServer({ dataDir, args: ['--etcd-servers', etcd.endpoints.join(',')], env: { CONDUCTOR_CONTROLLERS: 'false' } });
    try {
      const names = await kubectlOk(server, ['get', 'configmaps', '-n', 'team-a', '-o', 'name']);
      assert.equal(names.split('\n').filter((l) => l.startsWith('configmap/cm-')).length, 30);
      const cm = JSON.parse(await kubectlOk(server, ['get', 'configmap', 'cm-7', '-n', 'team-a', '-o', 'json'])) as { data: { i: string } };
      assert.equal(cm.data.i, '7');
      const secret = JSON.parse(await kubectlOk(server, ['get', 'secret', 'db-password', '-o', 'json'])) as { data: { password: string } };
      assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 'hunter22');
      // And it writes: the migrated objects are the cluster's own now.
      await kubectlOk(server, ['label', 'configmap', 'cm-7', '-n', 'team-a', 'moved=yes']);
    } finally {
      await server.kill();
    }
  });
});
