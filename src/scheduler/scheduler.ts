/**
 * The scheduling framework: a candidate index, filter plugins in order, weighted score
 * plugins and optional HTTP extenders, turning a claim into a decision with its explanation.
 * Pure and in-memory: the binder feeds candidates from its informers (`upsert`/`remove`)
 * and acts on the decisions.
 */
import { reservedFor } from './availability.js';
import { CandidateIndex, forEachInKeyOrder, type Lookup, type Narrowing, type Universe } from './candidate-index.js';
import { feasibleToFind, resolveConfig, type ResolvedConfig } from './config.js';
import { FailureTally, chosenMessage, unschedulableMessage } from './explanation.js';
import { HttpExtender } from './extender.js';
import { fitHints, fitHintsMayApply, withHints, type InRegion } from './fit-hints.js';
import { candidateKey, classKey } from './keys.js';
import {
  failureDetail,
  type CandidateFilter,
  type CandidateScore,
  type FilterPlugin,
  type IndexNarrowing,
  type PluginContext,
  type QuotaCheck,
  type ScorePlugin,
} from './plugin.js';
import { RegionFilter } from './plugins/region.js';
import { builtinPortableMatchers, type PortableMatcherRegistry } from './portable-matchers.js';
import { RegionHierarchy, regionMismatch } from './region-hierarchy.js';
import { defaultRegistry, type PluginRegistry } from './registry.js';
import { TierOrder } from './tier-order.js';
import { PriceMemo, pricesMessage } from './prices.js';
import type { Candidate, CandidatePricer, ClaimInfo, PluginScore, ScheduleResult, SchedulerConfig } from './types.js';

/** SchedulerOptions build a Scheduler; every field has a default. */
export interface SchedulerOptions {
  readonly config?: SchedulerConfig;
  /** Plugins by name; default `defaultRegistry()`. */
  readonly registry?: PluginRegistry;
  /** PortableConfig matchers; default `builtinPortableMatchers()`. */
  readonly portableMatchers?: PortableMatcherRegistry;
  /** The binder's quota check for classes; without one, Quota passes everything. */
  readonly quota?: QuotaCheck;
  /** The administrators' namespace; default `conductor-system` (see NamespacePolicy). */
  readonly systemNamespace?: string;
  /** Prices candidates for claims (Cost's maxMonthlyPrice, LowestCost, the explanation); without one no candidate has a price. */
  readonly pricer?: CandidatePricer;
}

/** How one scheduling call is made. */
export interface ScheduleOptions {
  /** Evaluate every candidate of the universe instead of using the index (a reference for tests and debugging). */
  readonly scan?: boolean;
}

/** A CandidateVerdict is why one candidate passes or fails a claim's filters. */
export type CandidateVerdict = { readonly fits: true } | { readonly fits: false; readonly plugin: string; readonly summary: string; readonly detail?: string };

/** The plugins of one configuration, ready to run. */
interface Pipeline {
  readonly config: ResolvedConfig;
  readonly ctx: PluginContext;
  readonly filters: readonly FilterPlugin[];
  readonly scores: readonly { readonly plugin: ScorePlugin; readonly weight: number }[];
  readonly extenders: readonly HttpExtender[];
  /** A filter honours resourceName (the `named` universe applies). */
  readonly explicitName: boolean;
  /** A filter matches kinds (the `kind` universe applies). */
  readonly kindUniverse: boolean;
  /** The filters the index may narrow for, by level. */
  readonly narrowing: { readonly profile?: string; readonly availability?: string; readonly region?: string };
  /** The filters whose names `narrowing` holds, by level: what the index's runs have passed already. */
  readonly narrowingFilters: { readonly profile?: FilterPlugin; readonly availability?: FilterPlugin; readonly region?: FilterPlugin };
}

/** The outcome of the filters for one claim. */
interface Evaluation {
  readonly claim: ClaimInfo;
  readonly universe: Universe;
  readonly total: number;
  feasible: Candidate[];
  /** Candidates left unchecked because enough feasible ones were found. */
  readonly unchecked: number;
  readonly tally: FailureTally;
  readonly notes: string[];
}

