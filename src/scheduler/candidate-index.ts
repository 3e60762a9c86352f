/**
 * The candidate set, indexed so a decision touches only the candidates that can matter.
 *
 * Resources sit in nested buckets: claim kind they implement → profile → availability group
 * → region, each level with its count. A lookup walks only the buckets the claim's kind,
 * profile, availability and region allow, and counts every bucket it skips as rejections
 * by the filter that would have rejected them, so the explanation is the same as a scan's
 * while the work is proportional to what the index lets through. Classes (few) are indexed
 * by the claim kinds they support and always evaluated in full. Buckets are maintained
 * incrementally by `upsert` and `remove`.
 *
 * The resources a lookup lets through come as sorted runs (each region bucket keeps its
 * resources in key order in a ChunkedSortedMap, so taking one out on every bind stays cheap
 * with thousands in the bucket), which `forEachInKeyOrder` merges into one key order: a
 * search that stops early (the scheduler's `feasibleCandidatesToFind`) then sees the same
 * candidates for the same contents, whatever order they were added in.
 */
import { availabilityGroup, availabilitySummary, isClaimSpecific, reservedFor, type AvailabilityGroup } from './availability.js';
import { ChunkedSortedMap } from './chunked-sorted-map.js';
import { KindFacts, type KindView } from './kind-facts.js';
import { candidateKey, claimKey, classKey, kindKey } from './keys.js';
import { claimProfile, resourceProfile, resourceProfileMismatch } from './profiles.js';
import { normalizeRegion } from './region-hierarchy.js';
import { ArrayRun, forEachInKeyOrder, type SortedRun } from './sorted-runs.js';
import type { Candidate, ClaimInfo, ClassCandidate, GroupKind, ResourceCandidate } from './types.js';

export { ArrayRun, forEachInKeyOrder, type SortedRun } from './sorted-runs.js';

/** Which candidates a decision starts from (before any filter counts a rejection). */
export type Universe = 'named' | 'kind' | 'all';

/** A Narrowing says which levels a lookup may skip, and in whose name the skipped are counted. */
export interface Narrowing {
  /** The filter rejecting other profiles, when the index may narrow by profile. */
  readonly profile?: string;
  /** The filter rejecting unavailable resources, when the index may narrow by availability. */
  readonly availability?: string;
  /** The filter rejecting other regions, the regions it accepts and its explanation text. */
  readonly region?: { readonly plugin: string; readonly accepted: ReadonlyMap<string, number>; readonly summary: string };
}

/** An Exclusion is a count of candidates the index skipped on a filter's behalf. */
export interface Exclusion {
  readonly plugin: string;
  readonly summary: string;
  readonly count: number;
}

/**
 * A Lookup is the candidates to evaluate, how many the universe held, and what was skipped.
 * `candidates` (classes, resources reserved for the claim, a named universe) are always
 * evaluated in full; `runs` are the other resources, which a search may stop early in; keys
 * in `skip` appear in `runs` as well as in `candidates` and are evaluated only there.
 */
export interface Lookup {
  readonly total: number;
  readonly candidates: Candidate[];
  readonly runs: readonly SortedRun[];
  readonly skip?: ReadonlySet<string>;
  readonly excluded: Exclusion[];
}

/** lookupSize is how many distinct candidates a lookup yields. */
export function lookupSize(l: Lookup): number {
  let n = l.candidates.length;
  for (const r of l.runs) n += r.size;
  return n - (l.skip?.size ?? 0);
}

/** lookupCandidates lists every candidate a lookup yields, the always-evaluated first, then the runs in key order. */
export function lookupCandidates(l: Lookup): Candidate[] {
  const out: Candidate[] = [...l.candidates];
  forEachInKeyOrder(l.runs, l.skip, (c) => {
    out.push(c);
    return true;
  });
  return out;
}

