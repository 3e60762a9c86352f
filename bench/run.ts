#!/usr/bin/env node
/**
 * `npm run bench`: starts a Conductor server on a temporary data directory, drives it over
 * HTTPS from this process, prints a table of figures against their targets and writes the
 * JSON to bench/results/ (latest.json and a dated copy). See bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../src/version.js';
import type { BenchContext, ScenarioResult } from './context.js';
import { BenchClient } from './http-client.js';
import { machineFacts } from './machine.js';
import { parseBenchArgs, USAGE, type BenchmarkName, type BenchOptions } from './options.js';
import { Population } from './population.js';
import { mb, readMemory } from './proc.js';
import { formatTable, judge, writeResults, type Metric } from './report.js';
import { benchClaims } from './scenarios/claims.js';
import { benchColdStart } from './scenarios/cold-start.js';
import { benchCreate } from './scenarios/create.js';
import { benchGet } from './scenarios/get.js';
import { benchKubernetes } from './scenarios/kubernetes.js';
import { benchInProcess } from './scenarios/in-process.js';
import { benchList } from './scenarios/list.js';
import { benchRss } from './scenarios/rss.js';
import { benchScheduler } from './scenarios/scheduler.js';
import { benchWatch } from './scenarios/watch.js';
import { benchWatchFlood } from './scenarios/watch-flood.js';
import { killAll, startServerProcess, type ServerProcess } from './server-process.js';
import { round } from './stats.js';

/** The repository root, from this file's compiled location (dist/bench/run.js). */
const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** The benchmarks that share one server; cold-start, scheduler, watch-flood and claims bring their own (or none). */
type SharedServerBenchmark = Exclude<BenchmarkName, 'cold-start' | 'scheduler' | 'in-process' | 'watch-flood' | 'claims' | 'kubernetes'>;

const SERVER_BENCHMARKS: Record<SharedServerBenchmark, (ctx: BenchContext) => Promise<ScenarioResult>> = {
  create: benchCreate,
  get: benchGet,
  list: benchList,
  watch: benchWatch,
  rss: benchRss,
};

