/**
 * Cold start: time from spawning `conductor server` to its ready line, (a) on a brand-new
 * data directory (certificate generation included) and (b) restarting on an existing data
 * directory whose store holds nothing but what the server bootstraps. Median of N each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { ScenarioResult } from '../context.js';
import { startServerProcess } from '../server-process.js';
import { median, round } from '../stats.js';

export interface ColdStartOptions {
  runs: number;
  /** Where temporary data directories are made. */
  tmpRoot: string;
  logLevel: string;
  keep: boolean;
  log(message: string): void;
}

export async function benchColdStart(o: ColdStartOptions): Promise<ScenarioResult> {
  const fresh: number[] = [];
  const existing: number[] = [];
  const dirs: string[] = [];
  try {
    o.log(`starting ${o.runs} servers on brand-new data directories`);
    for (let i = 0; i < o.runs; i++) {
      const dir = mkdtempSync(join(o.tmpRoot, 'cold-new-'));
      dirs.push(dir);
      const s = await startServerProcess({ dataDir: join(dir, 'data'), logPath: join(dir, 'server.log'), logLevel: o.logLevel });
      fresh.push(round(s.readyMs, 1));
      await s.stop();
    }
    // The last fresh directory now holds certificates and a bootstrapped store: restart on it.
    const reuse = dirs[dirs.length - 1];
    o.log(`restarting ${o.runs} times on an existing data directory`);
    for (let i = 0; i < o.runs; i++) {
      const s = await startServerProcess({ dataDir: join(reuse, 'data'), logPath: join(reuse, 'server.log'), logLevel: o.logLevel });
      existing.push(round(s.readyMs, 1));
      await s.stop();
    }
  } finally {
    if (!o.keep) for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  const baseline: number[] = [];
  for (let i = 0; i < o.runs; i++) baseline.push(round(await nodeStartMs(), 1));
  return {
    metrics: [
      { id: 'cold-start.new', label: `ready on a new data dir, median of ${o.runs}`, value: round(median(fresh), 0), unit: 'ms' },
      { id: 'cold-start.existing', label: `ready on an existing data dir, median of ${o.runs}`, value: round(median(existing), 0), unit: 'ms' },
    ],
    details: {
      newDataDirMs: fresh,
      existingDataDirMs: existing,
      medianNewMs: median(fresh),
      medianExistingMs: median(existing),
      /** How long a bare `node -e` takes to print a line here: the floor under both figures. */
      nodeBaselineMs: baseline,
    },
  };
}

/** nodeStartMs times spawning a bare Node that prints one line. */
function nodeStartMs(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', 'console.log("ready")'], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.once('data', () => resolve(performance.now() - t0));
    child.once('error', reject);
  });
}