interface PreparedScore {
  readonly name: string;
  readonly weight: number;
  readonly fn: CandidateScore;
}

/** A Scheduler does place claims on candidates; see README.md for the semantics. */
export class Scheduler {
  private readonly index = new CandidateIndex();
  private readonly registry: PluginRegistry;
  private readonly portableMatchers: PortableMatcherRegistry;
  private readonly quota?: QuotaCheck;
  private readonly systemNamespace: string;
  private readonly prices: PriceMemo;
  private pipeline: Pipeline;

  constructor(options: SchedulerOptions = {}) {
    this.registry = options.registry ?? defaultRegistry();
    this.portableMatchers = options.portableMatchers ?? builtinPortableMatchers();
    if (options.quota !== undefined) this.quota = options.quota;
    this.systemNamespace = options.systemNamespace ?? DEFAULT_SYSTEM_NAMESPACE;
    this.prices = new PriceMemo(options.pricer);
    this.pipeline = this.build(options.config ?? {});
  }

  /** setConfig switches to another configuration (profile, tiers, regions); the candidates stay. It throws on an unknown plugin. */
  setConfig(config: SchedulerConfig): void {
    const next = this.build(config);
    for (const e of this.pipeline.extenders) e.close();
    this.pipeline = next;
  }

  /** The configuration in force, with defaults filled in. */
  get config(): ResolvedConfig {
    return this.pipeline.config;
  }

  /** upsert adds or replaces a candidate; it returns its key. */
  upsert(candidate: Candidate): string {
    return this.index.upsert(candidate);
  }

  /** remove drops a candidate by key (keys.ts); it returns whether there was one. */
  remove(key: string): boolean {
    return this.index.remove(key);
  }

  get(key: string): Candidate | undefined {
    return this.index.get(key);
  }

  get size(): number {
    return this.index.size;
  }

  /** Every candidate, in no particular order. */
  candidates(): IterableIterator<Candidate> {
    return this.index.values();
  }

  /** Claims bound now to resources of a provider. */
  providerUsage(provider: string): number {
    return this.index.providerUsage(provider);
  }

  /** schedule decides where a claim goes, consulting the configured extenders. */
  async schedule(claim: ClaimInfo, options: ScheduleOptions = {}): Promise<ScheduleResult> {
    const p = this.pipeline;
    // A filtering extender may reject what was found: search everything, so a decision never misses what it did not check.
    const ev = this.evaluate(
      p,
      claim,
      options.scan === true,
      p.extenders.some((e) => e.filters),
    );
    const extra: PreparedScore[] = [];
    for (const ext of p.extenders) {
      if (!ext.filters || ev.feasible.length === 0) continue;
      const plugin = `extender/${ext.name}`;
      try {
        const failed = await ext.filter(claim, sortedByKey(ev.feasible));
        if (failed.size === 0) continue;
        ev.feasible = ev.feasible.filter((c) => {
          const reason = failed.get(candidateKey(c));
          if (reason === undefined) return true;
          ev.tally.add(plugin, `extender ${ext.name}: ${reason}`);
          return false;
        });
      } catch (err) {
        this.extenderFailed(ev, ext, plugin, err);
      }
    }
    for (const ext of p.extenders) {
      if (!ext.scores || ext.weight === 0 || ev.feasible.length < 2) continue;
      const plugin = `extender/${ext.name}`;
      try {
        const scores = await ext.score(claim, sortedByKey(ev.feasible));
        extra.push({ name: plugin, weight: ext.weight, fn: (c) => scores.get(candidateKey(c)) ?? 0 });
      } catch (err) {
        this.extenderFailed(ev, ext, plugin, err);
      }
    }
    return this.decide(p, ev, extra);
  }

  /** True when the configuration calls extenders (then only the asynchronous schedule() decides). */
  get hasExtenders(): boolean {
    return this.pipeline.extenders.length > 0;
  }

