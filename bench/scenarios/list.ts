/**
 * The time of one full LIST (JSON, no limit) of a namespace holding exactly `listObjects`
 * ConfigMaps, from sending the request to having parsed the whole body; median and max of
 * `listRuns` runs.
 */
import { performance } from 'node:perf_hooks';
import { cpuMeter, type BenchContext, type ScenarioResult } from '../context.js';
import { describeBody } from '../http-client.js';
import { LIST_NAMESPACE, configMapsPath } from '../population.js';
import { median, round } from '../stats.js';

export async function benchList(ctx: BenchContext): Promise<ScenarioResult> {
  const { sizes, population, client } = ctx;
  const missing = sizes.listObjects - population.count(LIST_NAMESPACE);
  if (missing > 0) {
    ctx.log(`filling ${LIST_NAMESPACE} with ${missing} more objects`);
    const targets = population.planIn(LIST_NAMESPACE, missing);
    const r = await population.create(targets, sizes.concurrency);
    if (r.errors) throw new Error(`cannot fill ${LIST_NAMESPACE}: ${r.errors} creates failed (${r.errorSamples[0]?.message})`);
  }
  const path = configMapsPath(LIST_NAMESPACE);
  ctx.log(`listing ${path} (${sizes.listObjects} objects) ${sizes.listRuns} times`);
  const runs: { totalMs: number; firstByteMs: number; parseMs: number; bytes: number }[] = [];
  const meter = cpuMeter(ctx.server.pid, ctx.server.etcd?.pid);
  for (let i = 0; i < sizes.listRuns; i++) {
    const t0 = performance.now();
    const res = await client.request('GET', path);
    const t1 = performance.now();
    if (res.status !== 200) throw new Error(`GET ${path}: got HTTP ${res.status}, expected 200: ${describeBody(res.body)}`);
    const list = JSON.parse(res.body.toString('utf8')) as { items?: unknown[] };
    const t2 = performance.now();
    const n = list.items?.length ?? 0;
    if (n !== sizes.listObjects) throw new Error(`GET ${path}: got ${n} items, expected exactly ${sizes.listObjects}`);
    runs.push({ totalMs: round(t2 - t0, 2), firstByteMs: round(res.headersAt - t0, 2), parseMs: round(t2 - t1, 2), bytes: res.body.length });
  }
  const cpu = meter();
  const totals = runs.map((r) => r.totalMs);
  const med = median(totals);
  const max = Math.max(...totals);
  const n = sizes.listObjects.toLocaleString('en-US');
  return {
    metrics: [
      { id: 'list.median', label: `list ${n} objects, median of ${sizes.listRuns}`, value: round(med, 1), unit: 'ms' },
      { id: 'list.max', label: `list ${n} objects, max of ${sizes.listRuns}`, value: round(max, 1), unit: 'ms' },
    ],
    details: {
      objects: sizes.listObjects,
      // headersMs: request sent → response headers; bodyMs: → last byte; clientParseMs: → parsed.
      runs: runs.map(({ totalMs, firstByteMs, parseMs, bytes }) => ({
        totalMs,
        headersMs: firstByteMs,
        bodyMs: round(totalMs - firstByteMs - parseMs, 2),
        clientParseMs: parseMs,
        bytes,
      })),
      medianMs: round(med, 2),
      maxMs: round(max, 2),
      cpu,
    },
  };
}
