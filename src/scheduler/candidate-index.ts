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
 */
import { availabilityGroup, availabilitySummary, isClaimSpecific, reservedFor, type AvailabilityGroup } from './availability.js';
import { candidateKey, claimKey, kindKey } from './keys.js';
import { claimProfile, resourceProfile, resourceProfileMismatch } from './profiles.js';
import { normalizeRegion } from './region-hierarchy.js';
import type { Candidate, ClaimInfo, ClassCandidate, ResourceCandidate } from './types.js';

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

/** A Lookup is the candidates to evaluate, how many the universe held, and what was skipped. */
export interface Lookup {
  readonly total: number;
  readonly candidates: Candidate[];
  readonly excluded: Exclusion[];
}

interface Counted<T> {
  count: number;
  readonly children: Map<string, T>;
}
type Leaf = Map<string, ResourceCandidate>;
type GroupBucket = Counted<Leaf>;
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

/** A CandidateIndex holds every candidate and answers lookups for claims. */
export class CandidateIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly kinds = new Map<string, KindBucket>();
  private readonly names = new Map<string, Leaf>();
  private readonly reserved = new Map<string, Leaf>();
  private readonly classes = new Map<string, ClassCandidate>();
  private readonly classesByKind = new Map<string, Map<string, ClassCandidate>>();
  private readonly usage = new Map<string, number>();

  /** The number of candidates. */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): Candidate | undefined {
    return this.entries.get(key)?.candidate;
  }

  /** Every candidate, in no particular order. */
  *values(): IterableIterator<Candidate> {
    for (const e of this.entries.values()) yield e.candidate;
  }

  /** Claims bound to the resources of a provider (`namespace/name`; '' for resources naming none). */
  providerUsage(provider: string): number {
    return this.usage.get(provider) ?? 0;
  }

  /** upsert adds a candidate or replaces the one with the same key; it returns the key. */
  upsert(c: Candidate): string {
    const key = candidateKey(c);
    this.remove(key);
    if (c.type === 'class') {
      const classKinds = unique(c.supportedResources.map(kindKey));
      this.entries.set(key, { candidate: c, classKinds });
      this.classes.set(key, c);
      for (const k of classKinds) {
        let m = this.classesByKind.get(k);
        if (m === undefined) this.classesByKind.set(k, (m = new Map()));
        m.set(key, c);
      }
      return key;
    }
    const placement: Placement = {
      kinds: unique(c.implements.map(kindKey)),
      profile: resourceProfile(c),
      group: availabilityGroup(c),
      region: normalizeRegion(c.capabilities.region ?? ''),
      ...(c.claimRef !== undefined && c.sharing.mode === 'Exclusive' ? { reservedKey: claimKey(c.claimRef) } : {}),
    };
    this.entries.set(key, { candidate: c, placement });
    for (const k of placement.kinds) {
      let kb = this.kinds.get(k);
      if (kb === undefined) this.kinds.set(k, (kb = counted()));
      kb.count++;
      const pb = child(kb, placement.profile, counted<GroupBucket>);
      pb.count++;
      const gb = child(pb, placement.group, counted<Leaf>);
      gb.count++;
      child(gb, placement.region, () => new Map()).set(key, c);
    }
    this.leafOf(this.names, c.name).set(key, c);
    if (placement.reservedKey !== undefined) this.leafOf(this.reserved, placement.reservedKey).set(key, c);
    const p = c.provider ?? '';
    this.usage.set(p, (this.usage.get(p) ?? 0) + c.boundCount);
    return key;
  }

  /** remove takes a candidate out; it returns whether there was one. */
  remove(key: string): boolean {
    const e = this.entries.get(key);
    if (e === undefined) return false;
    this.entries.delete(key);
    const c = e.candidate;
    if (c.type === 'class') {
      this.classes.delete(key);
      for (const k of e.classKinds ?? []) {
        const m = this.classesByKind.get(k);
        m?.delete(key);
        if (m?.size === 0) this.classesByKind.delete(k);
      }
      return true;
    }
    const pl = e.placement!;
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
    this.dropFrom(this.names, c.name, key);
    if (pl.reservedKey !== undefined) this.dropFrom(this.reserved, pl.reservedKey, key);
    const p = c.provider ?? '';
    const u = (this.usage.get(p) ?? 0) - c.boundCount;
    if (u === 0) this.usage.delete(p);
    else this.usage.set(p, u);
    return true;
  }

  /**
   * scan returns every candidate of the universe with nothing skipped: the reference a
   * lookup must agree with. `named`: resources called `claim.resourceName`; `kind`:
   * resources implementing the claim's kind and classes supporting it; `all`: everything.
   */
  scan(claim: ClaimInfo, universe: Universe): Lookup {
    if (universe === 'named') {
      const named = [...(this.names.get(claim.resourceName ?? '')?.values() ?? [])];
      return { total: named.length, candidates: named, excluded: [] };
    }
    if (universe === 'all') return { total: this.entries.size, candidates: [...this.values()], excluded: [] };
    const want = kindKey(claim.kind);
    const out: Candidate[] = [];
    for (const e of this.entries.values()) {
      const kinds = e.placement?.kinds ?? e.classKinds ?? [];
      if (kinds.includes(want)) out.push(e.candidate);
    }
    return { total: out.length, candidates: out, excluded: [] };
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
          expandRegions(gb, n.region, out, exclude);
        }
      }
      // Resources whose claimRef names this claim pass availability whatever their group.
      if (n.availability !== undefined) {
        for (const r of this.reserved.get(claimKey(claim))?.values() ?? []) {
          const pl = this.entries.get(candidateKey(r))!.placement!;
          if (!pl.kinds.includes(kk) || (n.profile !== undefined && pl.profile !== profile)) continue;
          if (pl.group === 'open' || !isClaimSpecific(pl.group) || !reservedFor(r, claim)) continue;
          exclude(n.availability, availabilitySummary(pl.group), -1);
          out.push(r);
        }
      }
    }
    const total = (kb?.count ?? 0) + (classes?.size ?? 0);
    return { total, candidates: out, excluded: [...excluded.values()].filter((e) => e.count > 0) };
  }

  private leafOf(m: Map<string, Leaf>, k: string): Leaf {
    let leaf = m.get(k);
    if (leaf === undefined) m.set(k, (leaf = new Map()));
    return leaf;
  }

  private dropFrom(m: Map<string, Leaf>, k: string, key: string): void {
    const leaf = m.get(k);
    leaf?.delete(key);
    if (leaf?.size === 0) m.delete(k);
  }
}

/** expandRegions adds a group's resources in the accepted regions (all without narrowing) and counts the others. */
function expandRegions(
  gb: GroupBucket,
  region: Narrowing['region'],
  out: Candidate[],
  exclude: (plugin: string, summary: string, count: number) => void,
): void {
  if (region === undefined) {
    for (const leaf of gb.children.values()) for (const c of leaf.values()) out.push(c);
    return;
  }
  let inside = 0;
  if (region.accepted.size < gb.children.size) {
    for (const r of region.accepted.keys()) {
      const leaf = gb.children.get(r);
      if (leaf === undefined) continue;
      for (const c of leaf.values()) out.push(c);
      inside += leaf.size;
    }
  } else {
    for (const [r, leaf] of gb.children) {
      if (!region.accepted.has(r)) continue;
      for (const c of leaf.values()) out.push(c);
      inside += leaf.size;
    }
  }
  exclude(region.plugin, region.summary, gb.count - inside);
}