  /** scheduleSync decides without extenders; it throws when the configuration has some. */
  scheduleSync(claim: ClaimInfo, options: ScheduleOptions = {}): ScheduleResult {
    const p = this.pipeline;
    if (p.extenders.length > 0) throw new Error(`scheduleSync cannot call the ${p.extenders.length} configured extender(s): use schedule()`);
    return this.decide(p, this.evaluate(p, claim, options.scan === true, false), []);
  }

  /** explain runs the filters on one candidate: the first that rejects it, or fits. Undefined for an unknown key. */
  explain(claim: ClaimInfo, key: string): CandidateVerdict | undefined {
    const c = this.index.get(key);
    if (c === undefined) return undefined;
    for (const f of this.pipeline.filters) {
      const failure = f.prepare(claim)?.(c);
      if (failure !== undefined) {
        const detail = failureDetail(failure);
        return { fits: false, plugin: f.name, summary: failure.summary, ...(detail === undefined ? {} : { detail }) };
      }
    }
    return { fits: true };
  }

  /** close releases the extenders' connections. */
  close(): void {
    for (const e of this.pipeline.extenders) e.close();
  }

  private build(config: SchedulerConfig): Pipeline {
    const resolved = resolveConfig(config);
    const index = this.index;
    const ctx: PluginContext = {
      systemNamespace: this.systemNamespace,
      regions: new RegionHierarchy(resolved.regions),
      regionMatch: resolved.regionMatch,
      costTiers: new TierOrder(resolved.costTiers),
      performanceTiers: new TierOrder(resolved.performanceTiers),
      portableMatchers: this.portableMatchers,
      ...(this.quota === undefined ? {} : { quota: this.quota }),
      pricing: this.prices.enabled,
      priceOf: (claim, c) => this.prices.priceOf(claim, c),
      providerUsage: (provider) => index.providerUsage(provider),
      classOf: (namespace, name) => {
        const c = index.get(classKey(namespace, name)) ?? index.anyTargetOf(namespace, name);
        return c?.type === 'class' ? c : undefined;
      },
    };
    const filters = effectiveOrder(resolved.filters.map((name) => this.registry.newFilter(name, ctx)));
    const scores = Object.entries(resolved.scoreWeights)
      .filter(([, w]) => w > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, weight]) => ({ plugin: this.registry.newScore(name, ctx), weight }));
    const extenders = resolved.extenders.map((e) => new HttpExtender(e));
    const narrowingFilters = narrowingFiltersOf(filters);
    return {
      config: resolved,
      ctx,
      filters,
      scores,
      extenders,
      explicitName: filters.some((f) => f.narrows === 'name'),
      kindUniverse: filters.some((f) => f.narrows === 'kind'),
      narrowing: {
        ...(narrowingFilters.profile === undefined ? {} : { profile: narrowingFilters.profile.name }),
        ...(narrowingFilters.availability === undefined ? {} : { availability: narrowingFilters.availability.name }),
        ...(narrowingFilters.region === undefined ? {} : { region: narrowingFilters.region.name }),
      },
      narrowingFilters,
    };
  }

  /**
   * evaluate finds the universe, narrows it through the index (unless scanning) and runs the
   * filters: in full on classes and resources reserved for the claim, and on the other
   * resources in key order until `feasibleCandidatesToFind` of them pass (unless `exhaustive`).
   */
  private evaluate(p: Pipeline, claim: ClaimInfo, scan: boolean, exhaustive: boolean): Evaluation {
    const universe: Universe = p.explicitName && claim.resourceName ? 'named' : p.kindUniverse ? 'kind' : 'all';
    const configured = exhaustive ? 0 : p.config.feasibleCandidatesToFind;
    let lookup: Lookup;
    // The filters the lookup's runs have passed already (their buckets are what those filters accept).
    const passed = new Set<FilterPlugin>();
    if (scan || universe !== 'kind') {
      // The scan sorts its run only when the search may stop early in it (the order then matters).
      lookup = this.index.scan(claim, universe, (n) => n > feasibleToFind(configured, n));
    } else {
      const n = p.narrowing;
      const nf = p.narrowingFilters;
      const asked = claim.requirements.region;
      let region: Narrowing['region'];
      if (n.region !== undefined && asked !== undefined && asked.trim() !== '') {
        region = { plugin: n.region, accepted: p.ctx.regions.accepted(asked, p.config.regionMatch), summary: regionMismatch(asked) };
      }
      const narrowing: Narrowing = {
        ...(n.profile === undefined ? {} : { profile: n.profile }),
        ...(n.availability === undefined ? {} : { availability: n.availability }),
        ...(region === undefined ? {} : { region }),
      };
      lookup = this.index.lookup(claim, narrowing);
      if (nf.profile !== undefined) passed.add(nf.profile);
      if (nf.availability !== undefined) passed.add(nf.availability);
      // The region bucket of a resource stating none is ''; the filter rejects such a resource even if '' is accepted.
      if (nf.region !== undefined && region !== undefined && !region.accepted.has('')) passed.add(nf.region);
    }
    const names: string[] = [];
    const fns: CandidateFilter[] = [];
    // Run resources skip the filters in `passed`: runNames/runFns are the rest.
    const runNames: string[] = [];
    const runFns: CandidateFilter[] = [];
    for (const f of p.filters) {
      // The universe's own filter rejects nothing inside it.
      if ((universe === 'kind' && f.narrows === 'kind') || (universe === 'named' && f.narrows === 'name')) continue;
      const fn = f.prepare(claim);
      if (fn === undefined) continue;
      names.push(f.name);
      fns.push(fn);
      if (passed.has(f)) continue;
      runNames.push(f.name);
      runFns.push(fn);
    }
    const tally = new FailureTally();
    for (const e of lookup.excluded) tally.add(e.plugin, e.summary, e.count);
    const feasible: Candidate[] = [];
    let hidden = 0;
    if (universe === 'named') {
      // A named resource the claim may not use is not counted at all (see FilterPlugin.conceals):
      // the concealing filters run first, whatever order the profile gives them.
      const order = names.map((_, i) => i).sort((a, b) => Number(concealing(p, names[b])) - Number(concealing(p, names[a])));
      const oNames = order.map((i) => names[i]);
      const oFns = order.map((i) => fns[i]);
      const hides = oNames.map((n) => concealing(p, n));
      for (const c of lookup.candidates) {
        const verdict = passes(c, oNames, oFns, tally, hides);
        if (verdict === 'hidden') hidden++;
        else if (verdict) feasible.push(c);
      }
    } else {
      for (const c of lookup.candidates) if (passes(c, names, fns, tally) === true) feasible.push(c);
    }
    let searchable = -(lookup.skip?.size ?? 0);
    for (const r of lookup.runs) searchable += r.size;
    const limit = feasibleToFind(configured, searchable);
    let found = 0;
    let checked = 0;
    const complete = forEachInKeyOrder(lookup.runs, lookup.skip, (c) => {
      checked++;
      if (passes(c, runNames, runFns, tally) !== true) return true;
      feasible.push(c);
      return ++found < limit;
    });
    const unchecked = complete ? 0 : searchable - checked;
    return { claim, universe, total: lookup.total - hidden, feasible, unchecked, tally, notes: [] };
  }

  /** decide ranks the feasible candidates and words the result. */
  private decide(p: Pipeline, ev: Evaluation, extra: readonly PreparedScore[]): ScheduleResult {
    const { claim } = ev;
    const notes = ev.notes.length > 0 ? { notes: [...ev.notes] } : {};
    if (ev.feasible.length === 0) {
      const failures = ev.tally.list();
      const hints =
        ev.universe === 'kind' && ev.total > 0 && fitHintsMayApply(failures)
          ? fitHints(claim, this.index.kindFacts(claim.kind), failures, inRegionOf(p, claim))
          : [];
      const { listed: prices, total: priced } = this.prices.compared(claim);
      return {
        decision: { type: 'none' },
        explanation: {
          message: withHints(withPrices(unschedulableMessage(claim, ev.universe, ev.total, failures), prices, priced, claim), hints),
          total: ev.total,
          feasible: 0,
          failures,
          ...(prices.length > 0 ? { prices } : {}),
          ...(hints.length > 0 ? { hints } : {}),
          ...notes,
        },
      };
    }
    // A resource whose claimRef names this claim outranks every score.
    const mine = ev.feasible.filter((c) => c.type === 'resource' && reservedFor(c, claim));
    const pool = mine.length > 0 ? mine : ev.feasible;
    const prepared: PreparedScore[] = [];
    for (const { plugin, weight } of p.scores) {
      const fn = plugin.prepare(claim, pool);
      if (fn !== undefined) prepared.push({ name: plugin.name, weight, fn });
    }
    prepared.push(...extra);
    const n = prepared.length;
    const weights = prepared.map((s) => s.weight);
    const fns = prepared.map((s) => s.fn);
    let best = pool[0];
    let bestTotal = -Infinity;
    for (let i = 0; i < pool.length; i++) {
      const c = pool[i];
      let total = 0;
      for (let j = 0; j < n; j++) total += weights[j] * clampScore(fns[j](c));
      if (total > bestTotal || (total === bestTotal && compareCandidates(c, best) < 0)) {
        best = c;
        bestTotal = total;
      }
    }
    const scores: PluginScore[] = prepared.map((s) => ({ plugin: s.name, score: clampScore(s.fn(best)), weight: s.weight }));
    const failures = ev.tally.list();
    const reserved = mine.length > 0;
    // The winner's price is in the list even when nothing else asked for it (no limit, scored by tiers).
    if (p.ctx.pricing) p.ctx.priceOf(claim, best);
    const { listed: prices, total: priced } = this.prices.compared(claim, best);
    return {
      decision: best.type === 'resource' ? { type: 'resource', candidate: best } : { type: 'class', candidate: best },
      explanation: {
        message: withPrices(
          chosenMessage(best, ev.feasible.length, ev.total, scores, bestTotal, reserved, ev.unchecked, failures, otherTargetsOf(best, ev.feasible)),
          prices,
          priced,
          claim,
        ),
        total: ev.total,
        feasible: ev.feasible.length,
        ...(ev.unchecked > 0 ? { unchecked: ev.unchecked } : {}),
        failures,
        ...(prices.length > 0 ? { prices } : {}),
        scores,
        totalScore: bestTotal,
        ...(reserved ? { reserved } : {}),
        ...notes,
      },
    };
  }

  private extenderFailed(ev: Evaluation, ext: HttpExtender, plugin: string, err: unknown): void {
    const msg = err instanceof Error ? err.message : String(err);
    if (ext.ignorable) {
      ev.notes.push(`extender ${ext.name} skipped: ${msg}`);
      return;
    }
    ev.tally.add(plugin, `extender ${ext.name} unavailable: ${msg}`, ev.feasible.length);
    ev.feasible = [];
  }
}

