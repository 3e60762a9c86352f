/**
 * Scheduler decision latency, in process (no server): p50/p99 of one `scheduleSync` over a
 * candidate set of 1k, 10k and 100k concrete resources spread over 20 claim kinds, 5
 * profiles, 5 phases and 12 regions (the index lets a few dozen through per claim), and a
 * 100k set where 1,000 candidates pass the index (the filters and scores run on all of them).
 * Claims vary in kind, profile, region, capacity and cost; a sample is checked against a
 * full scan so the figures are of correct decisions.
 */
import { performance } from 'node:perf_hooks';
import { parseQuantity } from '../../src/machinery/quantity/index.js';
import {
  Scheduler,
  candidateKey,
  type Candidate,
  type ClaimInfo,
  type GroupKind,
  type ResourceCandidate,
  type ResourcePhase,
  type ScheduleResult,
} from '../../src/scheduler/index.js';
import type { ScenarioResult } from '../context.js';
import { round, roundSummary, summarize } from '../stats.js';

export interface SchedulerBenchOptions {
  quick: boolean;
  log(message: string): void;
}

const CONTINENTS: Record<string, string[]> = {
  'north-america': ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
  europe: ['eu-west-1', 'eu-west-2', 'eu-central-1', 'eu-north-1'],
  'asia-pacific': ['ap-southeast-1', 'ap-southeast-2', 'ap-northeast-1', 'ap-south-1'],
};
const LEAVES = Object.values(CONTINENTS).flat();
const COST_TIERS = ['free-tier', 'standard', 'premium'];
const PROFILES = [undefined, 'fast', 'slow', 'gold', 'silver'];
const CLAIM_KINDS: GroupKind[] = Array.from({ length: 20 }, (_, i) => ({ group: 'bench.conductor.io', kind: `Kind${i}Instance` }));
const CONCRETE: GroupKind = { group: 'bench.provider.conductor.io', kind: 'BenchInstance' };
const PHASES: [ResourcePhase, number][] = [
  ['Bound', 0.6],
  ['Available', 0.25],
  ['Pending', 0.1],
  ['Released', 0.03],
  ['Failed', 0.02],
];

