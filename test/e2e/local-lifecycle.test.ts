/**
 * The life of dedicated local servers across crashes, end to end on a real `conductor server`
 * and real redis-server / PostgreSQL processes:
 * - a Conductor SIGKILLed between spawning a server and recording its pid adopts that server
 *   after a restart (one server per instance, never a second on the same data);
 * - a Conductor SIGKILLed in the middle of removing an instance directory finishes the
 *   removal after a restart before the resource's finalizer goes (no data left behind);
 * - a server killed under a running Conductor is restarted at once (not at the next poll),
 *   its resource Ready=False meanwhile;
 * - the PostgreSQL instances directory of a root Conductor exists only while it holds an
 *   instance.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { statSync } from 'node:fs';
import mysql from 'mysql2/promise';
import { createClient } from 'redis';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const redisPath = (name = '') => `/apis/cache.local.conductor.io/v1alpha1/namespaces/${SYS}/localredisinstances${name ? `/${name}` : ''}`;
const pgPath = (name = '') => `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localpostgresqlinstances${name ? `/${name}` : ''}`;

/** A server started by a test, with its API handle; `crashed` resolves when the process dies. */
interface Running {
  server: ServerProcess;
  api: ApiHandle;
  exited: Promise<void>;
}

const started: Running[] = [];
const dataDirs: string[] = [];

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const server = await startServer({ dataDir, env: { CONDUCTOR_POLL_INTERVAL_MS: '1000', ...env } });
  const exited = new Promise<void>((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r())));
  const running = { server, api: apiFromKubeconfig(server.kubeconfig), exited };
  started.push(running);
  return running;
}

