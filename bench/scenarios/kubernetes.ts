/**
 * Claims satisfied through `KubernetesObject`s in a target cluster (issue 12), against two
 * fresh server processes of its own: the control plane (claim controller, scheduler, the
 * managed reconciler with the kubernetes provider) and the *target* — a second `conductor
 * server` with its own data directory, CA and token, reached over HTTPS like any cluster.
 *
 * 1. setup (unmeasured) — in the target, a CRD `BenchDatabase` (bench.conductor.io/v1, with
 *    a status subresource); in the control plane, the Provider `bench-target` of type
 *    kubernetes (a Secret with the target's endpoint, CA and token), waited for until Ready,
 *    and a ResourceClass for PostgreSQLInstance whose template is a KubernetesObject keeping a
 *    BenchDatabase per claim (readiness by its Ready condition; connection details from fields
 *    of its status).
 * 2. the "operator" — this process, like an operator in the target: it watches BenchDatabases
 *    there and writes each one's status (host, port, username, password, condition
 *    Ready=True) through the status subresource, at most `concurrency` writes in flight.
 * 3. burst — `kubernetesClaims` PostgreSQLInstance claims created as fast as the API takes
 *    them (`concurrency` in flight). Figures, from the first create sent: every claim seen
 *    `Bound` (watched) → claims bound/s; every BenchDatabase in the target made Ready by the
 *    operator; every KubernetesObject seen Ready in the control plane (the provider observed
 *    its target object Ready) → objects Ready/s; every claim's connection Secret seen created.
 *
 * With `--store etcd` both servers keep their objects in a local etcd each. Both servers' CPU is recorded (`cpu.serverCores` the control plane, `cpu.targetCores` the
 * target); `otherCores` is load that is neither of them nor this process.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMeter, type ScenarioResult } from '../context.js';
import { BenchClient, type Endpoint } from '../http-client.js';
import { runClosedLoop } from '../load.js';
import type { BenchSizes } from '../options.js';
import { mb, readMemory } from '../proc.js';
import type { Metric } from '../report.js';
import { startServerProcess, type BenchStore, type ServerProcess } from '../server-process.js';
import { round, roundSummary, summarize } from '../stats.js';
import {
  ClaimEvents,
  Milestones,
  ResumingWatch,
  claimName,
  claimsPath,
  countWarnings,
  createOk,
  currentRv,
  ensureNamespace,
  isReady,
  secretsPath,
  waitFor,
  type WatchEvent,
  type WatchedObject,
} from './claims.js';

/** Where the Provider, its Secret and the class live in the control plane. */
export const SYSTEM_NAMESPACE = 'conductor-system';
/** The namespace the claims are created in. */
export const CLAIM_NAMESPACE = 'bench-kubernetes';
/** The namespace of the BenchDatabases in the target. */
export const TARGET_NAMESPACE = 'default';
export const PROVIDER_NAME = 'bench-target';
export const CLASS_NAME = 'bench-target-databases';

/** The custom resource the target serves, standing for an operator's database. */
export const TARGET_KIND = { group: 'bench.conductor.io', version: 'v1', kind: 'BenchDatabase', plural: 'benchdatabases' } as const;

export const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
export const KUBERNETES_OBJECTS_PATH = '/apis/kubernetes.conductor.io/v1alpha1/kubernetesobjects';

export function targetObjectsPath(namespace: string): string {
  return `/apis/${TARGET_KIND.group}/${TARGET_KIND.version}/namespaces/${namespace}/${TARGET_KIND.plural}`;
}

/** The CRD of the target's BenchDatabase: any spec and status, with a status subresource. */
export function targetCrdJson(): string {
  const anyObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${TARGET_KIND.plural}.${TARGET_KIND.group}` },
    spec: {
      group: TARGET_KIND.group,
      scope: 'Namespaced',
      names: { kind: TARGET_KIND.kind, plural: TARGET_KIND.plural, singular: TARGET_KIND.kind.toLowerCase(), listKind: `${TARGET_KIND.kind}List` },
      versions: [
        {
          name: TARGET_KIND.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: anyObject, status: anyObject } } },
        },
      ],
    },
  });
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** The credentials Secret of the Provider: the target's endpoint, CA and token. */
export function providerSecretJson(target: Endpoint): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: PROVIDER_NAME, namespace: SYSTEM_NAMESPACE },
    type: 'Opaque',
    data: { endpoint: b64(`https://${target.host}:${target.port}`), clusterCA: b64(target.ca), token: b64(target.token) },
  });
}

