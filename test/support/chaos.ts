/**
 * The reliability campaign: SIGKILLs of a real `conductor server` at random moments and at
 * named crash points while dedicated PostgreSQL, MariaDB and Redis servers are provisioned
 * (through claims and classes) and deleted, with the invariants checked after every restart:
 *
 * - every live claim is Bound and Ready, with exactly one managed resource naming it;
 * - every managed resource has exactly one server process, and no instance directory
 *   exists without a managed resource (and none with);
 * - every live claim's connection Secret logs in with the engine's real client;
 * - after the final delete: zero server processes, zero instance directories, zero managed
 *   resources.
 *
 * Used by test/e2e/chaos.test.ts (a few kills) and `npm run chaos` (test/chaos-main.ts, the
 * long run). A crash point this branch does not have (e.g. `apiserver.finalize-delete`) is
 * accepted by name; when it never fires the server is killed at a random moment instead and
 * the kill is counted under `<window> (not reached)`.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { createClient } from 'redis';
import { apiFromKubeconfig, type ApiHandle } from './api.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from './server.js';

const SYS = 'conductor-system';
const NS = 'chaos';

/** The crash points of the campaign, by name. */
export const crashWindows = ['local.spawned-before-pid-recorded', 'local.removing-instance-dir', 'apiserver.finalize-delete'] as const;
/** A kill window: a crash point, or `random` (a SIGKILL after a random delay). */
export type KillWindow = (typeof crashWindows)[number] | 'random';

interface Engine {
  /** The claim kind (plural for kubectl) and its API path. */
  claimPlural: string;
  claimKind: string;
  claimApi: string;
  concreteKind: string;
  concretePath: string;
  className: string;
  /** The instance root's name under the data dir, and under /var/tmp when root. */
  dirName: string;
  varName: string;
  /** Recognises the engine's server process by its argv[0]. */
  isServer: (argv0: string) => boolean;
  login: (d: Record<string, string>) => Promise<void>;
}

const engines: Record<'pg' | 'my' | 'rd', Engine> = {
  pg: {
    claimPlural: 'postgresqlinstances',
    claimKind: 'PostgreSQLInstance',
    claimApi: 'storage.conductor.io/v1alpha1',
    concreteKind: 'LocalPostgreSQLInstance',
    concretePath: `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localpostgresqlinstances`,
    className: 'chaos-pg',
    dirName: 'postgresql',
    varName: 'postgres',
    isServer: (a) => /(^|\/)postgres$/.test(a),
    login: async (d) => {
      const c = new pg.Client({
        host: d.host,
        port: Number(d.port),
        user: d.username,
        password: d.password,
        database: d.database,
        connectionTimeoutMillis: 5000,
      });
      await c.connect();
      try {
        await c.query('SELECT 1');
      } finally {
        await c.end();
      }
    },
  },
  my: {
    claimPlural: 'mysqlinstances',
    claimKind: 'MySQLInstance',
    claimApi: 'storage.conductor.io/v1alpha1',
    concreteKind: 'LocalMySQLInstance',
    concretePath: `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localmysqlinstances`,
    className: 'chaos-my',
    dirName: 'mysql',
    varName: 'mysql',
    isServer: (a) => /(^|\/)(mariadbd|mysqld)$/.test(a),
    login: async (d) => {
      const c = await mysql.createConnection({ uri: d.uri, connectTimeout: 5000 });
      try {
        await c.query('SELECT 1');
      } finally {
        await c.end();
      }
    },
  },
  rd: {
    claimPlural: 'redisclusters',
    claimKind: 'RedisCluster',
    claimApi: 'cache.conductor.io/v1alpha1',
    concreteKind: 'LocalRedisInstance',
    concretePath: `/apis/cache.local.conductor.io/v1alpha1/namespaces/${SYS}/localredisinstances`,
    className: 'chaos-rd',
    dirName: 'redis',
    varName: 'redis',
    isServer: (a) => a.startsWith('redis-server') || a.includes('/redis-server'),
    login: async (d) => {
      const c = createClient({ url: d.uri, socket: { reconnectStrategy: false, connectTimeout: 5000 } });
      c.on('error', () => {});
      await c.connect();
      try {
        if ((await c.ping()) !== 'PONG') throw new Error('PING did not answer PONG');
      } finally {
        c.destroy();
      }
    },
  },
};
type EngineName = keyof typeof engines;
const engineNames = Object.keys(engines) as EngineName[];