/** crashed waits for a server armed with a crash point to die there. */
async function crashed(r: Running): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Conductor never reached its crash point; stderr:\n${r.server.stderr().slice(-2000)}`)), 90_000);
  });
  try {
    await Promise.race([r.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
  r.api.close();
  assert.equal(r.server.child.signalCode, 'SIGKILL', 'Conductor was killed at the crash point');
}

async function stop(r: Running): Promise<void> {
  r.api.close();
  await r.server.stop();
}

const provider = `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
`;
// Deleting a resource removes its server only under rebindPolicy Delete (Retain, the default of a resource made by hand, keeps it).
const redisInstance = (name: string) => `apiVersion: cache.local.conductor.io/v1alpha1
kind: LocalRedisInstance
metadata: {name: ${name}, namespace: ${SYS}}
spec: {providerRef: {name: local}, rebindPolicy: Delete}
`;

async function setUp(r: Running): Promise<void> {
  await kubectlOk(r.server, ['wait', '--for=condition=Established', 'crd/localredisinstances.cache.local.conductor.io', '--timeout=30s']);
  await kubectlOk(r.server, ['apply', '-f', '-'], { input: provider });
}

const isReady = (obj: any, status = 'True') => obj?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === status) === true;

async function ready(r: Running, path: string, what: string): Promise<any> {
  return eventually(
    async () => {
      const res = await r.api.request('GET', path);
      const obj = res.status === 200 ? res.json() : undefined;
      return isReady(obj) ? obj : undefined;
    },
    `${what} Ready`,
    90_000,
    200,
  );
}

/** The live processes (zombies aside) whose working directory is `dir` or under it, read from /proc. */
function processesIn(dir: string): number[] {
  let wanted = dir;
  try {
    wanted = realpathSync(dir);
  } catch {
    // gone: compare with the path as given
  }
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if ((cwd === wanted || cwd.startsWith(`${wanted}/`)) && state !== 'Z') found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** The live processes running in `root` (or under it) whose program name contains `program`. */
function serverProcesses(root: string, program: string): number[] {
  if (!existsSync(root)) return [];
  return processesIn(root).filter((pid) => {
    try {
      return (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '').includes(program);
    } catch {
      return false;
    }
  });
}

async function secretOf(api: ApiHandle, name: string): Promise<Record<string, string>> {
  const s = (await api.request('GET', `/api/v1/namespaces/${SYS}/secrets/${name}`)).json();
  return Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
}

/** redisLogin logs in with a connection Secret's details and round-trips a key. */
async function redisLogin(details: Record<string, string>): Promise<string> {
  const c = createClient({ url: details.uri, socket: { reconnectStrategy: false, connectTimeout: 2000 } });
  c.on('error', () => {});
  await c.connect();
  try {
    await c.set('probe', 'ok');
    return (await c.get('probe')) ?? '';
  } finally {
    c.destroy();
  }
}

/** Where a Conductor on `dataDir` keeps its Redis instances: outside the data dir when root (the servers run as another user). */
function redisRoot(dataDir: string): string {
  if (process.getuid?.() !== 0) return join(dataDir, 'providers', 'local', 'redis');
  const root = join('/var/tmp', `conductor-redis-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`);
  if (!dataDirs.includes(root)) dataDirs.push(root);
  return root;
}

after(async () => {
  for (const r of started) {
    r.api.close();
    await r.server.kill();
  }
  for (const dir of dataDirs) {
    for (const pid of processesIn(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    removeDir(dir);
  }
});

describe('dedicated servers across crashes', () => {
  test('killed between spawning redis-server and recording its pid, the restarted Conductor adopts it: one server per instance', async () => {
    const dataDir = tempDir();
    dataDirs.push(dataDir);
    const first = await start(dataDir, { CONDUCTOR_CRASH_AT: 'local.spawned-before-pid-recorded' });
    await setUp(first);
    await kubectlOk(first.server, ['apply', '-f', '-'], { input: redisInstance('orphan') });
    await crashed(first); // right after the spawn
    const root = redisRoot(dataDir);
    assert.equal(serverProcesses(root, 'redis-server').length, 1, 'the server spawned before the kill outlives it');

    const second = await start(dataDir);
    await ready(second, redisPath('orphan'), 'the instance');
    const details = await eventually(async () => {
      const d = await secretOf(second.api, 'orphan-connection');
      return d.uri ? d : undefined;
    }, 'the connection Secret');
    assert.equal(await redisLogin(details), 'ok', 'the Secret logs in');
    // Give a wrongly started second server every chance to show up: another reconcile.
    await kubectlOk(second.server, ['annotate', 'localredisinstances', 'orphan', '-n', SYS, 'touch=1']);
    await ready(second, redisPath('orphan'), 'the instance');
    assert.equal(serverProcesses(root, 'redis-server').length, 1, 'exactly one redis-server runs on the instance directory');

    await kubectlOk(second.server, ['delete', 'localredisinstances', 'orphan', '-n', SYS, '--timeout=60s']);
    assert.deepEqual(serverProcesses(root, 'redis-server'), [], 'no server after the delete');
    await stop(second);
  });

  test('killed in the middle of removing an instance directory, the restarted Conductor finishes the removal before the finalizer goes', async () => {
    const dataDir = tempDir();
    dataDirs.push(dataDir);
    const first = await start(dataDir, { CONDUCTOR_CRASH_AT: 'local.removing-instance-dir' });
    await setUp(first);
    await kubectlOk(first.server, ['apply', '-f', '-'], { input: redisInstance('doomed') });
    await ready(first, redisPath('doomed'), 'the instance');
    const details = await eventually(async () => {
      const d = await secretOf(first.api, 'doomed-connection');
      return d.uri ? d : undefined;
    }, 'the connection Secret');
    assert.equal(await redisLogin(details), 'ok');
    const root = redisRoot(dataDir);
    assert.deepEqual(readdirSync(root), ['conductor-system_doomed']);

    await kubectlOk(first.server, ['delete', 'localredisinstances', 'doomed', '-n', SYS, '--wait=false']);
    await crashed(first);
    assert.ok(existsSync(root) && readdirSync(root).length > 0, 'the kill left part of the directory behind');

    const second = await start(dataDir);
    await eventually(
      async () => ((await second.api.request('GET', redisPath('doomed'))).status === 404 ? true : undefined),
      'the resource to be deleted',
      60_000,
      200,
    );
    assert.deepEqual(existsSync(root) ? readdirSync(root) : [], [], 'no data directory and no tombstone is left');
    assert.deepEqual(processesIn(root), [], 'no server process is left');
    await stop(second);
  });

  test('a server killed under a running Conductor is restarted at once, its resource Ready=False meanwhile', async () => {
    const dataDir = tempDir();
    dataDirs.push(dataDir);
    // A poll every 10 minutes: only the exit watch can explain a prompt recovery.
    const r = await start(dataDir, { CONDUCTOR_POLL_INTERVAL_MS: '600000' });
    await setUp(r);
    await kubectlOk(r.server, ['apply', '-f', '-'], { input: redisInstance('phoenix') });
    const before = await ready(r, redisPath('phoenix'), 'the instance');
    const details = await eventually(async () => {
      const d = await secretOf(r.api, 'phoenix-connection');
      return d.uri ? d : undefined;
    }, 'the connection Secret');
    assert.equal(await redisLogin(details), 'ok');
    const pid = before.status.atProvider.pid as number;
    assert.ok(pid > 0);

    const watch = r.api.watch(`${redisPath()}?watch=true&fieldSelector=metadata.name%3Dphoenix&resourceVersion=${before.metadata.resourceVersion}`);
    try {
      process.kill(pid, 'SIGKILL');
      await watch.until((events) => events.some((e) => isReady(e.object, 'False')), 60_000);
      await watch.until((events) => {
        const i = events.findIndex((e) => isReady(e.object, 'False'));
        return events.slice(i + 1).some((e) => isReady(e.object, 'True'));
      }, 60_000);
    } finally {
      watch.stop();
    }
    const after = (await r.api.request('GET', redisPath('phoenix'))).json();
    assert.notEqual(after.status.atProvider.pid, pid, 'a new server process');
    assert.equal(await redisLogin(details), 'ok', 'the same Secret logs in to the restarted server');
    await kubectlOk(r.server, ['delete', 'localredisinstances', 'phoenix', '-n', SYS, '--timeout=60s']);
    await stop(r);
  });

  test(
    'a root Conductor makes the PostgreSQL instances directory with the first instance and removes it with the last',
    { skip: process.getuid?.() !== 0 ? 'runs only as root' : false },
    async () => {
      const dataDir = tempDir();
      dataDirs.push(dataDir);
      const pgRoot = join('/var/tmp', `conductor-postgres-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`);
      dataDirs.push(pgRoot);
      const r = await start(dataDir);
      await setUp(r);
      assert.equal(existsSync(pgRoot), false, 'no instances directory without an instance');
      await kubectlOk(r.server, ['apply', '-f', '-'], {
        input: `apiVersion: database.local.conductor.io/v1alpha1
