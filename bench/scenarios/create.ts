/**
 * creates/s: durable creates of 1 KB ConfigMaps, `concurrency` in flight, each counted
 * when the server acknowledged it with 201 Created.
 */
import { cpuMeter, errorRateTooHigh, type BenchContext, type ScenarioResult } from '../context.js';
import { runClosedLoop } from '../load.js';
import { roundSummary, round, summarize } from '../stats.js';

export async function benchCreate(ctx: BenchContext): Promise<ScenarioResult> {
  const { sizes, population } = ctx;
  const targets = population.plan(sizes.creates);
  await population.ensureNamespaces(targets);
  ctx.log(`creating ${targets.length} ConfigMaps of ${sizes.objectBytes} bytes, ${sizes.concurrency} in flight`);
  const meter = cpuMeter(ctx.server.pid, ctx.server.etcd?.pid);
  const r = await runClosedLoop((i) => population.createOne(targets[i]), {
    total: targets.length,
    concurrency: sizes.concurrency,
    deadlineMs: 240_000,
  });
  const cpu = meter();
  const rate = errorRateTooHigh(r.ok, r.errors) ? null : r.ratePerSec;
  return {
    metrics: [
      {
        id: 'create.rate',
        label: `creates/s (${targets.length.toLocaleString('en-US')} × 1 KB, ${sizes.concurrency} in flight)`,
        value: rate === null ? null : round(rate, 0),
        unit: '/s',
      },
    ],
    details: {
      requested: targets.length,
      ok: r.ok,
      errors: r.errors,
      errorSamples: r.errorSamples,
      stoppedEarly: r.stoppedEarly,
      elapsedMs: round(r.elapsedMs, 1),
      ratePerSec: round(r.ratePerSec, 1),
      latencyMs: roundSummary(summarize(r.latenciesMs)),
      cpu,
      serverCpuMsPerRequest: r.ok ? round((cpu.serverCpuSec * 1000) / r.ok, 3) : null,
    },
  };
}