interface Counted<T> {
  count: number;
  readonly children: Map<string, T>;
}
type Leaf = Map<string, ResourceCandidate>;
/** A RegionLeaf holds a bucket's resources in key order. */
type RegionLeaf = ChunkedSortedMap<ResourceCandidate>;
type GroupBucket = Counted<RegionLeaf>;
type ProfileBucket = Counted<GroupBucket>;
type KindBucket = Counted<ProfileBucket>;

/** Where a resource sits, remembered so it can be taken out again. */
interface Placement {
  readonly kinds: readonly string[];
  readonly profile: string;
  readonly group: AvailabilityGroup;
  readonly region: string;
  readonly reservedKey?: string;
}

interface Entry {
  readonly candidate: Candidate;
  readonly placement?: Placement;
  readonly classKinds?: readonly string[];
}

function counted<T>(): Counted<T> {
  return { count: 0, children: new Map() };
}

function child<T>(parent: Counted<T>, key: string, make: () => T): T {
  let c = parent.children.get(key);
  if (c === undefined) {
    c = make();
    parent.children.set(key, c);
  }
  return c;
}

function unique(keys: Iterable<string>): string[] {
  return [...new Set(keys)];
}

/** placementOf says which buckets a resource goes in. */
function placementOf(c: ResourceCandidate): Placement {
  const kinds = c.implements.length === 1 ? [kindKey(c.implements[0])] : unique(c.implements.map(kindKey));
  const profile = resourceProfile(c);
  const group = availabilityGroup(c);
  const region = normalizeRegion(c.capabilities.region ?? '');
  return c.claimRef !== undefined && c.sharing.mode === 'Exclusive'
    ? { kinds, profile, group, region, reservedKey: claimKey(c.claimRef) }
    : { kinds, profile, group, region };
}

/** sameBuckets says whether two placements put a resource in the same region buckets. */
function sameBuckets(a: Placement, b: Placement): boolean {
  if (a.profile !== b.profile || a.group !== b.group || a.region !== b.region || a.kinds.length !== b.kinds.length) return false;
  for (let i = 0; i < a.kinds.length; i++) if (a.kinds[i] !== b.kinds[i]) return false;
  return true;
}

