/**
 * Volume claims end to end on real directories (HostPathPool): a claim is bound to a
 * directory of its own, the pool accounts for its size and reports what it uses, a directory
 * removed by hand is made again, and Delete, Retain and Recycle act on the real files.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const poolPath = (name: string) => `/apis/storage.local.conductor.io/v1alpha1/namespaces/${SYS}/hostpathpools/${name}`;
const claimPath = (ns: string, name: string) => `/apis/storage.conductor.io/v1alpha1/namespaces/${ns}/volumes/${name}`;

describe('Volume claims on a HostPathPool', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  const root = tempDir('conductor-hostpath-');

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => (await api.request('GET', path)).json();
  const boundAndReady = (ns: string, name: string) =>
    eventually(
      async () => {
        const c = await get(claimPath(ns, name));
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `${ns}/${name} Bound and Ready`,
      30_000,
    );
  const secretOf = async (ns: string, name: string) => {
    const s = await get(`/api/v1/namespaces/${ns}/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const pool = (name: string, policy: string) => {
    mkdirSync(join(root, name));
    return `apiVersion: storage.local.conductor.io/v1alpha1
kind: HostPathPool
metadata: {name: ${name}, namespace: ${SYS}, labels: {pool: ${name}}}
spec:
  root: ${join(root, name)}
  rebindPolicy: ${policy}
  capabilities: {capacity: {storage: 10Gi}}
`;
  };
  const volumeClaim = (name: string, pool: string, storage = '2Gi') => `apiVersion: storage.conductor.io/v1alpha1
kind: Volume
metadata: {name: ${name}, namespace: apps}
spec:
  accessMode: ReadWriteOnce
  requirements: {capacity: {storage: ${storage}}}
  resourceSelector: {matchLabels: {pool: ${pool}}}
`;

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '1000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/hostpathpools.storage.local.conductor.io', '--timeout=30s']);
    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await apply([pool('scratch', 'Delete'), pool('archive', 'Retain'), pool('reuse', 'Recycle')].join('---\n'));
  });
  after(async () => {
    api?.close();
    await server?.stop();
    if (server) removeDir(server.dataDir);
    removeDir(root);
  });

  test('a claim binds to a directory of its own; the pool accounts for its size and reports its usage', async () => {
    await apply(volumeClaim('cache', 'scratch'));
    const claim = await boundAndReady('apps', 'cache');
    assert.equal(claim.status.resourceRef.name, 'scratch');
    const secret = await secretOf('apps', 'cache');
    const dir = join(root, 'scratch', 'apps_cache');
    assert.deepEqual(secret, { path: dir, server: 'localhost', export: dir });
    assert.ok(statSync(secret.path).isDirectory());
    assert.equal(statSync(dir).mode & 0o777, 0o750);
    writeFileSync(join(secret.path, 'blob.bin'), Buffer.alloc(5000));
    const observed = await eventually(
      async () => {
        const p = await get(poolPath('scratch'));
        return p.status?.atProvider?.usedBytes === 5000 ? p : undefined;
      },
      'the pool to report 5000 bytes used',
      20_000,
    );
    assert.equal(observed.status.allocatable.storage, '8Gi', '10Gi minus the 2Gi request');
    assert.deepEqual(observed.status.atProvider.volumes, [
      { claim: 'apps/cache', path: dir, present: true, usedBytes: 5000, files: 1, complete: true, requested: '2Gi' },
    ]);
  });

  test('a claim asking for more than the pool has left stays Pending and says why', async () => {
    await apply(volumeClaim('huge', 'scratch', '20Gi'));
    const why = await eventually(
      async () => {
        const c = await get(claimPath('apps', 'huge'));
        return c.status?.conditions?.find((x: any) => x.type === 'Scheduled' && x.status === 'False');
      },
      'the Scheduled=False condition',
      20_000,
    );
    assert.match(why.message, /^0\/\d+ candidates: .*storage/);
    await kubectlOk(server, ['delete', 'volume', 'huge', '-n', 'apps', '--timeout=30s']);
  });

  test('drift: a claim directory removed by hand is made again', async () => {
    const dir = join(root, 'scratch', 'apps_cache');
    rmSync(dir, { recursive: true });
    await eventually(() => existsSync(dir), 'the directory to be made again', 20_000);
  });

  test('Delete removes the directory, Retain keeps it with its files, Recycle empties it', async () => {
    await apply(volumeClaim('logs', 'archive') + '---\n' + volumeClaim('tmp', 'reuse'));
    const [logs, tmp] = await Promise.all([boundAndReady('apps', 'logs'), boundAndReady('apps', 'tmp')]).then(() =>
      Promise.all([secretOf('apps', 'logs'), secretOf('apps', 'tmp')]),
    );
    for (const s of [logs, tmp]) {
      mkdirSync(join(s.path, 'nested'));
      writeFileSync(join(s.path, 'nested', 'f.txt'), 'kept?');
    }
    const cache = await secretOf('apps', 'cache');
    await kubectlOk(server, ['delete', 'volumes', 'cache', 'logs', 'tmp', '-n', 'apps', '--timeout=60s']);
    assert.equal(existsSync(cache.path), false, 'Delete removes the directory');
    assert.deepEqual(readdirSync(join(logs.path, 'nested')), ['f.txt'], 'Retain keeps the files');
    assert.deepEqual(readdirSync(tmp.path), [], 'Recycle empties the directory');
    const scratch = await get(poolPath('scratch'));
    assert.equal(scratch.status.allocatable.storage, '10Gi');
    assert.equal(scratch.status.bindings?.length ?? 0, 0);
  });

  test('a pool whose root is missing says so on its conditions', async () => {
    await apply(`apiVersion: storage.local.conductor.io/v1alpha1
kind: HostPathPool
metadata: {name: nowhere, namespace: ${SYS}}
spec:
  root: ${join(root, 'does-not-exist')}
  capabilities: {capacity: {storage: 1Gi}}
`);
    const synced = await eventually(
      async () => {
        const p = await get(poolPath('nowhere'));
        return p.status?.conditions?.find((c: any) => c.type === 'Synced' && c.status === 'False');
      },
      'Synced=False on the pool',
      20_000,
    );
    assert.match(synced.message, /does-not-exist cannot be used: .*want an existing directory/);
  });
});