/** The Provider of type kubernetes for the target. */
export function providerJson(): string {
  return JSON.stringify({
    apiVersion: 'core.conductor.io/v1alpha1',
    kind: 'Provider',
    metadata: { name: PROVIDER_NAME, namespace: SYSTEM_NAMESPACE },
    spec: { type: 'kubernetes', credentialsSecretRef: { name: PROVIDER_NAME } },
  });
}

/**
 * The class: PostgreSQLInstance claims become BenchDatabases in the target, Ready by their
 * condition, with the claim kind's keys taken from fields the operator writes.
 */
export function classJson(): string {
  return JSON.stringify({
    apiVersion: 'core.conductor.io/v1alpha1',
    kind: 'ResourceClass',
    metadata: { name: CLASS_NAME, namespace: SYSTEM_NAMESPACE },
    supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
    rebindPolicy: 'Delete',
    providerRef: { name: PROVIDER_NAME },
    template: {
      apiVersion: 'kubernetes.conductor.io/v1alpha1',
      kind: 'KubernetesObject',
      spec: {
        forProvider: {
          manifest: {
            apiVersion: `${TARGET_KIND.group}/${TARGET_KIND.version}`,
            kind: TARGET_KIND.kind,
            // No metadata.name: each object is named after its claim.
            metadata: { namespace: TARGET_NAMESPACE },
            spec: { database: '$(claim.name)', version: '$(claim.spec.version)' },
          },
          readiness: { type: 'Conditions' },
          connectionDetails: [
            { fromField: '.status.host', toKey: 'host' },
            { fromField: '.status.port', toKey: 'port' },
            { fromField: '.status.username', toKey: 'username' },
            { fromField: '.status.password', toKey: 'password' },
            { fromField: '.spec.database', toKey: 'database' },
          ],
        },
      },
    },
  });
}

/** The body of a claim: a PostgreSQLInstance naming the bench's class. */
export function kubernetesClaimJson(namespace: string, name: string): string {
  return JSON.stringify({
    apiVersion: 'storage.conductor.io/v1alpha1',
    kind: 'PostgreSQLInstance',
    metadata: { name, namespace },
    spec: { resourceClass: CLASS_NAME, version: '>= 15' },
  });
}

/** A TargetObject is the part of a watched BenchDatabase the operator reads and writes back. */
export interface TargetObject extends WatchedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: WatchedObject['metadata'] & { namespace?: string; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: WatchedObject['status'] & Record<string, unknown>;
}

/** operatorStatus is the status the operator writes on a BenchDatabase: where it is served, and Ready. */
export function operatorStatus(now: Date, password: string): Record<string, unknown> {
  return {
    host: '127.0.0.1',
    port: '5432',
    username: 'app',
    password,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'served by the bench operator', lastTransitionTime: now.toISOString() }],
  };
}

/** needsStatus says whether the operator has yet to make an object Ready (and it is not being deleted). */
export function needsStatus(o: TargetObject): boolean {
  return o.metadata?.name !== undefined && o.metadata.deletionTimestamp === undefined && !isReady(o);
}

/**
 * A BenchOperator plays an operator in the target: every BenchDatabase the watch shows
 * without Ready=True gets its status written (PUT …/status, retried after a fresh GET on a
 * conflict), at most `concurrency` at once. `ready` records when each write succeeded.
 */
export class BenchOperator {
  readonly ready = new Milestones();
  private readonly queue: TargetObject[] = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  writes = 0;
  conflicts = 0;
  errors: string[] = [];
  private watch: ResumingWatch | undefined;

  constructor(
    private readonly client: BenchClient,
    private readonly namespace: string,
    private readonly concurrency: number,
  ) {}

  async start(): Promise<void> {
    const path = targetObjectsPath(this.namespace);
    this.watch = new ResumingWatch(this.client, path, await currentRv(this.client, path), (ev) => this.onEvent(ev));
    await this.watch.ready;
  }

