/**
 * Watch flood: one identity (not system:masters) makes `floodAttempts` watch attempts on a
 * server of its own, holding every watch it gets and reading none of them, while a writer
 * creates objects in the watched namespace; then every watch is closed. The server's RSS is
 * sampled throughout: the peak (and VmHWM) and the RSS after the watches closed are the
 * figures (target: peak under 600 MB). Answers are counted by status: 200 (held), 429 (the
 * per-user watch limit, or the request rate limit), others.
 */
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMeter, type ScenarioResult } from '../context.js';
import { BenchClient } from '../http-client.js';
import type { BenchSizes } from '../options.js';
import { mb, readMemory } from '../proc.js';
import { startServerProcess, type BenchStore } from '../server-process.js';
import { round } from '../stats.js';

export const FLOOD_NAMESPACE = 'bench-watch-flood';
const FLOOD_USER = 'bench-flooder';
const FLOOD_TOKEN = 'bench-flooder-token-0123456789';

export interface WatchFloodOptions {
  sizes: BenchSizes;
  tmpRoot: string;
  logLevel: string;
  nodeArgs: string[];
  /** The store of the server (default SQLite). */
  store?: BenchStore;
  log: (message: string) => void;
}

const rbac = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'bench-flood-watcher' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'bench-flood-watcher' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench-flood-watcher' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: FLOOD_USER }],
  },
];