const setupYaml = `apiVersion: v1
kind: Namespace
metadata: {name: ${NS}}
---
apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
${engineNames
  .map(
    (e) => `---
apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${engines[e].className}, namespace: ${SYS}}
supportedResources: [${engines[e].claimKind}.${engines[e].claimApi.replace(/^([^/]+)\/(.+)$/, '$2.$1')}]
rebindPolicy: Delete
providerRef: {name: local}
template:
  apiVersion: ${engines[e].concretePath.split('/')[2]}/v1alpha1
  kind: ${engines[e].concreteKind}
  spec: {}
`,
  )
  .join('')}`;

const claimYaml = (engine: EngineName, name: string) => `apiVersion: ${engines[engine].claimApi}
kind: ${engines[engine].claimKind}
metadata: {name: ${name}, namespace: ${NS}}
spec: {resourceClass: ${engines[engine].className}}
`;

/** A ChaosKill is one SIGKILL of the server and what the check after the restart found. */
export interface ChaosKill {
  round: number;
  window: KillWindow;
  /** For a crash point: whether it fired (otherwise the server was killed at a random moment). */
  fired: boolean;
  /** Milliseconds from the start of the round's server to the kill. */
  killedAfterMs: number;
  /** Milliseconds from the restart until every invariant held. */
  recoveredAfterMs: number;
  failures: string[];
}

export interface ChaosResult {
  kills: ChaosKill[];
  finalFailures: string[];
  seed: number;
  durationMs: number;
}

export interface ChaosOptions {
  kills: number;
  seed?: number;
  /** The windows to choose from (default: random and every crash point). */
  windows?: readonly KillWindow[];
  /** Take the windows in their order, round after round, instead of at random. */
  cycle?: boolean;
  /** How many claims stay; each round past that deletes the oldest. Default 2. */
  keep?: number;
  /** The longest random delay before a kill; default 8 s. */
  maxRandomDelayMs?: number;
  /** How long a crash point may take to be reached before a random kill replaces it; default 20 s. */
  crashWaitMs?: number;
  /** How long the invariants may take to hold after a restart; default 180 s. */
  recoveryTimeoutMs?: number;
  log?: (line: string) => void;
  /** Told after every kill with the kills so far (the long run saves them as it goes). */
  onKill?: (kills: readonly ChaosKill[], seed: number) => void;
}

