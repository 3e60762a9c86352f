/**
 * Server memory holding `rssObjects` ConfigMaps: the benchmark fills the store up to that
 * many objects (reusing those already created), waits for the server to settle, then reads
 * VmRSS (and the peak, VmHWM) from /proc/<pid>/status — once `rssSettleMs` after the last
 * write ("after the fill": the young generation and the heap's slack are still those of the
 * write burst) and once `rssRestMs` after it ("at rest": what the server holds when it is
 * idle, after V8 has given back what the burst needed). The goal is judged at rest; both are
 * reported, with the peak.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMeter, type BenchContext, type ScenarioResult } from '../context.js';
import { mb, readMemory } from '../proc.js';
import { round } from '../stats.js';

export async function benchRss(ctx: BenchContext): Promise<ScenarioResult> {
  const { sizes, population, server } = ctx;
  const before = readMemory(server.pid);
  const missing = sizes.rssObjects - population.total();
  let fill: Record<string, unknown> | undefined;
  if (missing > 0) {
    ctx.log(`filling the store with ${missing} more objects (to ${sizes.rssObjects})`);
    const targets = population.plan(missing);
    await population.ensureNamespaces(targets);
    const meter = cpuMeter(server.pid, server.etcd?.pid);
    const r = await population.create(targets, sizes.concurrency, 600_000);
    fill = {
      cpu: meter(),
      created: r.ok,
      errors: r.errors,
      errorSamples: r.errorSamples,
      elapsedMs: round(r.elapsedMs, 0),
      ratePerSec: round(r.ratePerSec, 0),
    };
    if (population.total() < sizes.rssObjects)
      throw new Error(
        `could only create ${population.total()} of ${sizes.rssObjects} objects (${r.errors} failed: ${r.errorSamples[0]?.message ?? r.stoppedEarly})`,
      );
  }
  ctx.log(`holding ${population.total()} objects; letting the server settle for ${sizes.rssSettleMs} ms`);
  const filled = Date.now();
  const restMs = Math.max(sizes.rssRestMs, sizes.rssSettleMs);
  const samples = await sampleRssUntil(server.pid, filled + sizes.rssSettleMs);
  const afterFill = readMemory(server.pid);
  if (Date.now() < filled + restMs) ctx.log(`RSS after the fill: ${mb(afterFill.rssBytes)} MB; reading it at rest, ${restMs} ms after the last write`);
  const restSamples = await sampleRssUntil(server.pid, filled + restMs);
  const after = readMemory(server.pid);
  const n = sizes.rssObjects.toLocaleString('en-US');
  const restSec = Math.round(restMs / 1000);
  return {
    metrics: [
      { id: 'rss.rss', label: `server RSS holding ${n} objects, at rest (${restSec} s after the last write)`, value: mb(after.rssBytes), unit: 'MB' },
      {
        id: 'rss.afterFill',
        label: `server RSS holding ${n} objects, ${Math.round(sizes.rssSettleMs / 1000)} s after the last write`,
        value: mb(afterFill.rssBytes),
        unit: 'MB',
      },
      { id: 'rss.hwm', label: `server peak RSS (VmHWM) so far`, value: mb(after.hwmBytes), unit: 'MB' },
    ],
    details: {
      objects: population.total(),
      rssMB: mb(after.rssBytes),
      rssAfterFillMB: mb(afterFill.rssBytes),
      hwmMB: mb(after.hwmBytes),
      rssBeforeFillMB: mb(before.rssBytes),
      settleSamplesMB: samples,
      restSamplesMB: restSamples,
      bytesPerObject: population.total() ? Math.round(after.rssBytes / population.total()) : null,
      dataDirFilesMB: fileSizes(server.dataDir),
      fill,
    },
  };
}

/** sampleRssUntil reads the process's RSS (MB) once a second until `end` (epoch ms). */
async function sampleRssUntil(pid: number, end: number): Promise<number[]> {
  const samples: number[] = [];
  while (Date.now() < end) {
    await sleep(Math.min(1_000, Math.max(0, end - Date.now())));
    samples.push(mb(readMemory(pid).rssBytes));
  }
  return samples;
}

function fileSizes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of ['state.db', 'state.db-wal', 'state.db-shm']) {
    try {
      out[f] = mb(statSync(join(dir, f)).size);
    } catch {
      // absent
    }
  }
  return out;
}