export async function benchWatchFlood(o: WatchFloodOptions): Promise<ScenarioResult> {
  const { sizes, log } = o;
  const tokenFile = join(o.tmpRoot, 'flood-tokens.csv');
  writeFileSync(tokenFile, `${FLOOD_TOKEN},${FLOOD_USER},${FLOOD_USER}-uid,"bench"\n`, { mode: 0o600 });
  const server = await startServerProcess({
    dataDir: join(o.tmpRoot, 'watch-flood-data'),
    logPath: join(o.tmpRoot, 'watch-flood.log'),
    logLevel: o.logLevel,
    nodeArgs: o.nodeArgs,
    args: ['--token-file', tokenFile],
    env: { CONDUCTOR_CONTROLLERS: 'false' },
    store: o.store,
  });
  const admin = new BenchClient(server.endpoint, { maxSockets: 16 });
  const held = new Set<ClientRequest>();
  // One pool for the flooder: every held watch keeps its socket, refused attempts reuse theirs.
  const agent = new https.Agent({ keepAlive: true, maxSockets: Infinity, ca: server.endpoint.ca });
  try {
    const ok = (s: number, what: string) => {
      if (s !== 201 && s !== 409) throw new Error(`${what}: HTTP ${s}`);
    };
    ok((await admin.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: FLOOD_NAMESPACE } }))).status, 'create namespace');
    ok((await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', JSON.stringify(rbac[0]))).status, 'create ClusterRole');
    ok((await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', JSON.stringify(rbac[1]))).status, 'create ClusterRoleBinding');
    const path = `/api/v1/namespaces/${FLOOD_NAMESPACE}/configmaps`;
    // RBAC applies once its informers saw the binding.
    for (let i = 0; ; i++) {
      const r = await attempt(server.endpoint, agent, `${path}?limit=1`, false);
      r.req.destroy();
      if (r.status === 200) break;
      if (i > 300) throw new Error(`the flooder could not list ConfigMaps (HTTP ${r.status})`);
      await sleep(100);
    }
    const rv = (await admin.json<{ metadata: { resourceVersion: string } }>('GET', `${path}?limit=1`)).value.metadata.resourceVersion;

    await sleep(1_000);
    const before = readMemory(server.pid);
    log(`server RSS before the flood: ${mb(before.rssBytes)} MB`);
    let peakRss = before.rssBytes;
    const sampler = setInterval(() => {
      try {
        peakRss = Math.max(peakRss, readMemory(server.pid).rssBytes);
      } catch {
        // the server is gone; the scenario fails elsewhere
      }
    }, 100);

    const counts: Record<string, number> = {};
    const messages: Record<string, string> = {};
    const meter = cpuMeter(server.pid, server.etcd?.pid);
    let next = 0;
    log(`${sizes.floodAttempts} watch attempts as ${FLOOD_USER}, ${sizes.floodConcurrency} in flight; accepted watches are held and never read`);
    const worker = async () => {
      while (next < sizes.floodAttempts) {
        next++;
        let r: Attempt;
        try {
          r = await attempt(server.endpoint, agent, `${path}?watch=1&resourceVersion=${rv}`, true);
        } catch (err) {
          counts.error = (counts.error ?? 0) + 1;
          messages.error ??= (err as Error).message;
          continue;
        }
        const key = String(r.status);
        counts[key] = (counts[key] ?? 0) + 1;
        if (r.status === 200) held.add(r.req);
        else messages[key] ??= r.body.slice(0, 300);
      }
    };
    await Promise.all(Array.from({ length: sizes.floodConcurrency }, worker));
    const attempts = meter();
    log(`answers: ${JSON.stringify(counts)}; holding ${held.size} watches`);

    // The held watches do not read: what the server sends them must stay bounded.
    const body = 'x'.repeat(sizes.objectBytes);
    let written = 0;
    for (let i = 0; i < sizes.floodWrites; i += 16) {
      const batch = Array.from({ length: Math.min(16, sizes.floodWrites - i) }, (_, j) =>
        admin.request('POST', path, JSON.stringify({ metadata: { name: `flood-${i + j}` }, data: { v: body } })).then((r) => {
          if (r.status === 201) written++;
        }),
      );
      await Promise.all(batch);
    }
    const duringWrites = readMemory(server.pid);
    log(`${written} objects written while ${held.size} watches did not read; RSS ${mb(duringWrites.rssBytes)} MB`);

    for (const req of held) req.destroy();
    held.clear();
    agent.destroy();
    await sleep(sizes.rssSettleMs);
    clearInterval(sampler);
    const after = readMemory(server.pid);
    peakRss = Math.max(peakRss, after.rssBytes);
    log(`after close: RSS ${mb(after.rssBytes)} MB, peak sampled ${mb(peakRss)} MB, VmHWM ${mb(after.hwmBytes)} MB`);
    const n = sizes.floodAttempts.toLocaleString('en-US');
    return {
      metrics: [
        { id: 'watch-flood.peak', label: `server peak RSS (VmHWM), ${n} watch attempts by one user`, value: mb(after.hwmBytes), unit: 'MB' },
        { id: 'watch-flood.after', label: `server RSS after those watches closed`, value: mb(after.rssBytes), unit: 'MB' },
        { id: 'watch-flood.accepted', label: `watches accepted of ${n} attempts`, value: counts['200'] ?? 0, unit: '' },
      ],
      details: {
        attempts: sizes.floodAttempts,
        concurrency: sizes.floodConcurrency,
        answers: counts,
        sampleMessages: messages,
        writesWhileHeld: written,
        rssBeforeMB: mb(before.rssBytes),
        rssDuringWritesMB: mb(duringWrites.rssBytes),
        peakSampledMB: mb(peakRss),
        hwmMB: mb(after.hwmBytes),
        rssAfterCloseMB: mb(after.rssBytes),
        attemptsCpu: attempts,
        attemptsPerSec: round(sizes.floodAttempts / attempts.elapsedSec, 0),
      },
    };
  } finally {
    for (const req of held) req.destroy();
    agent.destroy();
    admin.close();
    const how = await server.stop();
    if (how !== '0') log(`watch-flood server exited with ${how}`);
  }
}

interface Attempt {
  status: number;
  body: string;
  req: ClientRequest;
}

/** One request as the flooder; a 200 watch is left open and unread, any other answer is read whole. */
function attempt(endpoint: { host: string; port: number }, agent: https.Agent, path: string, hold: boolean): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: endpoint.host, port: endpoint.port, path, method: 'GET', agent, headers: { Authorization: `Bearer ${FLOOD_TOKEN}`, Accept: 'application/json' } },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status === 200 && hold) {
          req.setTimeout(0);
          res.pause();
          res.on('error', () => undefined);
          resolve({ status, body: '', req });
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          if (body.length < 1000) body += d;
        });
        res.on('end', () => resolve({ status, body, req }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error('no answer within 120 s')));
    req.end();
  });
}
