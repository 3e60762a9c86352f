/**
 * Claim binding end to end, against a fresh server process of its own: the control plane
 * (claim controller, scheduler, managed reconciler, connection Secrets) with `MemoryDatabase`
 * as the infrastructure, so only Conductor is measured.
 *
 * 1. register — `claimResources` static MemoryDatabases (Exclusive, no profile), 16 in flight;
 *    wait until the managed reconciler reports every one Ready and Available (watched).
 * 2. burst — `claims` PostgreSQLInstance claims created as fast as the API takes them (16 in
 *    flight); the figure is the time from the first create sent until every claim was seen
 *    Bound (status.phase, watched) and its connection Secret was seen created (watched).
 * 3. steady — `claimRatePerSec × claimRateSeconds` more MemoryDatabases are registered first
 *    (unmeasured); then claims are created at that steady rate, each one's latency being
 *    "create sent → status.phase Bound seen on the watch" (both on this process's clock).
 *    It runs on the same server, or on a second fresh one when the burst ran out of time
 *    with claims still unbound (they would keep the controllers busy).
 *
 * Every phase also records the server's CPU, the store revisions it made (every write by any
 * client or controller, so writes per claim) and the warnings the server logged; after each
 * phase the server's RSS and peak RSS are read (the burst's are figures: the memory of 10,000
 * claims bound to 10,000 resources).
 *
 * The Kubernetes PV binder is the reference: ~27 s for 2,000 claims, ~240 s for 10,000.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { cpuMeter, type CpuUsage, type ScenarioResult } from '../context.js';
import { BenchClient, type WatchStream } from '../http-client.js';
import { runClosedLoop } from '../load.js';
import type { BenchSizes } from '../options.js';
import { mb, readMemory } from '../proc.js';
import type { Metric } from '../report.js';
import { startServerProcess, type BenchStore, type ServerProcess } from '../server-process.js';
import { round, roundSummary, summarize } from '../stats.js';

/** Where the administrators' MemoryDatabases go. */
export const RESOURCE_NAMESPACE = 'conductor-system';
/** The namespaces the two measured phases create claims in. */
export const BURST_NAMESPACE = 'bench-claims-burst';
export const STEADY_NAMESPACE = 'bench-claims-steady';

/** The Secret type the claim controller gives connection Secrets. */
const CONNECTION_SECRET_TYPE = 'connection.conductor.io/v1alpha1';

