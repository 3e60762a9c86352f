/**
 * gets/s: GETs of existing objects chosen uniformly at random, `concurrency` in flight.
 * The client checks the status and keeps the body but does not parse it.
 */
import { cpuMeter, errorRateTooHigh, type BenchContext, type ScenarioResult } from '../context.js';
import { runClosedLoop } from '../load.js';
import { roundSummary, round, summarize } from '../stats.js';

/** The fewest objects to read from; a run without the create benchmark makes these first. */
const MIN_OBJECTS = 1_000;

export async function benchGet(ctx: BenchContext): Promise<ScenarioResult> {
  const { sizes, population, client } = ctx;
  if (population.total() < MIN_OBJECTS) {
    ctx.log(`creating ${MIN_OBJECTS - population.total()} objects to read`);
    await population.create(population.plan(MIN_OBJECTS - population.total()), sizes.concurrency);
  }
  const paths = population.paths;
  ctx.log(`${sizes.gets} random GETs over ${paths.length} objects, ${sizes.concurrency} in flight`);
  // Verify once that a GET answers the object, so the loop can trust status codes.
  const probe = await client.json<{ metadata?: { name?: string } }>('GET', paths[0]);
  if (!probe.value.metadata?.name) throw new Error(`GET ${paths[0]} answered without metadata.name`);

  let bytes = 0;
  const meter = cpuMeter(ctx.server.pid, ctx.server.etcd?.pid);
  const r = await runClosedLoop(
    async () => {
      const res = await client.request('GET', paths[Math.floor(Math.random() * paths.length)]);
      if (res.status !== 200) return `HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`;
      bytes += res.body.length;
      return undefined;
    },
    { total: sizes.gets, concurrency: sizes.concurrency, deadlineMs: 180_000 },
  );
  const cpu = meter();
  const rate = errorRateTooHigh(r.ok, r.errors) ? null : r.ratePerSec;
  return {
    metrics: [
      {
        id: 'get.rate',
        label: `gets/s (${sizes.gets.toLocaleString('en-US')} random, ${sizes.concurrency} in flight)`,
        value: rate === null ? null : round(rate, 0),
        unit: '/s',
      },
    ],
    details: {
      requested: sizes.gets,
      objects: paths.length,
      ok: r.ok,
      errors: r.errors,
      errorSamples: r.errorSamples,
      stoppedEarly: r.stoppedEarly,
      elapsedMs: round(r.elapsedMs, 1),
      ratePerSec: round(r.ratePerSec, 1),
      meanResponseBytes: r.ok ? Math.round(bytes / r.ok) : null,
      latencyMs: roundSummary(summarize(r.latenciesMs)),
      cpu,
      serverCpuMsPerRequest: r.ok ? round((cpu.serverCpuSec * 1000) / r.ok, 3) : null,
    },
  };
}
