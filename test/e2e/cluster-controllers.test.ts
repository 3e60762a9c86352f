/**
 * `conductor controllers` against another API server (here a Conductor server started with its
 * own controllers off — a Kubernetes-compatible API like any cluster's): two replicas elect one
 * leader through a Lease, only the leader binds claims, the other takes over when the leader is
 * SIGKILLed (no claim lost, nothing provisioned twice), health endpoints say who leads, SIGTERM
 * steps down cleanly, and a kubeconfig that cannot be read is a clear error.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { cliPath, kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${SYS}/leases/conductor-controllers`;

interface Replica {
  child: ChildProcess;
  identity: string;
  health: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function startReplica(kubeconfig: string, dataDir: string): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [
      cliPath,
      'controllers',
      '--kubeconfig',
      kubeconfig,
      '--data-dir',
      dataDir,
      '--health-port',
      '0',
      '--log-level',
      'info',
      '--leader-elect-lease-duration',
      '3',
      '--leader-elect-renew-deadline',
      '2',
      '--leader-elect-retry-period',
      '0.5',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const m = await eventually(
    () => /conductor controllers ready \(identity (\S+); health on (\S+)\)/.exec(out) ?? undefined,
    `a replica ready (output: ${out})`,
    60_000,
  );
  return { child, identity: m[1], health: m[2], output: () => out, exited };
}

describe('conductor controllers against another API server', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  const dir = tempDir('conductor-replicas-');
  const replicas: Replica[] = [];

  const get = async (path: string) => {
    const res = await api.request('GET', path);
    return res.status === 404 ? undefined : res.json();
  };
  const holder = async () => (await get(LEASE))?.spec?.holderIdentity as string | undefined;
  const claim = (name: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: apps}
spec: {}
`;
  const readyClaim = (name: string) =>
    eventually(
      async () => {
        const c = await get(`/apis/storage.conductor.io/v1alpha1/namespaces/apps/postgresqlinstances/${name}`);
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `claim ${name} Ready`,
      60_000,
    );
  const memoryDatabases = async () => ((await get(`/apis/database.memory.conductor.io/v1alpha1/namespaces/${SYS}/memorydatabases`))?.items ?? []) as any[];

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_CONTROLLERS: 'false' } });
    api = apiFromKubeconfig(server.kubeconfig);
    replicas.push(await startReplica(server.kubeconfig, join(dir, 'a')), await startReplica(server.kubeconfig, join(dir, 'b')));
  });

  after(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await server?.kill();
    if (server) removeDir(server.dataDir);
    removeDir(dir);
  });

  test('one replica holds the lease, and each says who leads on /readyz', async () => {
    const leader = await eventually(holder, 'a lease holder', 30_000);
    assert.ok(
      replicas.some((r) => r.identity === leader),
      `the lease is held by one of the replicas (${leader})`,
    );
    for (const r of replicas) {
      const body = await eventually(
        async () => {
          const res = await fetch(`${r.health}/readyz?verbose`);
          const text = await res.text();
          return res.status === 200 && !/campaigning/.test(text) ? text : undefined;
        },
        'readyz passes',
        30_000,
      );
      if (r.identity === leader) assert.match(body, /\[\+\]leader-election ok: leading/);
      else assert.match(body, new RegExp(`standing by; ${leader} leads`));
      assert.equal((await fetch(`${r.health}/healthz`)).status, 200);
    }
  });

  test('the leader binds claims; killed, the other takes over with nothing lost or made twice', async () => {
    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: memory, namespace: ${SYS}, annotations: {conductor.io/is-default-class: "true"}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`,
    });
    await kubectlOk(server, ['apply', '-f', '-'], { input: claim('first') });
    const first = await readyClaim('first');
    assert.equal(first.status.resourceRef.kind, 'MemoryDatabase');

    const leaderId = (await holder())!;
    const leader = replicas.find((r) => r.identity === leaderId)!;
    const other = replicas.find((r) => r.identity !== leaderId)!;
    assert.match(leader.output(), /controllers running/);
    assert.doesNotMatch(other.output(), /controllers running/, 'the replica standing by runs no controller');
    leader.child.kill('SIGKILL');
    await leader.exited;
    await kubectlOk(server, ['apply', '-f', '-'], { input: claim('second') });
    await eventually(async () => (await holder()) === other.identity, 'the standing-by replica holds the lease', 30_000);
    const second = await readyClaim('second');
    assert.equal(second.status.resourceRef.kind, 'MemoryDatabase');
    assert.equal((await readyClaim('first')).status.resourceRef.name, first.status.resourceRef.name, 'the first claim keeps its resource');
    const names = (await memoryDatabases()).map((d) => d.metadata.name).sort();
    assert.deepEqual(names, [first.status.resourceRef.name, second.status.resourceRef.name].sort(), 'one resource per claim, none made twice');
    assert.ok((await get('/api/v1/namespaces/apps/secrets/second'))?.data?.password, 'the new leader published the connection Secret');
  });

  test('SIGTERM steps down cleanly: exit 0 and the lease released', async () => {
    const survivor = replicas.find((r) => r.child.exitCode === null && r.child.signalCode === null)!;
    survivor.child.kill('SIGTERM');
    assert.equal(await survivor.exited, 0, survivor.output());
    await eventually(async () => !(await holder()), 'the lease released', 10_000);
  });

  test('a kubeconfig that cannot be read is a clear error, exit 1', async () => {
    const child = spawn(process.execPath, [cliPath, 'controllers', '--kubeconfig', join(dir, 'missing.kubeconfig'), '--health-port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    assert.equal(code, 1);
    assert.match(err, /cannot start the controllers: cannot read kubeconfig .*missing\.kubeconfig/);
  });
});