export function memoryDatabasesPath(namespace: string): string {
  return `/apis/database.memory.conductor.io/v1alpha1/namespaces/${namespace}/memorydatabases`;
}
export function claimsPath(namespace: string): string {
  return `/apis/storage.conductor.io/v1alpha1/namespaces/${namespace}/postgresqlinstances`;
}
export function secretsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/secrets`;
}

/** The body of the i-th static MemoryDatabase of a batch. */
export function memoryDatabaseJson(batch: string, i: number): string {
  return JSON.stringify({
    apiVersion: 'database.memory.conductor.io/v1alpha1',
    kind: 'MemoryDatabase',
    metadata: { name: `${batch}-${String(i).padStart(6, '0')}`, namespace: RESOURCE_NAMESPACE, labels: { 'bench.conductor.io/batch': batch } },
    spec: { version: '16.4', sharing: { mode: 'Exclusive' }, rebindPolicy: 'Retain' },
  });
}

/** claimName names the i-th claim of a phase. */
export function claimName(i: number): string {
  return `claim-${String(i).padStart(6, '0')}`;
}

/** The body of a claim: any PostgreSQL 15 or later. */
export function claimJson(namespace: string, name: string): string {
  return JSON.stringify({
    apiVersion: 'storage.conductor.io/v1alpha1',
    kind: 'PostgreSQLInstance',
    metadata: { name, namespace },
    spec: { version: '>= 15' },
  });
}

/** A WatchedObject is the part of a watched object the benchmark reads. */
export interface WatchedObject {
  type?: string;
  metadata?: { name?: string; resourceVersion?: string };
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

/** A WatchEvent is one line of a watch stream. */
export interface WatchEvent {
  type?: string;
  object?: WatchedObject & { code?: number; message?: string };
}

export function isReady(o: WatchedObject): boolean {
  return (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * A Milestones records, per name, the first time (performance.now()) an object reached a
 * milestone on a watch, and when the last of an expected set was reached.
 */
export class Milestones {
  private readonly at = new Map<string, number>();
  /** When the count reached `expected`, if it did. */
  completedAt: number | undefined;

  constructor(
    /** How many names complete the set; 0 means no set is expected yet. */
    public expected = 0,
    /** Only names this accepts are counted; default all. */
    private readonly accepts: (name: string) => boolean = () => true,
  ) {}

  /** reach records `name` at `now` unless it was recorded before or is not accepted; it returns whether it was new. */
  reach(name: string, now: number): boolean {
    if (this.at.has(name) || !this.accepts(name)) return false;
    this.at.set(name, now);
    if (this.expected > 0 && this.at.size >= this.expected && this.completedAt === undefined) this.completedAt = now;
    return true;
  }

  /**
   * expect sets how many names complete the set; when that many were reached already, the
   * set completed when the last of them was.
   */
  expect(n: number): void {
    this.expected = n;
    if (this.completedAt !== undefined || n <= 0 || this.at.size < n) return;
    let last = -Infinity;
    for (const t of this.at.values()) if (t > last) last = t;
    this.completedAt = last;
  }

  get count(): number {
    return this.at.size;
  }

  timeOf(name: string): number | undefined {
    return this.at.get(name);
  }
}

/**
 * ClaimEvents turns watch events of claims and Secrets into milestones: a claim is Bound the
 * first time an event shows `status.phase: Bound`, Ready when its Ready condition is True; its
 * Secret is present when a connection Secret of its name is added.
 */
export class ClaimEvents {
  readonly bound: Milestones;
  readonly ready: Milestones;
  readonly secrets: Milestones;
  unexpected = 0;
  errors: string[] = [];

  constructor(expected: number, accepts: (name: string) => boolean = () => true) {
    this.bound = new Milestones(expected, accepts);
    this.ready = new Milestones(expected, accepts);
    this.secrets = new Milestones(expected, accepts);
  }

  /** expect sets how many claims complete each set (see Milestones.expect). */
  expect(n: number): void {
    this.bound.expect(n);
    this.ready.expect(n);
    this.secrets.expect(n);
  }

  /** onClaim handles one line of the claims watch. */
  onClaim(ev: WatchEvent, now: number): void {
    if (!this.check(ev)) return;
    const o = ev.object!;
    const name = o.metadata?.name;
    if (name === undefined) return;
    if (o.status?.phase === 'Bound') this.bound.reach(name, now);
    if (isReady(o)) this.ready.reach(name, now);
  }

  /** onSecret handles one line of the Secrets watch. */
  onSecret(ev: WatchEvent, now: number): void {
    if (!this.check(ev)) return;
    const o = ev.object as WatchedObject & { type?: string };
    if (ev.type !== 'ADDED' || o.type !== CONNECTION_SECRET_TYPE || o.metadata?.name === undefined) return;
    this.secrets.reach(o.metadata.name, now);
  }

  /** done says whether every expected claim is Bound and has its Secret. */
  done(): boolean {
    return this.bound.completedAt !== undefined && this.secrets.completedAt !== undefined;
  }

  /** doneAt is when the last of the two sets completed. */
  doneAt(): number | undefined {
    if (!this.done()) return undefined;
    return Math.max(this.bound.completedAt!, this.secrets.completedAt!);
  }

  private check(ev: WatchEvent): boolean {
    if (ev.type === 'BOOKMARK') return false;
    if (ev.type === 'ERROR' || ev.object === undefined) {
      this.unexpected++;
      if (this.errors.length < 5) this.errors.push(JSON.stringify(ev).slice(0, 300));
      return false;
    }
    return ev.type === 'ADDED' || ev.type === 'MODIFIED';
  }
}

/**
 * A ResumingWatch keeps a watch open from a resourceVersion: when the server ends the stream
 * it reopens it from the last resourceVersion seen (bookmarks included), so no event is lost.
 */
export class ResumingWatch {
  private stream: WatchStream | undefined;
  private closed = false;
  private rv: string;
  reconnects = 0;
  private readonly loop: Promise<void>;
  private opened!: () => void;
  private failed!: (err: unknown) => void;
  /** Resolves once the first stream is open. */
  readonly ready: Promise<void>;

  constructor(
    private readonly client: BenchClient,
    private readonly path: string,
    fromRv: string,
    private readonly onEvent: (ev: WatchEvent, now: number) => void,
  ) {
    this.rv = fromRv;
    this.ready = new Promise<void>((resolve, reject) => {
      this.opened = resolve;
      this.failed = reject;
    });
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    let first = true;
    while (!this.closed) {
      try {
        this.stream = await this.client.watch(`${this.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.rv}`, (line) => this.line(line));
      } catch (err) {
        if (first) {
          this.failed(err);
          return;
        }
        await sleep(100);
        continue;
      }
      if (first) this.opened();
      first = false;
      await this.stream.ended;
      if (!this.closed) this.reconnects++;
    }
  }

  private line(line: string): void {
    const now = performance.now();
    let ev: WatchEvent;
    try {
      ev = JSON.parse(line) as WatchEvent;
    } catch {
      this.onEvent({ type: 'ERROR', object: { message: `unparsable line: ${line.slice(0, 100)}` } }, now);
      return;
    }
    const rv = ev.object?.metadata?.resourceVersion;
    if (rv && ev.type !== 'ERROR') this.rv = rv;
    this.onEvent(ev, now);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stream?.close();
    await this.loop;
  }
}

export async function currentRv(client: BenchClient, path: string): Promise<string> {
  return (await client.json<{ metadata: { resourceVersion: string } }>('GET', `${path}?limit=1`)).value.metadata.resourceVersion;
}

/** A LogWarning is a kind of warning the server logged, with how often. */
export interface LogWarning {
  message: string;
  count: number;
}

/**
 * countWarnings groups the server log's warnings and errors (pino JSON lines of level 40 and
 * up) by message and error, with quoted names blanked so repeats of one failure on different
 * objects count together; the most frequent first, at most `top`.
 */
export function countWarnings(text: string, top = 8): LogWarning[] {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: { level?: number; msg?: string; err?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if ((entry.level ?? 0) < 40) continue;
    const err = typeof entry.err === 'string' ? entry.err : entry.err === undefined ? '' : JSON.stringify(entry.err);
    const key = `${entry.msg ?? ''}${err ? `: ${err.replace(/"[^"]*"/g, '"…"').slice(0, 200)}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([message, count]) => ({ message, count }));
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function readFrom(path: string, offset: number): string {
  const size = fileSize(path);
  if (size <= offset) return '';
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** PhaseFigures are what every phase records besides its own figures. */
export interface PhaseFigures {
  cpu: CpuUsage;
  /** Store revisions the phase made: every write to the server, from any client or controller. */
  writes: number | null;
  /** What the server logged at warn and above during the phase. */
  warnings: LogWarning[];
}

/** phaseProbe starts measuring a phase: CPU, the store revision and the server log's length. */
export async function phaseProbe(client: BenchClient, server: ServerProcess): Promise<() => Promise<PhaseFigures>> {
  const rv0 = Number(await currentRv(client, '/api/v1/namespaces'));
  const logAt = fileSize(server.logPath);
  const meter = cpuMeter(server.pid, server.etcd?.pid);
  return async () => {
    const cpu = meter();
    const rv1 = Number(await currentRv(client, '/api/v1/namespaces'));
    return {
      cpu,
      writes: Number.isFinite(rv0) && Number.isFinite(rv1) ? rv1 - rv0 : null,
      warnings: countWarnings(readFrom(server.logPath, logAt)),
    };
  };
}

export async function ensureNamespace(client: BenchClient, name: string): Promise<void> {
  const res = await client.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  if (res.status !== 201 && res.status !== 409)
    throw new Error(`cannot create namespace ${name}: HTTP ${res.status}, expected 201: ${res.body.toString('utf8').slice(0, 300)}`);
}

export async function waitFor(done: () => boolean, deadlineMs: number): Promise<boolean> {
  const deadline = performance.now() + deadlineMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

export async function createOk(client: BenchClient, path: string, body: string): Promise<string | undefined> {
  const res = await client.request('POST', path, body);
  return res.status === 201 ? undefined : `HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`;
}

interface RegisterResult extends PhaseFigures {
  requested: number;
  created: number;
  ready: number;
  createMs: number;
  readyMs: number;
  errorSamples: { message: string; count: number }[];
  /** Store revisions per registered resource (the reconciler's writes and Events included). */
  writesPerResource: number | null;
}

/**
 * register creates `count` MemoryDatabases of a batch (16 in flight) and waits until the
 * managed reconciler has made every one Ready and Available, as seen on a watch.
 */
async function register(
  client: BenchClient,
  server: ServerProcess,
  batch: string,
  count: number,
  concurrency: number,
  log: (m: string) => void,
): Promise<RegisterResult> {
  const path = memoryDatabasesPath(RESOURCE_NAMESPACE);
  const prefix = `${batch}-`;
  const available = new Milestones(count, (name) => name.startsWith(prefix));
  const watch = new ResumingWatch(client, path, await currentRv(client, path), (ev, now) => {
    const o = ev.object;
    if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && o?.metadata?.name && o.status?.phase === 'Available' && isReady(o))
      available.reach(o.metadata.name, now);
  });
  try {
    await watch.ready;
    log(`registering ${count} MemoryDatabases (${batch}), ${concurrency} in flight`);
    const probe = await phaseProbe(client, server);
    const start = performance.now();
    const r = await runClosedLoop((i) => createOk(client, path, memoryDatabaseJson(batch, i)), { total: count, concurrency, deadlineMs: 300_000 });
    const createMs = performance.now() - start;
    const expected = r.ok;
    available.expect(expected);
    const progress = setInterval(() => log(`  ${available.count}/${expected} MemoryDatabases Ready`), 10_000);
    await waitFor(() => available.count >= expected, 600_000);
    clearInterval(progress);
    const figures = await probe();
    return {
      requested: count,
      created: r.ok,
      ready: available.count,
      createMs: round(createMs, 1),
      readyMs: round((available.completedAt ?? performance.now()) - start, 1),
      errorSamples: r.errorSamples,
      writesPerResource: figures.writes === null || r.ok === 0 ? null : round(figures.writes / r.ok, 2),
      ...figures,
    };
  } finally {
    await watch.close();
  }
}

/** The watches of one measured phase: its claims and its Secrets. */
async function watchClaims(client: BenchClient, namespace: string, events: ClaimEvents): Promise<ResumingWatch[]> {
  const rv = await currentRv(client, claimsPath(namespace));
  const watches = [
    new ResumingWatch(client, claimsPath(namespace), rv, (ev, now) => events.onClaim(ev, now)),
    new ResumingWatch(client, secretsPath(namespace), rv, (ev, now) => events.onSecret(ev, now)),
  ];
  await Promise.all(watches.map((w) => w.ready));
  return watches;
}

export interface ClaimsBenchOptions {
  sizes: BenchSizes;
  /** Where the server's data directory and log go. */
  tmpRoot: string;
  logLevel: string;
  /** Extra node flags for the server (e.g. --cpu-prof). */
  nodeArgs: string[];
  /** The store of the server (default SQLite). */
  store?: BenchStore;
  log: (message: string) => void;
}

/** A RunningBenchServer is a started server with a client for it. */
interface RunningBenchServer {
  server: ServerProcess;
  client: BenchClient;
  stop(): Promise<void>;
}

async function startBenchServer(o: ClaimsBenchOptions, name: string): Promise<RunningBenchServer> {
  const server = await startServerProcess({
    dataDir: join(o.tmpRoot, `${name}-data`),
    logPath: join(o.tmpRoot, `${name}.log`),
    logLevel: o.logLevel,
    nodeArgs: o.nodeArgs,
    store: o.store,
  });
  o.log(`${name} ${server.pid} ready on ${server.url} in ${round(server.readyMs, 0)} ms (log: ${server.logPath})`);
  const client = new BenchClient(server.endpoint, { maxSockets: o.sizes.concurrency });
  try {
    await ensureNamespace(client, BURST_NAMESPACE);
    await ensureNamespace(client, STEADY_NAMESPACE);
  } catch (err) {
    client.close();
    await server.stop();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    server,
    client,
    stop() {
      stopping ??= (async () => {
        client.close();
        const how = await server.stop(30_000);
        if (how !== '0') o.log(`${name} exited with ${how}`);
      })();
      return stopping;
    },
  };
}

function describeServer(s: RunningBenchServer, nodeArgs: string[]) {
  return { pid: s.server.pid, url: s.server.url, readyMs: round(s.server.readyMs, 1), logPath: s.server.logPath, nodeArgs };
}

/**
 * benchClaims starts its own server, registers the burst's resources, runs the burst, then
 * the steady phase on the same server — or, when the burst left claims unbound (they would
 * keep the controllers busy), on a second fresh server — and stops what it started.
 */
export async function benchClaims(o: ClaimsBenchOptions): Promise<ScenarioResult> {
  const { sizes, log } = o;
  const memory: Record<string, { rssMB: number; hwmMB: number }> = {};
  const sample = (s: RunningBenchServer, after: string) => {
    const m = readMemory(s.server.pid);
    memory[after] = { rssMB: mb(m.rssBytes), hwmMB: mb(m.hwmBytes) };
  };
  const first = await startBenchServer(o, 'claims-server');
  let second: RunningBenchServer | undefined;
  try {
    // 1. Static resources for the burst.
    const registered = await register(first.client, first.server, 'mdb-burst', sizes.claimResources, sizes.concurrency, log);
    sample(first, 'register');
    log(
      `${registered.ready}/${registered.requested} MemoryDatabases Ready in ${(registered.readyMs / 1000).toFixed(1)} s (creates took ${(registered.createMs / 1000).toFixed(1)} s)`,
    );
    if (registered.ready < registered.requested)
      throw new Error(`only ${registered.ready} of ${registered.requested} MemoryDatabases became Ready; errors: ${JSON.stringify(registered.errorSamples)}`);

    // 2. The burst.
    const burst = await runBurst(first.client, first.server, sizes, log);
    sample(first, 'burst');

    // 3. The steady rate, on resources registered for it.
    const backlog = burst.details.created - burst.details.bound;
    let steadyOn = first;
    if (backlog > 0) {
      log(`${backlog} burst claims are still unbound and would keep the controllers busy: the steady phase gets a fresh server`);
      await first.stop();
      second = await startBenchServer(o, 'claims-steady-server');
      steadyOn = second;
    }
    const steadyCount = sizes.claimRatePerSec * sizes.claimRateSeconds;
    const moreRegistered = await register(steadyOn.client, steadyOn.server, 'mdb-steady', steadyCount, sizes.concurrency, log);
    if (moreRegistered.ready < moreRegistered.requested)
      throw new Error(`only ${moreRegistered.ready} of ${moreRegistered.requested} MemoryDatabases for the steady phase became Ready`);
    const steady = await runSteady(steadyOn.client, steadyOn.server, sizes, log);
    sample(steadyOn, 'steady');

    const n = sizes.claims.toLocaleString('en-US');
    const metrics: Metric[] = [
      {
        id: 'claims.register.rate',
        label: `MemoryDatabases Ready/s (${sizes.claimResources.toLocaleString('en-US')} registered, ${sizes.concurrency} in flight)`,
        value: round((registered.ready / registered.readyMs) * 1000, 0),
        unit: '/s',
      },
      {
        id: 'claims.burst.seconds',
        label: `${n} claims → Bound + Secret (${sizes.concurrency} in flight)`,
        value: burst.complete ? round(burst.totalMs / 1000, 2) : null,
        unit: 's',
      },
      // Over the whole wait even when it ran out: a rate of claims bound is meaningful either way.
      {
        id: 'claims.burst.rate',
        label: `claims bound/s (${n} claims, ${sizes.claimResources.toLocaleString('en-US')} resources)`,
        value: round(burst.ratePerSec, 0),
        unit: '/s',
      },
      // Memory with every claim bound: the server's RSS read the moment the last claim was seen
      // Bound with its Secret, and its peak (VmHWM) since it started (registration included).
      {
        id: 'claims.rss.bound',
        label: `server RSS, ${n} claims bound to ${sizes.claimResources.toLocaleString('en-US')} resources`,
        value: memory.burst?.rssMB ?? null,
        unit: 'MB',
      },
      { id: 'claims.rss.peak', label: `server peak RSS (VmHWM) up to then`, value: memory.burst?.hwmMB ?? null, unit: 'MB' },
      {
        id: 'claims.steady.p50',
        label: `claim → Bound p50 (${sizes.claimRatePerSec}/s for ${sizes.claimRateSeconds} s)`,
        value: round(steady.latency.p50, 1),
        unit: 'ms',
      },
      {
        id: 'claims.steady.p99',
        label: `claim → Bound p99 (${sizes.claimRatePerSec}/s for ${sizes.claimRateSeconds} s)`,
        value: steady.complete ? round(steady.latency.p99, 1) : null,
        unit: 'ms',
      },
      {
        id: 'claims.steady.max',
        label: `claim → Bound max (${sizes.claimRatePerSec}/s for ${sizes.claimRateSeconds} s)`,
        value: round(steady.latency.max, 1),
        unit: 'ms',
      },
    ];
    return {
      metrics,
      details: {
        server: describeServer(first, o.nodeArgs),
        register: registered,
        burst: burst.details,
        // Where the steady phase ran: after the burst on the same server, or on a fresh one.
        steadyServer: second ? { ...describeServer(second, o.nodeArgs), why: `the burst left ${backlog} claims unbound` } : 'same',
        registerSteady: moreRegistered,
        steady: steady.details,
        memory,
        // The burst's interval, so `profile-summary.js --results … --phase claims` cuts a profile to it;
        // register.cpu.window and steady.cpu.window work with --from/--to.
        cpu: burst.details.cpu,
      },
    };
  } finally {
    await first.stop();
    await second?.stop();
  }
}

async function runBurst(client: BenchClient, server: ServerProcess, sizes: BenchSizes, log: (m: string) => void) {
  const ns = BURST_NAMESPACE;
  const total = sizes.claims;
  const names = Array.from({ length: total }, (_, i) => claimName(i));
  const wanted = new Set(names);
  const events = new ClaimEvents(total, (name) => wanted.has(name));
  const watches = await watchClaims(client, ns, events);
  try {
    log(`creating ${total} claims in ${ns}, ${sizes.concurrency} in flight; waiting for every one Bound with its Secret`);
    const probe = await phaseProbe(client, server);
    const start = performance.now();
    const r = await runClosedLoop((i) => createOk(client, claimsPath(ns), claimJson(ns, names[i])), {
      total,
      concurrency: sizes.concurrency,
      deadlineMs: 240_000,
    });
    const createdAt = performance.now();
    events.expect(r.ok);
    log(`  ${r.ok} claims created in ${((createdAt - start) / 1000).toFixed(2)} s (${Math.round(r.ratePerSec)}/s); ${events.bound.count} Bound so far`);
    const progress = setInterval(() => log(`  ${events.bound.count} Bound, ${events.secrets.count} Secrets, ${events.ready.count} Ready`), 5_000);
    await waitFor(() => events.done(), 300_000);
    clearInterval(progress);
    const figures = await probe();
    const doneAt = events.doneAt();
    const complete = doneAt !== undefined && r.errors === 0;
    const totalMs = (doneAt ?? performance.now()) - start;
    log(`  ${complete ? 'all' : 'NOT all'} ${events.bound.count}/${total} Bound and ${events.secrets.count} Secrets after ${(totalMs / 1000).toFixed(2)} s`);
    const boundMs = events.bound.completedAt !== undefined ? events.bound.completedAt - start : null;
    const secretsMs = events.secrets.completedAt !== undefined ? events.secrets.completedAt - start : null;
    return {
      complete,
      totalMs,
      ratePerSec: (events.bound.count / totalMs) * 1000,
      details: {
        claims: total,
        resources: sizes.claimResources,
        created: r.ok,
        createErrors: r.errors,
        createErrorSamples: r.errorSamples,
        createMs: round(createdAt - start, 1),
        createRatePerSec: round(r.ratePerSec, 1),
        createLatencyMs: roundSummary(summarize(r.latenciesMs)),
        bound: events.bound.count,
        secrets: events.secrets.count,
        ready: events.ready.count,
        allBoundMs: boundMs === null ? null : round(boundMs, 1),
        allSecretsMs: secretsMs === null ? null : round(secretsMs, 1),
        allReadyMs: events.ready.completedAt !== undefined ? round(events.ready.completedAt - start, 1) : null,
        totalMs: round(totalMs, 1),
        boundPerSec: round((events.bound.count / totalMs) * 1000, 1),
        unexpectedEvents: events.unexpected,
        eventErrors: events.errors,
        watchReconnects: watches.reduce((n, w) => n + w.reconnects, 0),
        writesPerClaim: figures.writes === null || r.ok === 0 ? null : round(figures.writes / r.ok, 2),
        ...figures,
      },
    };
  } finally {
    await Promise.all(watches.map((w) => w.close()));
  }
}

async function runSteady(client: BenchClient, server: ServerProcess, sizes: BenchSizes, log: (m: string) => void) {
  const ns = STEADY_NAMESPACE;
  const total = sizes.claimRatePerSec * sizes.claimRateSeconds;
  const names = Array.from({ length: total }, (_, i) => claimName(i));
  const wanted = new Set(names);
  const events = new ClaimEvents(total, (name) => wanted.has(name));
  const watches = await watchClaims(client, ns, events);
  try {
    log(`creating ${total} claims in ${ns} at ${sizes.claimRatePerSec}/s`);
    const sentAt = new Float64Array(total);
    const createLatencies: number[] = [];
    const createErrors: string[] = [];
    const inFlight: Promise<void>[] = [];
    const intervalMs = 1000 / sizes.claimRatePerSec;
    let lateSends = 0;
    const probe = await phaseProbe(client, server);
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      else if (wait < -intervalMs) lateSends++;
      const sent = performance.now();
      sentAt[i] = sent;
      inFlight.push(
        createOk(client, claimsPath(ns), claimJson(ns, names[i])).then(
          (err) => {
            if (err === undefined) createLatencies.push(performance.now() - sent);
            else createErrors.push(err);
          },
          (err: unknown) => {
            createErrors.push(err instanceof Error ? err.message : String(err));
          },
        ),
      );
    }
    await Promise.all(inFlight);
    const writeMs = performance.now() - start;
    const expected = total - createErrors.length;
    events.expect(expected);
    await waitFor(() => events.done(), 60_000);
    const figures = await probe();
    const bindLatencies: number[] = [];
    const secretLatencies: number[] = [];
    for (let i = 0; i < total; i++) {
      const b = events.bound.timeOf(names[i]);
      if (b !== undefined) bindLatencies.push(b - sentAt[i]);
      const s = events.secrets.timeOf(names[i]);
      if (s !== undefined) secretLatencies.push(s - sentAt[i]);
    }
    const latency = summarize(bindLatencies);
    const complete = events.bound.count >= total && createErrors.length === 0;
    log(
      `  ${events.bound.count}/${total} Bound; claim → Bound p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`,
    );
    return {
      complete,
      latency,
      details: {
        claims: total,
        ratePerSec: sizes.claimRatePerSec,
        seconds: sizes.claimRateSeconds,
        writeMs: round(writeMs, 1),
        lateSends,
        createErrors: createErrors.length,
        createErrorSamples: createErrors.slice(0, 5),
        createLatencyMs: roundSummary(summarize(createLatencies)),
        bound: events.bound.count,
        secrets: events.secrets.count,
        bindLatencyMs: roundSummary(latency),
        secretLatencyMs: roundSummary(summarize(secretLatencies)),
        unexpectedEvents: events.unexpected,
        eventErrors: events.errors,
        watchReconnects: watches.reduce((n, w) => n + w.reconnects, 0),
        writesPerClaim: figures.writes === null || expected === 0 ? null : round(figures.writes / expected, 2),
        ...figures,
      },
    };
  } finally {
    await Promise.all(watches.map((w) => w.close()));
  }
}