/** What the profile's Region filter says of a candidate for this claim (every candidate is in it when the filter is off or the claim names no region). */
/** The claim's Region filter's verdict on a stated region (no Region filter, or a claim asking no region: every region). */
function inRegionOf(p: Pipeline, claim: ClaimInfo): InRegion {
  const filter = p.filters.find((f) => f.name === RegionFilter.pluginName);
  const accepts = filter instanceof RegionFilter ? filter.regionCheck(claim) : undefined;
  return accepts ?? (() => true);
}

/** withPrices appends the prices compared (pricesMessage) to a Scheduled message, after `; `. */
function withPrices(message: string, prices: Parameters<typeof pricesMessage>[0], total: number, claim: ClaimInfo): string {
  const words = pricesMessage(prices, claim.requirements.maxMonthlyPrice, total);
  return words === '' ? message : `${message}; ${words}`;
}

/** A score outside 0–100 (or not a number) from a plugin is clamped. */
function clampScore(s: number): number {
  return Number.isNaN(s) ? 0 : s < 0 ? 0 : s > 100 ? 100 : s;
}

/**
 * passes runs the filters on a candidate, counting the first rejection in the tally; it
 * returns whether every filter let the candidate through, or `hidden` when the first
 * rejection came from a filter `hides` marks (then nothing is counted).
 */