/** A CandidateIndex holds every candidate and answers lookups for claims. */
export class CandidateIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly kinds = new Map<string, KindBucket>();
  private readonly names = new Map<string, Leaf>();
  private readonly reserved = new Map<string, Leaf>();
  private readonly classes = new Map<string, ClassCandidate>();
  private readonly classesByKind = new Map<string, Map<string, ClassCandidate>>();
  /** What each claim kind's candidates offer, kept as they come and go (for fit hints). */
  private readonly facts = new Map<string, KindFacts>();
  private readonly usage = new Map<string, number>();

  /** The number of candidates. */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): Candidate | undefined {
    return this.entries.get(key)?.candidate;
  }

  /** anyTargetOf is one candidate of a class placed on several Providers (they differ only in the Provider's region and capabilities). */
  anyTargetOf(namespace: string, name: string): Candidate | undefined {
    const prefix = `${classKey(namespace, name)}@`;
    for (const [key, c] of this.classes) if (key.startsWith(prefix)) return c;
    return undefined;
  }

  /** Every candidate, in no particular order. */
  *values(): IterableIterator<Candidate> {
    for (const e of this.entries.values()) yield e.candidate;
  }

  /** Claims bound to the resources of a provider (`namespace/name`; '' for resources naming none). */
  providerUsage(provider: string): number {
    return this.usage.get(provider) ?? 0;
  }

  /**
   * upsert adds a candidate or replaces the one with the same key; it returns the key. A
   * resource replacing one in the same buckets (only its claimRef's or phase's details
   * changed) is replaced where it sits; otherwise it moves.
   */
  upsert(c: Candidate): string {
    const key = candidateKey(c);
    const old = this.entries.get(key);
    // A resource replacing a resource of the same name (keys join names with '/', so a name may differ) is updated.
    if (c.type === 'class' || old === undefined || old.candidate.type === 'class' || old.candidate.name !== c.name) {
      this.remove(key);
      if (c.type === 'class') this.addClass(key, c);
      else this.addResource(key, c, placementOf(c));
      return key;
    }
    const was = old.candidate;
    const from = old.placement!;
    for (const k of from.kinds) this.factsOf(k).remove(was);
    let to = placementOf(c);
    if (sameBuckets(from, to)) {
      to = from.reservedKey === to.reservedKey ? from : to;
      for (const k of to.kinds) this.kinds.get(k)!.children.get(to.profile)!.children.get(to.group)!.children.get(to.region)!.set(key, c);
    } else {
      this.unplace(key, from);
      this.place(key, c, to);
    }
    this.names.get(c.name)!.set(key, c);
    if (from.reservedKey !== to.reservedKey) {
      if (from.reservedKey !== undefined) this.dropFrom(this.reserved, from.reservedKey, key);
      if (to.reservedKey !== undefined) this.leafOf(this.reserved, to.reservedKey).set(key, c);
    } else if (to.reservedKey !== undefined) {
      this.reserved.get(to.reservedKey)!.set(key, c);
    }
    this.addUsage(was.provider ?? '', -was.boundCount);
    this.addUsage(c.provider ?? '', c.boundCount);
    this.entries.set(key, { candidate: c, placement: to });
    for (const k of to.kinds) this.factsOf(k).add(c);
    for (const k of from.kinds) this.dropFactsIfEmpty(k);
    return key;
  }

  /** remove takes a candidate out; it returns whether there was one. */
  remove(key: string): boolean {
    const e = this.entries.get(key);
    if (e === undefined) return false;
    const kinds = e.placement?.kinds ?? e.classKinds ?? [];
    for (const k of kinds) this.factsOf(k).remove(e.candidate);
    this.removeEntry(key, e);
    for (const k of kinds) this.dropFactsIfEmpty(k);
    return true;
  }

  private removeEntry(key: string, e: Entry): void {
    this.entries.delete(key);
    const c = e.candidate;
    if (c.type === 'class') {
      this.classes.delete(key);
      for (const k of e.classKinds ?? []) {
        const m = this.classesByKind.get(k);
        m?.delete(key);
        if (m?.size === 0) this.classesByKind.delete(k);
      }
      return;
    }
    const pl = e.placement!;
    this.unplace(key, pl);
    this.dropFrom(this.names, c.name, key);
    if (pl.reservedKey !== undefined) this.dropFrom(this.reserved, pl.reservedKey, key);
    this.addUsage(c.provider ?? '', -c.boundCount);
  }

  private addClass(key: string, c: ClassCandidate): void {
    const classKinds = unique(c.supportedResources.map(kindKey));
    this.entries.set(key, { candidate: c, classKinds });
    this.classes.set(key, c);
    for (const k of classKinds) this.factsOf(k).add(c);
    for (const k of classKinds) {
      let m = this.classesByKind.get(k);
      if (m === undefined) this.classesByKind.set(k, (m = new Map<string, ClassCandidate>()));
      m.set(key, c);
    }
  }

  private addResource(key: string, c: ResourceCandidate, placement: Placement): void {
    this.entries.set(key, { candidate: c, placement });
    this.place(key, c, placement);
    for (const k of placement.kinds) this.factsOf(k).add(c);
    this.leafOf(this.names, c.name).set(key, c);
    if (placement.reservedKey !== undefined) this.leafOf(this.reserved, placement.reservedKey).set(key, c);
    this.addUsage(c.provider ?? '', c.boundCount);
  }

  /** place puts a resource in its buckets, one per claim kind it implements. */
  private place(key: string, c: ResourceCandidate, placement: Placement): void {
    for (const k of placement.kinds) {
      let kb = this.kinds.get(k);
      if (kb === undefined) this.kinds.set(k, (kb = counted()));
      kb.count++;
      const pb = child(kb, placement.profile, counted<GroupBucket>);
      pb.count++;
      const gb = child(pb, placement.group, counted<RegionLeaf>);
      gb.count++;
      child(gb, placement.region, () => new ChunkedSortedMap<ResourceCandidate>()).set(key, c);
    }
  }

  /** unplace takes a resource out of its buckets, dropping the buckets it leaves empty. */
  private unplace(key: string, pl: Placement): void {
    for (const k of pl.kinds) {
      const kb = this.kinds.get(k)!;
      const pb = kb.children.get(pl.profile)!;
      const gb = pb.children.get(pl.group)!;
      const leaf = gb.children.get(pl.region)!;
      leaf.delete(key);
      if (leaf.size === 0) gb.children.delete(pl.region);
      if (--gb.count === 0) pb.children.delete(pl.group);
      if (--pb.count === 0) kb.children.delete(pl.profile);
      if (--kb.count === 0) this.kinds.delete(k);
    }
  }

  private addUsage(provider: string, delta: number): void {
    if (delta === 0) return;
    const u = (this.usage.get(provider) ?? 0) + delta;
    if (u === 0) this.usage.delete(provider);
    else this.usage.set(provider, u);
  }

  /** What the candidates of a claim kind offer, for fit hints (kind-facts.ts); kept current, never walked per call. */
  kindFacts(kind: GroupKind): KindView {
    return this.factsOf(kindKey(kind));
  }

  private factsOf(kk: string): KindFacts {
    let f = this.facts.get(kk);
    if (f === undefined) {
      f = new KindFacts((visit) => this.eachOfKind(kk, visit));
      this.facts.set(kk, f);
    }
    return f;
  }

  /** A kind left with no candidate keeps no account (kinds come and go with CRDs and classes). */
  private dropFactsIfEmpty(kk: string): void {
    if (!this.kinds.has(kk) && !this.classesByKind.has(kk)) this.facts.delete(kk);
  }

  /** eachOfKind visits the classes supporting a kind, then the resources implementing it. */
  private eachOfKind(kk: string, visit: (c: Candidate) => void): void {
    for (const c of this.classesByKind.get(kk)?.values() ?? []) visit(c);
    const each = (c: ResourceCandidate) => {
      visit(c);
      return true;
    };
    for (const pb of this.kinds.get(kk)?.children.values() ?? []) {
      for (const gb of pb.children.values()) for (const leaf of gb.children.values()) leaf.forEach(each);
    }
  }

  /**
   * scan returns every candidate of the universe with nothing skipped: the reference a
   * lookup must agree with. `named`: resources called `claim.resourceName`; `kind`:
   * resources implementing the claim's kind and classes supporting it; `all`: everything.
   * Classes and resources reserved for the claim are always evaluated; the other resources
   * form one run, sorted by key unless `sortIf(its length)` says no (a search can only stop
   * early in a sorted run; sorting one it will not stop in is wasted).
   */
  scan(claim: ClaimInfo, universe: Universe, sortIf: (searchable: number) => boolean = () => true): Lookup {
    if (universe === 'named') {
      const named = [...(this.names.get(claim.resourceName ?? '')?.values() ?? [])];
      return { total: named.length, candidates: named, runs: [], excluded: [] };
    }
    const want = kindKey(claim.kind);
    const always: Candidate[] = [];
    let run: { k: string; c: ResourceCandidate }[] = [];
    let total = 0;
    for (const [k, e] of this.entries) {
      if (universe === 'kind' && !(e.placement?.kinds ?? e.classKinds ?? []).includes(want)) continue;
      total++;
      const c = e.candidate;
      if (c.type === 'class' || reservedFor(c, claim)) always.push(c);
      else run.push({ k, c });
    }
    const sorted = sortIf(run.length);
    if (sorted) run = run.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    const r = new ArrayRun(
      run.map((x) => x.k),
      run.map((x) => x.c),
      sorted,
    );
    return { total, candidates: always, runs: run.length === 0 ? [] : [r], excluded: [] };
  }

  /**
   * lookup returns the candidates of the claim's kind the narrowing lets through, and
   * counts the rest as exclusions. Its result, once the filters run, equals scan's.
   */
  lookup(claim: ClaimInfo, n: Narrowing): Lookup {
    const kk = kindKey(claim.kind);
    const kb = this.kinds.get(kk);
    const classes = this.classesByKind.get(kk);
    const out: Candidate[] = classes === undefined ? [] : [...classes.values()];
    const runs: SortedRun[] = [];
    let skip: Set<string> | undefined;
    const excluded = new Map<string, { plugin: string; summary: string; count: number }>();
    const exclude = (plugin: string, summary: string, count: number) => {
      if (count === 0) return;
      const k = `${plugin}\0${summary}`;
      const e = excluded.get(k);
      if (e === undefined) excluded.set(k, { plugin, summary, count });
      else e.count += count;
    };
    if (kb !== undefined) {
      const profile = claimProfile(claim);
      let profiles: Iterable<ProfileBucket>;
      if (n.profile !== undefined) {
        const pb = kb.children.get(profile);
        exclude(n.profile, resourceProfileMismatch(claim), kb.count - (pb?.count ?? 0));
        profiles = pb === undefined ? [] : [pb];
      } else {
        profiles = kb.children.values();
      }
      for (const pb of profiles) {
        for (const [g, gb] of pb.children) {
          const group = g as AvailabilityGroup;
          if (n.availability !== undefined && group !== 'open') {
            exclude(n.availability, availabilitySummary(group), gb.count);
            continue;
          }
          expandRegions(gb, n.region, runs, exclude);
        }
      }
      // Resources whose claimRef names this claim pass availability whatever their group,
      // and are always evaluated (an early stop must not miss them).
      for (const r of this.reserved.get(claimKey(claim))?.values() ?? []) {
        const key = candidateKey(r);
        const pl = this.entries.get(key)!.placement!;
        if (!pl.kinds.includes(kk) || (n.profile !== undefined && pl.profile !== profile)) continue;
        if (pl.group === 'open' || !isClaimSpecific(pl.group) || !reservedFor(r, claim)) continue;
        if (n.availability !== undefined) {
          exclude(n.availability, availabilitySummary(pl.group), -1);
        } else {
          // Not narrowed by availability: it is in a run already, unless its region was skipped.
          if (n.region !== undefined && !n.region.accepted.has(pl.region)) continue;
          (skip ??= new Set()).add(key);
        }
        out.push(r);
      }
    }
    const total = (kb?.count ?? 0) + (classes?.size ?? 0);
    return { total, candidates: out, runs, ...(skip === undefined ? {} : { skip }), excluded: [...excluded.values()].filter((e) => e.count > 0) };
  }

  private leafOf(m: Map<string, Leaf>, k: string): Leaf {
    let leaf = m.get(k);
    if (leaf === undefined) m.set(k, (leaf = new Map<string, ResourceCandidate>()));
    return leaf;
  }

  private dropFrom(m: Map<string, Leaf>, k: string, key: string): void {
    const leaf = m.get(k);
    leaf?.delete(key);
    if (leaf?.size === 0) m.delete(k);
  }
}

/** expandRegions adds a group's region leaves in the accepted regions (all without narrowing) and counts the others. */
function expandRegions(
  gb: GroupBucket,
  region: Narrowing['region'],
  runs: SortedRun[],
  exclude: (plugin: string, summary: string, count: number) => void,
): void {
  if (region === undefined) {
    for (const leaf of gb.children.values()) runs.push(leaf);
    return;
  }
  let inside = 0;
  if (region.accepted.size < gb.children.size) {
    for (const r of region.accepted.keys()) {
      const leaf = gb.children.get(r);
      if (leaf === undefined) continue;
      runs.push(leaf);
      inside += leaf.size;
    }
  } else {
    for (const [r, leaf] of gb.children) {
      if (!region.accepted.has(r)) continue;
      runs.push(leaf);
      inside += leaf.size;
    }
  }
  exclude(region.plugin, region.summary, gb.count - inside);
}