  onEvent(ev: WatchEvent): void {
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
    const o = ev.object;
    if (!o || !needsStatus(o)) return;
    const name = o.metadata!.name!;
    if (this.queued.has(name) || this.ready.timeOf(name) !== undefined) return;
    this.queued.add(name);
    this.queue.push(o);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const o = this.queue.shift()!;
      this.running++;
      void this.makeReady(o).finally(() => {
        this.running--;
        this.queued.delete(o.metadata!.name!);
        this.pump();
        if (this.running === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
    }
  }

  private async makeReady(first: TargetObject): Promise<void> {
    const name = first.metadata!.name!;
    const path = `${targetObjectsPath(this.namespace)}/${name}/status`;
    let o = first;
    for (let attempt = 0; attempt < 5; attempt++) {
      const body = JSON.stringify({ ...o, status: { ...(o.status ?? {}), ...operatorStatus(new Date(), randomBytes(12).toString('hex')) } });
      const res = await this.client.request('PUT', path, body);
      this.writes++;
      if (res.status === 200 || res.status === 201) {
        this.ready.reach(name, performance.now());
        return;
      }
      if (res.status === 404) return; // deleted meanwhile
      if (res.status !== 409) {
        if (this.errors.length < 5) this.errors.push(`PUT ${name}/status: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
        return;
      }
      this.conflicts++;
      const fresh = await this.client.request('GET', `${targetObjectsPath(this.namespace)}/${name}`);
      if (fresh.status !== 200) return;
      o = JSON.parse(fresh.body.toString('utf8')) as TargetObject;
      if (!needsStatus(o)) {
        if (isReady(o)) this.ready.reach(name, performance.now());
        return;
      }
    }
    if (this.errors.length < 5) this.errors.push(`PUT ${name}/status: still conflicting after 5 attempts`);
  }

  async stop(): Promise<void> {
    await this.watch?.close();
    if (this.running > 0 || this.queue.length > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
  }
}

export interface KubernetesBenchOptions {
  sizes: BenchSizes;
  /** Where the servers' data directories and logs go. */
  tmpRoot: string;
  logLevel: string;
  /** Extra node flags for the control-plane server (e.g. --cpu-prof); the target gets none. */
  nodeArgs: string[];
  /** The store of both servers (default SQLite; `--store etcd` gives each a local etcd of its own). */
  store?: BenchStore;
  log: (message: string) => void;
}

/** waitForProviderReady polls the Provider until its Ready condition is True; it throws with the last condition otherwise. */
async function waitForProviderReady(client: BenchClient, deadlineMs: number): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  let last = 'no status yet';
  while (performance.now() < deadline) {
    const res = await client.request('GET', `/apis/core.conductor.io/v1alpha1/namespaces/${SYSTEM_NAMESPACE}/providers/${PROVIDER_NAME}`);
    if (res.status === 200) {
      const p = JSON.parse(res.body.toString('utf8')) as { status?: { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] } };
      const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready?.status === 'True') return;
      if (ready) last = `Ready=${ready.status} ${ready.reason ?? ''}: ${ready.message ?? ''}`;
    }
    await sleep(100);
  }
  throw new Error(`Provider ${SYSTEM_NAMESPACE}/${PROVIDER_NAME} did not become Ready within ${deadlineMs / 1000} s (${last})`);
}

/** waitForCrdEstablished polls a CRD until its Established condition is True. */
async function waitForCrdEstablished(client: BenchClient, name: string, deadlineMs: number): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  while (performance.now() < deadline) {
    const res = await client.request('GET', `${CRD_PATH}/${name}`);
    if (res.status === 200 && isEstablished(JSON.parse(res.body.toString('utf8')) as WatchedObject)) return;
    await sleep(100);
  }
  throw new Error(`CRD ${name} was not Established in the target within ${deadlineMs / 1000} s`);
}

function isEstablished(o: WatchedObject): boolean {
  return (o.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}

async function createOrThrow(client: BenchClient, path: string, body: string, what: string): Promise<void> {
  const err = await createOk(client, path, body);
  if (err !== undefined) throw new Error(`cannot create ${what}: ${err}`);
}

interface RunningServer {
  server: ServerProcess;
  client: BenchClient;
}

async function startOne(o: KubernetesBenchOptions, name: string, nodeArgs: string[]): Promise<RunningServer> {
  const server = await startServerProcess({
    dataDir: join(o.tmpRoot, `${name}-data`),
    logPath: join(o.tmpRoot, `${name}.log`),
    logLevel: o.logLevel,
    nodeArgs,
    store: o.store,
  });
  o.log(`${name} ${server.pid} ready on ${server.url} in ${round(server.readyMs, 0)} ms (log: ${server.logPath})`);
  return { server, client: new BenchClient(server.endpoint, { maxSockets: o.sizes.concurrency }) };
}

/**
 * benchKubernetes starts the target and the control plane, sets up the Provider and class,
 * runs the operator and the burst, and stops what it started.
 */
export async function benchKubernetes(o: KubernetesBenchOptions): Promise<ScenarioResult> {
  const { sizes, log } = o;
  const started: RunningServer[] = [];
  let operator: BenchOperator | undefined;
  try {
    const target = await startOne(o, 'kubernetes-target', []);
    started.push(target);
    const control = await startOne(o, 'kubernetes-control-plane', o.nodeArgs);
    started.push(control);

    // Setup: the target's CRD, the Provider and the class.
    await createOrThrow(target.client, CRD_PATH, targetCrdJson(), 'the BenchDatabase CRD in the target');
    await waitForCrdEstablished(target.client, `${TARGET_KIND.plural}.${TARGET_KIND.group}`, 60_000);
    await ensureNamespace(control.client, CLAIM_NAMESPACE);
    await createOrThrow(control.client, `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets`, providerSecretJson(target.server.endpoint), 'the Provider Secret');
    await createOrThrow(control.client, `/apis/core.conductor.io/v1alpha1/namespaces/${SYSTEM_NAMESPACE}/providers`, providerJson(), 'the Provider');
    await waitForProviderReady(control.client, 60_000);
    await createOrThrow(control.client, `/apis/core.conductor.io/v1alpha1/namespaces/${SYSTEM_NAMESPACE}/resourceclasses`, classJson(), 'the ResourceClass');
    log(`Provider ${PROVIDER_NAME} Ready; class ${CLASS_NAME} serves PostgreSQLInstance with ${TARGET_KIND.kind}s in the target`);

    operator = new BenchOperator(target.client, TARGET_NAMESPACE, sizes.concurrency);
    await operator.start();
    const burst = await runBurst(control, target, operator, sizes, log);
    const memory = { controlPlane: memoryOf(control.server.pid), target: memoryOf(target.server.pid) };

    const n = sizes.kubernetesClaims.toLocaleString('en-US');
    const metrics: Metric[] = [
      {
        id: 'kubernetes.claims.rate',
        label: `claims bound/s (${n} claims → KubernetesObjects in a target server)`,
        value: round(burst.boundPerSec, 0),
        unit: '/s',
      },
      {
        id: 'kubernetes.objects.rate',
        label: `target objects Ready/s (${n}, seen Ready in the control plane)`,
        value: round(burst.objectsReadyPerSec, 0),
        unit: '/s',
      },
      {
        id: 'kubernetes.objects.seconds',
        label: `${n} claims → every target object Ready`,
        value: burst.complete ? round(burst.objectsReadyMs / 1000, 2) : null,
        unit: 's',
      },
    ];
    return { metrics, details: { ...burst.details, memory } };
  } finally {
    await operator?.stop();
    for (const s of started.reverse()) {
      s.client.close();
      const how = await s.server.stop(30_000);
      if (how !== '0') log(`server ${s.server.pid} exited with ${how}`);
    }
  }
}

function memoryOf(pid: number): { rssMB: number; hwmMB: number } {
  const m = readMemory(pid);
  return { rssMB: mb(m.rssBytes), hwmMB: mb(m.hwmBytes) };
}

/** onKubernetesObject records when a KubernetesObject of the control plane was first seen Ready. */
export function onKubernetesObject(ready: Milestones, ev: WatchEvent, now: number): void {
  if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
  const o = ev.object;
  if (o?.metadata?.name && isReady(o)) ready.reach(o.metadata.name, now);
}

async function runBurst(control: RunningServer, target: RunningServer, operator: BenchOperator, sizes: BenchSizes, log: (m: string) => void) {
  const ns = CLAIM_NAMESPACE;
  const total = sizes.kubernetesClaims;
  const names = Array.from({ length: total }, (_, i) => claimName(i));
  const wanted = new Set(names);
  const events = new ClaimEvents(total, (name) => wanted.has(name));
  const objectsReady = new Milestones(total);
  const rv = await currentRv(control.client, claimsPath(ns));
  const watches = [
    new ResumingWatch(control.client, claimsPath(ns), rv, (ev, now) => events.onClaim(ev, now)),
    new ResumingWatch(control.client, secretsPath(ns), rv, (ev, now) => events.onSecret(ev, now)),
    new ResumingWatch(control.client, KUBERNETES_OBJECTS_PATH, await currentRv(control.client, KUBERNETES_OBJECTS_PATH), (ev, now) =>
      onKubernetesObject(objectsReady, ev, now),
    ),
  ];
  try {
    await Promise.all(watches.map((w) => w.ready));
    operator.ready.expect(total);
    log(
      `creating ${total} claims in ${ns}, ${sizes.concurrency} in flight; waiting for every one Bound, its object Ready in the target and seen Ready, and its Secret`,
    );
    const logAt = { control: fileSizeOf(control.server.logPath), target: fileSizeOf(target.server.logPath) };
    const meter = cpuMeter(control.server.pid, target.server.pid);
    const start = performance.now();
    const r = await runClosedLoop((i) => createOk(control.client, claimsPath(ns), kubernetesClaimJson(ns, names[i])), {
      total,
      concurrency: sizes.concurrency,
      deadlineMs: 240_000,
    });
    const createdAt = performance.now();
    events.expect(r.ok);
    objectsReady.expect(r.ok);
    operator.ready.expect(r.ok);
    log(`  ${r.ok} claims created in ${((createdAt - start) / 1000).toFixed(2)} s (${Math.round(r.ratePerSec)}/s); ${events.bound.count} Bound so far`);
    const progress = setInterval(
      () =>
        log(
          `  ${events.bound.count} Bound, ${operator.ready.count} target objects Ready, ${objectsReady.count} KubernetesObjects Ready, ${events.secrets.count} Secrets`,
        ),
      5_000,
    );
    const done = () => events.done() && objectsReady.completedAt !== undefined;
    await waitFor(done, 300_000);
    clearInterval(progress);
    const cpu = meter();
    const { storeCores, ...cpuRest } = cpu;
    const complete = done() && r.errors === 0;
    const end = performance.now();
    const since = (t: number | undefined) => (t === undefined ? null : round(t - start, 1));
    const boundMs = (events.bound.completedAt ?? end) - start;
    const objectsReadyMs = (objectsReady.completedAt ?? end) - start;
    log(
      `  ${complete ? 'all' : 'NOT all'}: ${events.bound.count}/${total} Bound after ${(boundMs / 1000).toFixed(2)} s, ${objectsReady.count} objects Ready after ${(objectsReadyMs / 1000).toFixed(2)} s`,
    );
    const readText = (path: string, from: number) => countWarnings(readTail(path, from));
    return {
      complete,
      boundPerSec: (events.bound.count / boundMs) * 1000,
      objectsReadyPerSec: (objectsReady.count / objectsReadyMs) * 1000,
      objectsReadyMs,
      details: {
        claims: total,
        created: r.ok,
        createErrors: r.errors,
        createErrorSamples: r.errorSamples,
        createMs: round(createdAt - start, 1),
        createRatePerSec: round(r.ratePerSec, 1),
        createLatencyMs: roundSummary(summarize(r.latenciesMs)),
        bound: events.bound.count,
        allBoundMs: since(events.bound.completedAt),
        targetObjectsReady: operator.ready.count,
        allTargetObjectsReadyMs: since(operator.ready.completedAt),
        objectsReady: objectsReady.count,
        allObjectsReadyMs: since(objectsReady.completedAt),
        secrets: events.secrets.count,
        allSecretsMs: since(events.secrets.completedAt),
        claimsReady: events.ready.count,
        allClaimsReadyMs: since(events.ready.completedAt),
        operator: { statusWrites: operator.writes, conflicts: operator.conflicts, errors: operator.errors },
        unexpectedEvents: events.unexpected,
        eventErrors: events.errors,
        watchReconnects: watches.reduce((n, w) => n + w.reconnects, 0),
        // The control plane's CPU is serverCores; the target's is targetCores.
        cpu: { ...cpuRest, targetCores: storeCores ?? 0 },
        warnings: { controlPlane: readText(control.server.logPath, logAt.control), target: readText(target.server.logPath, logAt.target) },
      },
    };
  } finally {
    await Promise.all(watches.map((w) => w.close()));
  }
}

function fileSizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function readTail(path: string, from: number): string {
  try {
    return readFileSync(path).subarray(from).toString('utf8');
  } catch {
    return '';
  }
}