function passes(c: Candidate, names: readonly string[], fns: readonly CandidateFilter[], tally: FailureTally, hides?: readonly boolean[]): boolean | 'hidden' {
  for (let i = 0; i < fns.length; i++) {
    const failure = fns[i](c);
    if (failure !== undefined) {
      if (hides?.[i] === true) return 'hidden';
      tally.add(names[i], failure.summary);
      return false;
    }
  }
  return true;
}

/** Whether the pipeline's filter of that name conceals what it rejects from a claim naming a resource. */
function concealing(p: Pipeline, name: string): boolean {
  return p.filters.some((f) => f.name === name && f.conceals === true);
}

/** Where administrators keep classes and resources unless told otherwise. */
export const DEFAULT_SYSTEM_NAMESPACE = 'conductor-system';

/**
 * compareNamespacedNames orders candidates as their `namespace/name` strings would order,
 * without building those strings (the tie-break runs on every candidate of a decision).
 */
function compareNamespacedNames(a: Candidate, b: Candidate): number {
  const x = a.namespace;
  const y = b.namespace;
  if (x === y) return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  const n = x.length < y.length ? x.length : y.length;
  for (let i = 0; i < n; i++) {
    const cx = x.charCodeAt(i);
    const cy = y.charCodeAt(i);
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
  // One namespace starts the other: what follows it ('/' and the name) decides; rare, so spelled out.
  const an = `${x}/${a.name}`;
  const bn = `${y}/${b.name}`;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** Ties break by `namespace/name`, then resources before classes, then key. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  const byName = compareNamespacedNames(a, b);
  if (byName !== 0) return byName;
  if (a.type !== b.type) return a.type === 'resource' ? -1 : 1;
  const ak = candidateKey(a);
  const bk = candidateKey(b);
  return ak < bk ? -1 : ak > bk ? 1 : 0;
}

function sortedByKey(cs: readonly Candidate[]): Candidate[] {
  return cs
    .map((c) => ({ c, k: candidateKey(c) }))
    .sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
    .map((x) => x.c);
}

/** The order the filters the index stands in for always run in, ahead of every other filter. */
const NARROWING_ORDER: readonly IndexNarrowing[] = ['kind', 'name', 'profile', 'availability', 'region'];

/**
 * effectiveOrder puts the filters the index stands in for first (kind, name, profile,
 * availability, region), keeping the configured order among the rest. A candidate failing
 * several filters is counted under the first in this order, so the index's skipped buckets
 * are counted exactly as a scan would count them, whatever order a profile lists.
 */
export function effectiveOrder<T extends { readonly narrows?: IndexNarrowing }>(filters: readonly T[]): T[] {
  const rank = (f: T) => (f.narrows === undefined ? NARROWING_ORDER.length : NARROWING_ORDER.indexOf(f.narrows));
  return filters
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
    .map((x) => x.f);
}

/** narrowingFiltersOf finds the filters the index may skip buckets for, by level: the first of each. */
function narrowingFiltersOf(filters: readonly FilterPlugin[]): Pipeline['narrowingFilters'] {
  const out: { profile?: FilterPlugin; availability?: FilterPlugin; region?: FilterPlugin } = {};
  for (const f of filters) {
    if (f.narrows === 'profile' || f.narrows === 'availability' || f.narrows === 'region') out[f.narrows] ??= f;
  }
  return out;
}

/** otherTargetsOf names the other Providers a winning class placed on several could have used (they fit too), with their regions. */
function otherTargetsOf(winner: Candidate, feasible: readonly Candidate[]): string[] {
  if (winner.type !== 'class' || winner.target === undefined) return [];
  const others: string[] = [];
  for (const c of feasible) {
    if (c === winner || c.type !== 'class' || c.target === undefined || c.namespace !== winner.namespace || c.name !== winner.name) continue;
    others.push(c.capabilities.region === undefined ? c.target : `${c.target} (${c.capabilities.region})`);
  }
  return others.sort();
}