/** A small deterministic PRNG (mulberry32), so every run measures the same population. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}

function phaseOf(rand: () => number): ResourcePhase {
  let x = rand();
  for (const [p, share] of PHASES) if ((x -= share) < 0) return p;
  return 'Available';
}

function makeResource(rand: () => number, i: number, over: Partial<ResourceCandidate> = {}): ResourceCandidate {
  const phase = over.phase ?? phaseOf(rand);
  const profile = pick(rand, PROFILES);
  return {
    type: 'resource',
    kind: CONCRETE,
    namespace: `admin-${i % 4}`,
    name: `r-${i}`,
    labels: { environment: rand() < 0.5 ? 'dev' : 'prod' },
    ...(profile === undefined ? {} : { profile }),
    phase,
    capabilities: { capacity: { storage: parseQuantity(`${10 + Math.floor(rand() * 490)}Gi`) }, region: pick(rand, LEAVES), cost: pick(rand, COST_TIERS) },
    sharing: { mode: 'Exclusive' },
    boundCount: phase === 'Bound' ? 1 : 0,
    implements: [pick(rand, CLAIM_KINDS)],
    portable: {},
    provider: `admin-${i % 4}/provider-${i % 3}`,
    ...(phase === 'Bound' ? { claimRef: { namespace: 'apps', name: `bound-${i}` } } : {}),
    createdAt: 0,
    ...over,
  };
}

function makeClaim(rand: () => number, i: number, over: Partial<ClaimInfo> = {}): ClaimInfo {
  const profile = pick(rand, PROFILES);
  const region = rand() < 0.5 ? pick(rand, Object.keys(CONTINENTS)) : pick(rand, LEAVES);
  return {
    namespace: `team-${i % 10}`,
    name: `claim-${i}`,
    uid: `uid-${i}`,
    kind: pick(rand, CLAIM_KINDS),
    requirements: { capacity: { storage: parseQuantity(`${1 + Math.floor(rand() * 100)}Gi`) }, region, cost: pick(rand, COST_TIERS) },
    ...(profile === undefined ? {} : { resourceClass: profile }),
    portable: {},
    namespaceLabels: {},
    ...over,
  };
}

interface Case {
  label: string;
  id: string;
  candidates: Candidate[];
  claims: ClaimInfo[];
}

function cases(decisions: number): Case[] {
  const out: Case[] = [];
  for (const n of [1_000, 10_000, 100_000]) {
    const rand = prng(n);
    const candidates = Array.from({ length: n }, (_, i) => makeResource(rand, i));
    const claims = Array.from({ length: decisions }, (_, i) => makeClaim(rand, i));
    const k = n >= 1000 ? `${n / 1000}k` : String(n);
    out.push({ label: `${k} candidates`, id: k, candidates, claims });
  }
  // 100k candidates of other kinds, plus 1,000 that the index lets through for every claim.
  const rand = prng(7);
  const target = CLAIM_KINDS[0];
  const others = CLAIM_KINDS.slice(1);
  const candidates: Candidate[] = Array.from({ length: 99_000 }, (_, i) => makeResource(rand, i, { implements: [pick(rand, others)] }));
  for (let i = 0; i < 1_000; i++) {
    candidates.push(
      makeResource(rand, 99_000 + i, {
        implements: [target],
        phase: 'Available',
        boundCount: 0,
        profile: 'fast',
        capabilities: {
          capacity: { storage: parseQuantity(`${10 + Math.floor(rand() * 490)}Gi`) },
          region: pick(rand, CONTINENTS['north-america']),
          cost: pick(rand, COST_TIERS),
        },
      }),
    );
  }
  const claims = Array.from({ length: decisions }, (_, i) =>
    makeClaim(rand, i, {
      kind: target,
      resourceClass: 'fast',
      requirements: { capacity: { storage: parseQuantity(`${1 + Math.floor(rand() * 100)}Gi`) }, region: 'north-america', cost: pick(rand, COST_TIERS) },
    }),
  );
  out.push({ label: '100k candidates, 1k pass the index', id: '100k-1k-pass', candidates, claims });
  return out;
}

function chosen(r: ScheduleResult): string {
  return r.decision.type === 'none' ? 'none' : candidateKey(r.decision.candidate);
}

export async function benchScheduler(o: SchedulerBenchOptions): Promise<ScenarioResult> {
  const decisions = o.quick ? 300 : 2_000;
  const warmup = o.quick ? 50 : 200;
  const metrics: ScenarioResult['metrics'] = [];
  const details: Record<string, unknown> = { decisions, warmup };
  for (const c of cases(decisions + warmup)) {
    const s = new Scheduler({ config: { regions: CONTINENTS, costTiers: COST_TIERS } });
    const t0 = performance.now();
    for (const x of c.candidates) s.upsert(x);
    const buildMs = performance.now() - t0;
    // Correctness first: a sample decided with the index and by a full scan must agree.
    const sample = c.claims.slice(0, o.quick ? 10 : 25);
    for (const claim of sample) {
      const a = s.scheduleSync(claim);
      const b = s.scheduleSync(claim, { scan: true });
      if (chosen(a) !== chosen(b) || a.explanation.message !== b.explanation.message) {
        throw new Error(`scheduler bench ${c.id}: the index chose ${chosen(a)} but a scan chose ${chosen(b)} for ${claim.name}`);
      }
    }
    const latencies = new Float64Array(decisions);
    let placed = 0;
    let feasible = 0;
    for (let i = 0; i < c.claims.length; i++) {
      const claim = c.claims[i];
      const start = performance.now();
      const r = s.scheduleSync(claim);
      const ms = performance.now() - start;
      if (i < warmup) continue;
      latencies[i - warmup] = ms;
      if (r.decision.type !== 'none') placed++;
      feasible += r.explanation.feasible;
    }
    const lat = roundSummary(summarize(latencies), 4);
    o.log(`${c.label}: index built in ${round(buildMs, 0)} ms; decision p50 ${lat.p50} ms, p99 ${lat.p99} ms, max ${lat.max} ms`);
    metrics.push(
      { id: `scheduler.p50.${c.id}`, label: `scheduler decision p50, ${c.label}`, value: round(lat.p50, 3), unit: 'ms' },
      { id: `scheduler.p99.${c.id}`, label: `scheduler decision p99, ${c.label}`, value: round(lat.p99, 3), unit: 'ms' },
    );
    details[c.id] = {
      candidates: c.candidates.length,
      buildMs: round(buildMs, 1),
      upsertsPerSec: round(c.candidates.length / (buildMs / 1000), 0),
      latencyMs: lat,
      placed,
      meanFeasible: round(feasible / decisions, 1),
      verifiedAgainstScan: sample.length,
    };
    // Give the collector a moment between populations.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { metrics, details };
}