kind: LocalPostgreSQLInstance
metadata: {name: pg1, namespace: ${SYS}}
spec: {providerRef: {name: local}, rebindPolicy: Delete}
`,
      });
      await ready(r, pgPath('pg1'), 'the PostgreSQL instance');
      assert.equal(existsSync(pgRoot), true, 'the instances directory holds the instance');
      await kubectlOk(r.server, ['delete', 'localpostgresqlinstances', 'pg1', '-n', SYS, '--timeout=120s']);
      assert.equal(existsSync(pgRoot), false, 'the emptied instances directory is removed');
      await stop(r);
    },
  );

  test(
    'a root Conductor runs dedicated MariaDB, Redis and NATS servers as another user, with data directories of that user (0700)',
    { skip: process.getuid?.() !== 0 ? 'runs only as root' : false },
    async () => {
      const dataDir = tempDir();
      dataDirs.push(dataDir);
      const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
      const mysqlRoot = join('/var/tmp', `conductor-mysql-${hash}`);
      const redisVarRoot = join('/var/tmp', `conductor-redis-${hash}`);
      const natsRoot = join('/var/tmp', `conductor-nats-${hash}`);
      dataDirs.push(mysqlRoot, redisVarRoot, natsRoot);
      const r = await start(dataDir);
      await setUp(r);
      await kubectlOk(r.server, ['wait', '--for=condition=Established', 'crd/localmysqlinstances.database.local.conductor.io', '--timeout=30s']);
      await kubectlOk(r.server, ['apply', '-f', '-'], {
        input: `${redisInstance('cache')}---
apiVersion: database.local.conductor.io/v1alpha1
kind: LocalMySQLInstance
metadata: {name: db, namespace: ${SYS}}
spec: {providerRef: {name: local}, rebindPolicy: Delete}
---
apiVersion: messaging.local.conductor.io/v1alpha1
kind: NATSServer
metadata: {name: bus, namespace: ${SYS}}
spec: {providerRef: {name: local}, rebindPolicy: Delete, sharing: {mode: Shared, maxClaims: 10}}
`,
      });
      const natsObj = await ready(r, `/apis/messaging.local.conductor.io/v1alpha1/namespaces/${SYS}/natsservers/bus`, 'the NATS server');
      const redisObj = await ready(r, redisPath('cache'), 'the Redis instance');
      const mysqlObj = await ready(r, `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localmysqlinstances/db`, 'the MariaDB instance');

      const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[2]);
      const checks = [
        { what: 'redis-server', pid: redisObj.status.atProvider.pid as number, data: join(redisVarRoot, `${SYS}_cache`, 'data') },
        { what: 'mariadbd', pid: mysqlObj.status.atProvider.pid as number, data: join(mysqlRoot, `${SYS}_db`, 'data') },
      ];
      const natsPid = natsObj.status.atProvider.pid as number;
      assert.ok(natsPid > 0, 'nats-server pid in status');
      assert.notEqual(uidOf(natsPid), 0, 'nats-server does not run as root');
      for (const c of checks) {
        assert.ok(c.pid > 0, `${c.what} pid in status`);
        const uid = uidOf(c.pid);
        assert.notEqual(uid, 0, `${c.what} does not run as root`);
        const st = statSync(c.data);
        assert.equal(st.uid, uid, `${c.what}'s data directory is its user's`);
        assert.equal(st.mode & 0o777, 0o700, `${c.what}'s data directory is 0700`);
      }

      const redisDetails = await eventually(async () => {
        const d = await secretOf(r.api, 'cache-connection');
        return d.uri ? d : undefined;
      }, 'the Redis connection Secret');
      assert.equal(await redisLogin(redisDetails), 'ok');
      const dbDetails = await eventually(async () => {
        const d = await secretOf(r.api, 'db-connection');
        return d.uri ? d : undefined;
      }, 'the MariaDB connection Secret');
      const c = await mysql.createConnection(dbDetails.uri);
      try {
        const [rows] = await c.query('SELECT 1 AS one');
        assert.deepEqual((rows as { one: number }[])[0]?.one, 1);
      } finally {
        await c.end();
      }
      await kubectlOk(r.server, ['delete', 'localredisinstances,localmysqlinstances,natsservers', '--all', '-n', SYS, '--timeout=120s']);
      assert.equal(existsSync(natsRoot), false, 'the emptied NATS root is removed');
      assert.equal(existsSync(redisVarRoot), false, 'the emptied Redis root is removed');
      assert.equal(existsSync(mysqlRoot), false, 'the emptied MariaDB root is removed');
      await stop(r);
    },
  );
});
