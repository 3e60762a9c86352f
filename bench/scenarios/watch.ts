/**
 * Watch delivery latency: `watchers` concurrent watch streams on one namespace, a writer
 * creating objects at a steady rate; each delivery's latency is the time the watcher has
 * parsed the ADDED event minus the time the writer sent the create (both clocks are this
 * process's performance.now()).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMeter, type BenchContext, type ScenarioResult } from '../context.js';
import type { WatchStream } from '../http-client.js';
import { WATCH_NAMESPACE, configMapsPath, type Target } from '../population.js';
import { roundSummary, round, summarize } from '../stats.js';

interface WatchEvent {
  type?: string;
  object?: { metadata?: { name?: string } };
}

export async function benchWatch(ctx: BenchContext): Promise<ScenarioResult> {
  const { sizes, population, client } = ctx;
  const ns = WATCH_NAMESPACE;
  await population.ensureNamespaces([ns]);
  const path = configMapsPath(ns);
  const rv = (await client.json<{ metadata: { resourceVersion: string } }>('GET', `${path}?limit=1`)).value.metadata.resourceVersion;

  const total = sizes.watchRatePerSec * sizes.watchSeconds;
  const sentAt = new Map<string, number>();
  const latencies = new Float64Array(total * sizes.watchers);
  let delivered = 0;
  let unexpected = 0;
  let warmupSeen = 0;
  const warmupName = 'warmup-000000';
  const errors: string[] = [];

  const onLine = (line: string) => {
    let ev: WatchEvent;
    try {
      ev = JSON.parse(line) as WatchEvent;
    } catch {
      unexpected++;
      return;
    }
    const now = performance.now();
    if (ev.type === 'BOOKMARK') return;
    const name = ev.object?.metadata?.name;
    if (ev.type !== 'ADDED' || name === undefined) {
      unexpected++;
      if (errors.length < 5) errors.push(line.slice(0, 300));
      return;
    }
    if (name === warmupName) {
      warmupSeen++;
      return;
    }
    const t = sentAt.get(name);
    if (t === undefined) {
      unexpected++;
      return;
    }
    if (delivered < latencies.length) latencies[delivered] = now - t;
    delivered++;
  };

  ctx.log(`opening ${sizes.watchers} watches on ${path} from resourceVersion ${rv}`);
  const streams: WatchStream[] = [];
  try {
    // Open the streams a few at a time, as a fleet of informers would on start-up.
    for (let i = 0; i < sizes.watchers; i += 10) {
      const batch = Array.from({ length: Math.min(10, sizes.watchers - i) }, () => client.watch(`${path}?watch=1&resourceVersion=${rv}`, onLine));
      streams.push(...(await Promise.all(batch)));
    }

    // Warm up: one object every watcher must see before the clock starts.
    const warm = await client.request('POST', path, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: warmupName, namespace: ns } }));
    if (warm.status !== 201) throw new Error(`warm-up create in ${ns}: got HTTP ${warm.status}, expected 201: ${warm.body.toString('utf8').slice(0, 300)}`);
    const warmDeadline = performance.now() + 15_000;
    while (warmupSeen < sizes.watchers && performance.now() < warmDeadline) await sleep(10);
    if (warmupSeen < sizes.watchers) throw new Error(`only ${warmupSeen} of ${sizes.watchers} watchers saw the warm-up object within 15 s`);

    const targets: Target[] = population.planIn(ns, total);
    const intervalMs = 1000 / sizes.watchRatePerSec;
    const createLatencies: number[] = [];
    let createErrors = 0;
    const inFlight: Promise<void>[] = [];
    ctx.log(`writing ${total} objects at ${sizes.watchRatePerSec}/s to ${sizes.watchers} watchers`);
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const meter = cpuMeter(ctx.server.pid, ctx.server.etcd?.pid);
    const start = performance.now();
    let lateSends = 0;
    for (let i = 0; i < total; i++) {
      const due = start + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      else if (wait < -intervalMs) lateSends++;
      const t = targets[i];
      const sent = performance.now();
      sentAt.set(t.name, sent);
      inFlight.push(
        population.createOne(t).then((err) => {
          if (err === undefined) createLatencies.push(performance.now() - sent);
          else {
            createErrors++;
            if (errors.length < 5) errors.push(err);
          }
        }),
      );
    }
    await Promise.all(inFlight);
    const writeMs = performance.now() - start;
    const want = (total - createErrors) * sizes.watchers;
    const drainDeadline = performance.now() + 15_000;
    while (delivered < want && performance.now() < drainDeadline) await sleep(10);
    const cpu = meter();
    loopDelay.disable();

    const lat = roundSummary(summarize(latencies.subarray(0, Math.min(delivered, latencies.length))));
    const complete = delivered >= want && createErrors === 0;
    return {
      metrics: [
        { id: 'watch.p50', label: `watch latency p50 (${sizes.watchers} watchers, ${sizes.watchRatePerSec}/s)`, value: round(lat.p50, 2), unit: 'ms' },
        {
          id: 'watch.p99',
          label: `watch latency p99 (${sizes.watchers} watchers, ${sizes.watchRatePerSec}/s)`,
          value: complete ? round(lat.p99, 2) : null,
          unit: 'ms',
        },
        { id: 'watch.max', label: `watch latency max (${sizes.watchers} watchers, ${sizes.watchRatePerSec}/s)`, value: round(lat.max, 2), unit: 'ms' },
      ],
      details: {
        watchers: sizes.watchers,
        objects: total,
        ratePerSec: sizes.watchRatePerSec,
        writeMs: round(writeMs, 1),
        lateSends,
        expectedDeliveries: total * sizes.watchers,
        delivered,
        missing: Math.max(0, want - delivered),
        unexpectedEvents: unexpected,
        createErrors,
        errorSamples: errors,
        latencyMs: lat,
        createLatencyMs: roundSummary(summarize(createLatencies)),
        // The histogram records whole timer intervals: subtract the 1 ms resolution to get the delay.
        clientEventLoopDelayMs: { p50: lagMs(loopDelay.percentile(50)), p99: lagMs(loopDelay.percentile(99)), max: lagMs(loopDelay.max) },
        cpu,
      },
    };
  } finally {
    for (const s of streams) s.close();
  }
}

/** lagMs turns an event-loop histogram value (ns, including the 1 ms timer interval) into the delay in ms. */
function lagMs(ns: number): number {
  return round(Math.max(0, ns / 1e6 - 1), 2);
}