/** A small deterministic PRNG (mulberry32), so a failing run can be repeated with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Live processes whose working directory is `dir` or under it, with their argv[0]. */
function processesIn(dir: string): { pid: number; argv0: string }[] {
  let wanted = dir;
  try {
    wanted = realpathSync(dir);
  } catch {
    // gone: compare with the path as given
  }
  const found: { pid: number; argv0: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd !== wanted && !cwd.startsWith(`${wanted}/`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      found.push({ pid: Number(entry), argv0: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] ?? '' });
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** The instance roots of a Conductor on `dataDir`, by engine. */
function rootsFor(dataDir: string): Record<EngineName, string> {
  const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
  const asRoot = process.getuid?.() === 0;
  const root = (e: EngineName) =>
    asRoot ? join('/var/tmp', `conductor-${engines[e].varName}-${hash}`) : join(dataDir, 'providers', 'local', engines[e].dirName);
  return { pg: root('pg'), my: root('my'), rd: root('rd') };
}

/** The directories under a root (tombstones included: a finished removal leaves none). */
function instanceDirs(root: string): string[] {
  try {
    return readdirSync(root).filter((n) => !n.endsWith('.sock'));
  } catch {
    return [];
  }
}

interface Running {
  server: ServerProcess;
  api: ApiHandle;
  exited: Promise<void>;
}

async function start(dataDir: string, crashAt?: string): Promise<Running> {
  const server = await startServer({ dataDir, env: { CONDUCTOR_POLL_INTERVAL_MS: '2000', ...(crashAt ? { CONDUCTOR_CRASH_AT: crashAt } : {}) } });
  const exited = new Promise<void>((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r())));
  return { server, api: apiFromKubeconfig(server.kubeconfig), exited };
}

async function kill(r: Running): Promise<void> {
  r.api.close();
  await r.server.kill();
}

/**
 * check looks once at every invariant for the claims that should exist (`live`) and those
 * deleted (`gone`); it returns what does not hold (empty when all do).
 */
async function check(r: Running, dataDir: string, live: Map<string, EngineName>, logins: boolean): Promise<string[]> {
  const problems: string[] = [];
  const roots = rootsFor(dataDir);
  const get = async (path: string) => {
    const res = await r.api.request('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    return res.json();
  };
  // Claims: exactly the live ones, each Bound and Ready.
  for (const e of engineNames) {
    const claims = (await get(`/apis/${engines[e].claimApi}/namespaces/${NS}/${engines[e].claimPlural}`)).items as any[];
    const names = new Set(claims.map((c) => c.metadata.name as string));
    for (const [name, engine] of live) if (engine === e && !names.has(name)) problems.push(`claim ${name} is missing`);
    for (const c of claims) {
      if (!live.has(c.metadata.name)) {
        problems.push(`claim ${c.metadata.name} was deleted but still exists`);
        continue;
      }
      const ready = c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True');
      if (c.status?.phase !== 'Bound' || !ready)
        problems.push(`claim ${c.metadata.name} is ${c.status?.phase ?? 'without phase'}${ready ? '' : ', not Ready'}`);
    }
    // Managed resources: one per live claim, none else.
    const resources = (await get(engines[e].concretePath)).items as any[];
    const perClaim = new Map<string, number>();
    for (const res of resources) {
      const claim = res.spec?.claimRef?.name as string | undefined;
      if (!claim || !live.has(claim)) {
        problems.push(`${engines[e].concreteKind} ${res.metadata.name} belongs to no live claim (claimRef ${claim ?? 'none'})`);
        continue;
      }
      perClaim.set(claim, (perClaim.get(claim) ?? 0) + 1);
    }
    for (const [name, engine] of live) {
      if (engine !== e) continue;
      const n = perClaim.get(name) ?? 0;
      if (n !== 1) problems.push(`claim ${name} has ${n} managed resources`);
    }
    // Directories and processes: one directory and one server per managed resource.
    const dirs = instanceDirs(roots[e]);
    if (dirs.length !== resources.length)
      problems.push(`${engines[e].concreteKind}: ${dirs.length} instance directories (${dirs.join(', ')}) for ${resources.length} resources`);
    for (const dir of dirs) {
      const servers = processesIn(join(roots[e], dir)).filter((p) => engines[e].isServer(p.argv0));
      if (servers.length !== 1) problems.push(`${engines[e].concreteKind} directory ${dir}: ${servers.length} server processes`);
    }
    const strays = processesIn(roots[e]).filter((p) => !dirs.some((d) => existsSync(join(roots[e], d))) && engines[e].isServer(p.argv0));
    if (dirs.length === 0 && strays.length > 0) problems.push(`${engines[e].concreteKind}: ${strays.length} server processes without a directory`);
  }
  if (problems.length > 0 || !logins) return problems;
  // Secrets: a real login for every live claim.
  for (const [name, engine] of live) {
    try {
      const s = await get(`/api/v1/namespaces/${NS}/secrets/${name}`);
      const d = Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
      await engines[engine].login(d);
    } catch (err) {
      problems.push(`claim ${name}: the connection Secret does not log in: ${(err as Error).message}`);
    }
  }
  return problems;
}

/** settle waits until `check` finds nothing (logins last), or returns what it found last. */
async function settle(r: Running, dataDir: string, live: Map<string, EngineName>, timeoutMs: number): Promise<{ failures: string[]; ms: number }> {
  const begun = Date.now();
  let last: string[] = [];
  while (Date.now() - begun < timeoutMs) {
    try {
      last = await check(r, dataDir, live, true);
    } catch (err) {
      last = [`cannot check: ${(err as Error).message}`];
    }
    if (last.length === 0) return { failures: [], ms: Date.now() - begun };
    await sleep(500);
  }
  return { failures: last, ms: Date.now() - begun };
}

/** runChaos runs the campaign; see the file comment. */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const random = prng(seed);
  const windows = options.windows ?? (['random', ...crashWindows] as const);
  const maxDelay = options.maxRandomDelayMs ?? 8_000;
  const recoveryTimeout = options.recoveryTimeoutMs ?? 180_000;
  const log = options.log ?? (() => {});
  const begun = Date.now();
  const dataDir = tempDir('conductor-chaos-');
  const kills: ChaosKill[] = [];
  const live = new Map<string, EngineName>();
  let finalFailures: string[];
  let r: Running | undefined;
  try {
    r = await start(dataDir);
    await kubectlOk(r.server, ['apply', '-f', '-'], { input: setupYaml, timeoutMs: 60_000 });
    await kill(r);
    r = undefined;
    for (let round = 1; round <= options.kills; round++) {
      const window = options.cycle ? windows[(round - 1) % windows.length] : windows[Math.floor(random() * windows.length)];
      const engine = engineNames[(round - 1) % engineNames.length];
      const name = `${engine}-${round}`;
      // Delete the oldest claim once `keep` live, so every round provisions and most delete.
      const victim = live.size >= (options.keep ?? 2) ? [...live.keys()][0] : undefined;
      const victimPlural = victim ? engines[live.get(victim)!].claimPlural : '';
      r = await start(dataDir, window === 'random' ? undefined : window);
      const startedAt = Date.now();
      const delay = 200 + random() * maxDelay;
      const actions = (async () => {
        await kubectlOk(r.server, ['apply', '-f', '-'], { input: claimYaml(engine, name) });
        if (victim) await kubectlOk(r.server, ['delete', victimPlural, victim, '-n', NS, '--wait=false']);
      })().catch(() => {}); // a kill may cut them off: the check after the restart decides
      live.set(name, engine);
      if (victim) live.delete(victim);
      let fired = false;
      if (window === 'random') {
        await Promise.race([r.exited, sleep(delay)]);
      } else {
        // Crash points fire when the work reaches them; give the work time to get there.
        fired = await Promise.race([r.exited.then(() => true), sleep(options.crashWaitMs ?? 20_000).then(() => false)]);
      }
      const killedAfterMs = Date.now() - startedAt;
      await kill(r);
      await actions;
      r = undefined;
      // The kill may have come before the API stored the new claim or the deletion: make them so now.
      r = await start(dataDir);
      await kubectlOk(r.server, ['apply', '-f', '-'], { input: claimYaml(engine, name) });
      if (victim) await kubectlOk(r.server, ['delete', victimPlural, victim, '-n', NS, '--wait=false', '--ignore-not-found']);
      const { failures, ms } = await settle(r, dataDir, live, recoveryTimeout);
      const k: ChaosKill = { round, window, fired: window === 'random' ? true : fired, killedAfterMs, recoveredAfterMs: ms, failures };
      kills.push(k);
      options.onKill?.(kills, seed);
      log(
        `kill ${round}/${options.kills}: ${window}${window !== 'random' && !fired ? ' (not reached: killed at a random moment)' : ''} after ${killedAfterMs} ms; ${failures.length === 0 ? `recovered in ${ms} ms` : `FAILED: ${failures.join('; ')}`}`,
      );
      await kill(r);
      r = undefined;
    }
    // The final delete: nothing may be left.
    r = await start(dataDir);
    for (const [name, engine] of live) await kubectlOk(r.server, ['delete', engines[engine].claimPlural, name, '-n', NS, '--wait=false']);
    live.clear();
    const { failures } = await settle(r, dataDir, live, recoveryTimeout);
    const roots = rootsFor(dataDir);
    for (const e of engineNames) {
      const procs = processesIn(roots[e]);
      if (procs.length > 0) failures.push(`${procs.length} processes left under ${roots[e]}`);
      if (instanceDirs(roots[e]).length > 0) failures.push(`instance directories left under ${roots[e]}: ${instanceDirs(roots[e]).join(', ')}`);
    }
    finalFailures = [...new Set(failures)];
    log(
      `final delete: ${finalFailures.length === 0 ? 'zero processes, zero data directories, zero managed resources' : `FAILED: ${finalFailures.join('; ')}`}`,
    );
    await r.server.stop();
    r.api.close();
    r = undefined;
  } finally {
    if (r) await kill(r);
    const roots = rootsFor(dataDir);
    for (const root of [...Object.values(roots), dataDir]) {
      for (const p of processesIn(root)) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    await sleep(200);
    for (const root of Object.values(roots)) if (root.startsWith('/var/tmp/')) removeDir(root);
    removeDir(dataDir);
  }
  return { kills, finalFailures, seed, durationMs: Date.now() - begun };
}

/** summarize counts kills and failures by window, for the table and the JSON. */
export function summarize(result: ChaosResult): { window: string; kills: number; failures: number }[] {
  const rows = new Map<string, { kills: number; failures: number }>();
  for (const k of result.kills) {
    const key = k.window === 'random' || k.fired ? k.window : `${k.window} (not reached)`;
    const row = rows.get(key) ?? { kills: 0, failures: 0 };
    row.kills++;
    if (k.failures.length > 0) row.failures++;
    rows.set(key, row);
  }
  return [...rows.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([window, row]) => ({ window, ...row }));
}
