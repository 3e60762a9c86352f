/**
 * What every benchmark against the shared server receives, what it returns, and a meter of
 * the CPU both processes spend while it runs.
 */
import { performance } from 'node:perf_hooks';
import type { BenchClient } from './http-client.js';
import type { BenchSizes } from './options.js';
import type { Population } from './population.js';
import { readCpuSeconds, readSystemCpu } from './proc.js';
import type { Metric } from './report.js';
import type { ServerProcess } from './server-process.js';
import { round } from './stats.js';

/** A BenchContext is the running server, a client for it and the objects created so far. */
export interface BenchContext {
  sizes: BenchSizes;
  server: ServerProcess;
  client: BenchClient;
  population: Population;
  log(message: string): void;
}

/** A ScenarioResult is a benchmark's figures for the table and its details for the JSON. */
export interface ScenarioResult {
  metrics: Metric[];
  details: Record<string, unknown>;
}

/** CpuUsage is the CPU both processes used during a phase, in seconds and in cores busy on average. */
export interface CpuUsage {
  elapsedSec: number;
  serverCpuSec: number;
  clientCpuSec: number;
  /** serverCpuSec / elapsedSec: 1.0 means one core fully busy. */
  serverCores: number;
  clientCores: number;
  /** `--store etcd`: the cores the server's etcd used (not counted in otherCores). */
  storeCores?: number;
  /** Cores busy on average in other processes of the machine (load that is not the benchmark's). */
  otherCores: number;
  /** Cores' worth of time spent idle waiting for I/O, on average. */
  iowaitCores: number;
  /**
   * The measured interval on the machine's monotonic clock, in microseconds: the clock of
   * `process.hrtime()` and of V8 CPU profiles, so a server profile can be cut to it
   * (profile-summary.js --results <json> --phase <name>).
   */
  window: { startUs: number; endUs: number };
}

/** monotonicUs reads the monotonic clock in microseconds. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** cpuMeter starts measuring; the returned function stops and reports. `storePid`: the server's etcd, when it has one. */
export function cpuMeter(serverPid: number, storePid?: number): () => CpuUsage {
  const t0 = performance.now();
  const startUs = monotonicUs();
  const s0 = readCpuSeconds(serverPid);
  const e0 = storePid === undefined ? 0 : readCpuSeconds(storePid);
  const c0 = process.cpuUsage();
  const m0 = readSystemCpu();
  return () => {
    const m1 = readSystemCpu();
    const elapsedSec = (performance.now() - t0) / 1000;
    const serverCpuSec = readCpuSeconds(serverPid) - s0;
    const storeCpuSec = storePid === undefined ? 0 : readCpuSeconds(storePid) - e0;
    const c = process.cpuUsage(c0);
    const clientCpuSec = (c.user + c.system) / 1e6;
    return {
      elapsedSec: round(elapsedSec, 3),
      serverCpuSec: round(serverCpuSec, 2),
      clientCpuSec: round(clientCpuSec, 2),
      serverCores: round(elapsedSec > 0 ? serverCpuSec / elapsedSec : 0, 2),
      clientCores: round(elapsedSec > 0 ? clientCpuSec / elapsedSec : 0, 2),
      ...(storePid === undefined ? {} : { storeCores: round(elapsedSec > 0 ? storeCpuSec / elapsedSec : 0, 2) }),
      otherCores: round(elapsedSec > 0 ? Math.max(0, m1.busySec - m0.busySec - serverCpuSec - clientCpuSec - storeCpuSec) / elapsedSec : 0, 2),
      iowaitCores: round(elapsedSec > 0 ? (m1.iowaitSec - m0.iowaitSec) / elapsedSec : 0, 2),
      window: { startUs, endUs: monotonicUs() },
    };
  };
}

/** errorRateTooHigh says whether failures make a throughput figure meaningless (over 1%). */
export function errorRateTooHigh(ok: number, errors: number): boolean {
  return errors > 0.01 * (ok + errors);
}