const t0 = performance.now();
function log(message: string): void {
  process.stdout.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${message}\n`);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchArgs(process.argv.slice(2), join(REPO_DIR, 'bench', 'results'));
  } catch (err) {
    process.stderr.write(`bench: ${errorText(err)}\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { sizes } = options;
  const startedAt = new Date();
  const machine = machineFacts(REPO_DIR);
  const loadAverageAtStart = os.loadavg().map((v) => round(v, 2));
  log(`conductor ${VERSION} bench (${options.quick ? 'quick' : 'full'}, store ${options.store}): ${options.only.join(', ')}`);
  log(`${machine.cpuModel}, ${machine.cores} cores, node ${machine.nodeVersion}`);

  // The whole run stops by itself, whatever the server does.
  const watchdogMs = options.quick ? 5 * 60_000 : 30 * 60_000;
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench: still running after ${watchdogMs / 60_000} minutes; killing the server and giving up\n`);
    killAll();
    process.exit(3);
  }, watchdogMs);
  watchdog.unref();

  const tmpRoot = mkdtempSync(join(os.tmpdir(), 'conductor-bench-'));
  const metrics: Metric[] = [];
  const results: Record<string, unknown> = {};
  const failures: Record<string, string> = {};
  const memoryTimeline: { after: string; rssMB: number; hwmMB: number }[] = [];
  const record = (name: string, r: ScenarioResult) => {
    metrics.push(...r.metrics);
    results[name] = r.details;
  };
  const fail = (name: string, err: unknown) => {
    failures[name] = errorText(err);
    log(`${name} FAILED: ${errorText(err)}`);
  };

  if (options.only.includes('cold-start')) {
    try {
      record('cold-start', await benchColdStart({ runs: sizes.coldStartRuns, tmpRoot, logLevel: options.logLevel, keep: options.keep, log }));
    } catch (err) {
      fail('cold-start', err);
    }
  }

  if (options.only.includes('scheduler')) {
    try {
      record('scheduler', await benchScheduler({ quick: options.quick, log }));
    } catch (err) {
      fail('scheduler', err);
    }
  }

  if (options.only.includes('in-process')) {
    try {
      record('in-process', await benchInProcess({ quick: options.quick, log }));
    } catch (err) {
      fail('in-process', err);
    }
  }

  const serverBenchmarks = options.only.filter(
    (b): b is SharedServerBenchmark =>
      b !== 'cold-start' && b !== 'scheduler' && b !== 'in-process' && b !== 'watch-flood' && b !== 'claims' && b !== 'kubernetes',
  );
  let server: ServerProcess | undefined;
  let serverInfo: Record<string, unknown> | undefined;
  if (serverBenchmarks.length > 0) {
    const nodeArgs = serverNodeFlags(options);
    let client: BenchClient | undefined;
    try {
      server = await startServerProcess({
        dataDir: join(tmpRoot, 'server-data'),
        logPath: join(tmpRoot, 'server.log'),
        logLevel: options.logLevel,
        nodeArgs,
        store: options.store,
      });
      log(`server ${server.pid} ready on ${server.url} in ${round(server.readyMs, 0)} ms (log: ${server.logPath})`);
      if (server.etcd) log(`on etcd ${server.etcd.pid} at ${server.etcd.url} (log: ${server.etcd.logPath})`);
      serverInfo = { pid: server.pid, url: server.url, readyMs: round(server.readyMs, 1), logLevel: options.logLevel, nodeArgs, store: options.store };
      const sample = (after: string) => {
        const m = readMemory(server!.pid);
        memoryTimeline.push({ after, rssMB: mb(m.rssBytes), hwmMB: mb(m.hwmBytes) });
      };
      sample('start');
      client = new BenchClient(server.endpoint, { maxSockets: sizes.concurrency });
      const ctx: BenchContext = { sizes, server, client, population: new Population(client, sizes.listObjects, sizes.objectBytes), log };
      for (const name of serverBenchmarks) {
        log(`--- ${name}`);
        try {
          const r = await SERVER_BENCHMARKS[name](ctx);
          record(name, r);
          for (const m of r.metrics) log(`${m.label}: ${m.value === null ? 'error' : `${m.value} ${m.unit}`}`);
        } catch (err) {
          fail(name, err);
        }
        sample(name);
      }
    } catch (err) {
      fail('server', err);
    } finally {
      client?.close();
      if (server) {
        const how = await server.stop();
        if (serverInfo) serverInfo.exit = how;
        if (how !== '0') log(`server exited with ${how}`);
      }
    }
  }

  // The watch flood gets a server of its own: its RSS figures must not carry the others' objects.
  if (options.only.includes('watch-flood')) {
    log('--- watch-flood');
    try {
      const r = await benchWatchFlood({ sizes, tmpRoot, logLevel: options.logLevel, nodeArgs: serverNodeFlags(options), store: options.store, log });
      record('watch-flood', r);
      for (const m of r.metrics) log(`${m.label}: ${m.value === null ? 'error' : `${m.value} ${m.unit}`}`);
    } catch (err) {
      fail('watch-flood', err);
    }
  }

  // Claim binding runs last, on a fresh server of its own, once the shared one has stopped.
  if (options.only.includes('claims')) {
    log('--- claims');
    try {
      const r = await benchClaims({ sizes, tmpRoot, logLevel: options.logLevel, nodeArgs: serverNodeFlags(options), store: options.store, log });
      record('claims', r);
      for (const m of r.metrics) log(`${m.label}: ${m.value === null ? 'error' : `${m.value} ${m.unit}`}`);
    } catch (err) {
      fail('claims', err);
    }
  }

  // Claims through KubernetesObjects: a control plane and a target server of its own, after the others have stopped.
  if (options.only.includes('kubernetes')) {
    log('--- kubernetes');
    try {
      const r = await benchKubernetes({ sizes, tmpRoot, logLevel: options.logLevel, nodeArgs: serverNodeFlags(options), store: options.store, log });
      record('kubernetes', r);
      for (const m of r.metrics) log(`${m.label}: ${m.value === null ? 'error' : `${m.value} ${m.unit}`}`);
    } catch (err) {
      fail('kubernetes', err);
    }
  }

  const judged = judge(metrics, sizes, options.store);
  const finishedAt = new Date();
  const doc = {
    tool: 'conductor bench',
    schemaVersion: 1,
    conductorVersion: VERSION,
    mode: options.quick ? 'quick' : 'full',
    store: options.store,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSec: round((finishedAt.getTime() - startedAt.getTime()) / 1000, 1),
    machine,
    /** 1, 5 and 15-minute load averages: other work on the machine skews the figures. */
    loadAverage: { start: loadAverageAtStart, end: os.loadavg().map((v) => round(v, 2)) },
    options: { only: options.only, store: options.store, sizes, cpuProf: options.cpuProf, logLevel: options.logLevel, serverNodeArgs: options.serverNodeArgs },
    server: serverInfo,
    summary: judged,
    results,
    memoryTimeline,
    failures,
  };
  const written = writeResults(options.outDir, startedAt, options.quick, doc, options.store);

  process.stdout.write(`\n${formatTable(judged)}\n\n`);
  for (const line of busyMachineNotes(results)) process.stdout.write(`${line}\n`);
  if (options.quick) process.stdout.write("(quick run: sizes differ from the targets', so nothing is judged)\n");
  process.stdout.write(`results: ${written.join(', ')}\n`);
  if (options.cpuProf) process.stdout.write(`CPU profiles: ${join(options.outDir, 'profiles')} (summarize: node dist/bench/profile-summary.js <file>)\n`);

  const failed = Object.keys(failures).length > 0;
  if (options.keep || failed) process.stdout.write(`temporary data and server log kept in ${tmpRoot}\n`);
  else rmSync(tmpRoot, { recursive: true, force: true });
  return failed ? 1 : 0;
}

/** serverNodeFlags are the node flags of a benchmarked server: those given with --server-node-args, and --cpu-prof when asked. */
function serverNodeFlags(options: BenchOptions): string[] {
  return [...options.serverNodeArgs, ...(options.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', join(options.outDir, 'profiles')] : [])];
}

/** The share of a core other processes may use during a benchmark before its figure is flagged. */
const BUSY_MACHINE_CORES = 0.25;

/** busyMachineNotes flags the benchmarks during which other processes competed for the CPU. */
function busyMachineNotes(results: Record<string, unknown>): string[] {
  const notes: string[] = [];
  for (const [name, details] of Object.entries(results)) {
    const other = (details as { cpu?: { otherCores?: number } }).cpu?.otherCores;
    if (other !== undefined && other > BUSY_MACHINE_CORES) {
      notes.push(`note: other processes kept ${other.toFixed(2)} cores busy during ${name}; its figure understates the server (see cpu in the JSON)`);
    }
  }
  return notes;
}

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});
process.on('exit', killAll);

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    killAll();
    process.exit(1);
  },
);
