/**
 * What fit hints need to know of the candidates of one claim kind, kept up to date as candidates
 * come and go (CandidateIndex keeps one KindFacts per kind), so that no decision walks the kind:
 * the regions stated and the profiles offered (each with how many candidates state it), how many
 * classes are the default, and per capacity dimension the largest amount offered with how many
 * candidates offer exactly that, and how many classes state an amount (the others make what is
 * asked). When the last candidate holding a dimension's largest amount leaves, the largest is
 * worked out again from the kind's candidates the next time it is asked — the only walk.
 */
import type { Quantity } from '../machinery/quantity/index.js';
import { available } from './plugins/capacity.js';
import { resourceProfile } from './profiles.js';
import type { Candidate } from './types.js';

/** The largest amount of one dimension offered among a kind's candidates. */
export interface Amount {
  readonly largest: Quantity | undefined;
  /** Whether a class states no amount (and so makes whatever is asked). */
  readonly unlimited: boolean;
}

/** What fit hints read of a kind (KindFacts keeps it current; factsOf works it out once). */
export interface KindView {
  /** The regions stated ('' for candidates stating none). */
  regions(): Iterable<string>;
  /** The profiles offered (non-empty). */
  profiles(): Iterable<string>;
  hasProfile(profile: string): boolean;
  hasDefaultClass(): boolean;
  amount(dim: string): Amount;
}

interface Tracked {
  largest: Quantity | undefined;
  /** How many candidates offer exactly `largest`; 0 with `stale`: the last one left. */
  holders: number;
  stale: boolean;
}

function bump(m: Map<string, number>, k: string, by: number): void {
  const n = (m.get(k) ?? 0) + by;
  if (n === 0) m.delete(k);
  else m.set(k, n);
}

function profileOf(c: Candidate): string {
  return c.type === 'class' ? c.profile : resourceProfile(c);
}

/** offer counts one candidate's amount into a dimension's largest and its holders. */
function offer(t: Tracked, have: Quantity): void {
  const order = t.largest === undefined ? 1 : have.cmp(t.largest);
  if (order > 0) {
    t.largest = have;
    t.holders = 1;
  } else if (order === 0) t.holders++;
}

/** The dimensions a candidate offers an amount of (`available` is defined for exactly these). */
function dimensionsOf(c: Candidate): string[] {
  const dims = Object.keys(c.capabilities.capacity);
  if (c.type === 'resource' && c.sharing.mode === 'Shared' && c.allocatable !== undefined) {
    for (const d of Object.keys(c.allocatable)) if (!dims.includes(d)) dims.push(d);
  }
  return dims;
}

/** KindFacts is the running account of one kind's candidates. */
export class KindFacts implements KindView {
  private readonly regionCounts = new Map<string, number>();
  private readonly profileCounts = new Map<string, number>();
  private defaultClasses = 0;
  private classCount = 0;
  /** Per dimension, how many classes state an amount of it (the others make whatever is asked). */
  private readonly classesWith = new Map<string, number>();
  /** Per dimension offered, the largest amount and how many offer it. */
  private readonly amounts = new Map<string, Tracked>();

  /** `walk` visits every candidate of the kind (to find the largest amount again once its last holder left). */
  constructor(private readonly walk: (visit: (c: Candidate) => void) => void) {}

  add(c: Candidate): void {
    this.count(c, 1);
    for (const dim of dimensionsOf(c)) {
      const have = available(c, dim)!;
      let t = this.amounts.get(dim);
      if (t === undefined) this.amounts.set(dim, (t = { largest: undefined, holders: 0, stale: false }));
      if (!t.stale) offer(t, have); // a stale one is worked out from every candidate when next asked
    }
  }

  remove(c: Candidate): void {
    this.count(c, -1);
    for (const dim of dimensionsOf(c)) {
      const t = this.amounts.get(dim);
      if (t === undefined || t.stale || t.largest === undefined) continue;
      if (available(c, dim)!.cmp(t.largest) === 0 && --t.holders === 0) t.stale = true;
    }
  }

  regions(): Iterable<string> {
    return this.regionCounts.keys();
  }

  profiles(): Iterable<string> {
    return this.profileCounts.keys();
  }

  hasProfile(profile: string): boolean {
    return this.profileCounts.has(profile);
  }

  hasDefaultClass(): boolean {
    return this.defaultClasses > 0;
  }

  amount(dim: string): Amount {
    const unlimited = this.classCount - (this.classesWith.get(dim) ?? 0) > 0;
    const t = this.amounts.get(dim);
    if (t === undefined) return { largest: undefined, unlimited };
    if (t.stale) {
      t.largest = undefined;
      t.holders = 0;
      t.stale = false;
      this.walk((c) => {
        const have = available(c, dim);
        if (have !== undefined) offer(t, have);
      });
      if (t.holders === 0) {
        this.amounts.delete(dim);
        return { largest: undefined, unlimited };
      }
    }
    return { largest: t.largest, unlimited };
  }

  private count(c: Candidate, by: number): void {
    bump(this.regionCounts, c.capabilities.region ?? '', by);
    const profile = profileOf(c);
    if (profile !== '') bump(this.profileCounts, profile, by);
    if (c.type === 'class') {
      this.classCount += by;
      if (c.isDefault) this.defaultClasses += by;
      for (const dim of Object.keys(c.capabilities.capacity)) bump(this.classesWith, dim, by);
    }
  }
}

/** factsOf works out a KindView from a list of candidates, once (for a caller holding the list). */
export function factsOf(candidates: readonly Candidate[]): KindView {
  const facts = new KindFacts((visit) => candidates.forEach(visit));
  for (const c of candidates) facts.add(c);
  return facts;
}
