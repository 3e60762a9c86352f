/**
 * What every benchmark against the shared server receives, what it returns, and a meter of
 * the CPU both processes spend while it runs.
 */
import { performance } from 'node:perf_hooks';
import type { BenchClient } from './http-client.js';
import type { BenchSizes } from './options.js';
import type { Population } from './population.js';
import { readCpuSeconds } from './proc.js';
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
}

/** cpuMeter starts measuring; the returned function stops and reports. */
export function cpuMeter(serverPid: number): () => CpuUsage {
  const t0 = performance.now();
  const s0 = readCpuSeconds(serverPid);
  const c0 = process.cpuUsage();
  return () => {
    const elapsedSec = (performance.now() - t0) / 1000;
    const serverCpuSec = readCpuSeconds(serverPid) - s0;
    const c = process.cpuUsage(c0);
    const clientCpuSec = (c.user + c.system) / 1e6;
    return {
      elapsedSec: round(elapsedSec, 3),
      serverCpuSec: round(serverCpuSec, 2),
      clientCpuSec: round(clientCpuSec, 2),
      serverCores: round(elapsedSec > 0 ? serverCpuSec / elapsedSec : 0, 2),
      clientCores: round(elapsedSec > 0 ? clientCpuSec / elapsedSec : 0, 2),
    };
  };
}

/** errorRateTooHigh says whether failures make a throughput figure meaningless (over 1%). */
export function errorRateTooHigh(ok: number, errors: number): boolean {
  return errors > 0.01 * (ok + errors);
}
