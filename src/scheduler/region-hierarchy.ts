/**
 * The region hierarchy an administrator configures (`north-america` ⊃ `us-east-1`, ...) and
 * the set of candidate regions each asked region accepts.
 */
import type { RegionMatch } from './types.js';

/** normalizeRegion is how regions are compared: trimmed and lower-cased. */
export function normalizeRegion(region: string): string {
  return region.trim().toLowerCase();
}

/**
 * A RegionHierarchy does the region arithmetic of the Region filter, the Locality score and
 * the index. A region may have several parents; cycles are tolerated (each region is
 * visited once).
 */
export class RegionHierarchy {
  private readonly children = new Map<string, string[]>();
  private readonly parents = new Map<string, string[]>();
  private readonly cache = new Map<string, ReadonlyMap<string, number>>();

  /** tree maps a parent region to its children. */
  constructor(tree: Readonly<Record<string, readonly string[]>> = {}) {
    for (const [parent, kids] of Object.entries(tree)) {
      const p = normalizeRegion(parent);
      for (const kid of kids) {
        const k = normalizeRegion(kid);
        if (k === p) continue;
        push(this.children, p, k);
        push(this.parents, k, p);
      }
    }
  }

  /** The regions below `region` with their depth (1 = a child). */
  descendants(region: string): Map<string, number> {
    return walk(normalizeRegion(region), this.children);
  }

  /** The regions above `region` with their distance (1 = a parent). */
  ancestors(region: string): Map<string, number> {
    return walk(normalizeRegion(region), this.parents);
  }

  /**
   * The candidate regions a claim asking `region` accepts, each with its relation: 0 the
   * region itself, +d a region d levels below, -d (only with `overlapping`) d levels above.
   * Computed once per region and mode.
   */
  accepted(region: string, mode: RegionMatch): ReadonlyMap<string, number> {
    const r = normalizeRegion(region);
    const cacheKey = `${mode}\0${r}`;
    let m = this.cache.get(cacheKey);
    if (m === undefined) {
      const out = new Map<string, number>();
      if (mode === 'overlapping') for (const [a, d] of this.ancestors(r)) out.set(a, -d);
      for (const [c, d] of this.descendants(r)) out.set(c, d);
      out.set(r, 0);
      m = out;
      this.cache.set(cacheKey, m);
    }
    return m;
  }
}

function push(m: Map<string, string[]>, k: string, v: string): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else if (!list.includes(v)) list.push(v);
}

/** Breadth-first from `start` over `edges`: each reachable region with its shortest distance. */
function walk(start: string, edges: ReadonlyMap<string, readonly string[]>): Map<string, number> {
  const out = new Map<string, number>();
  let frontier = [start];
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const r of frontier) {
      for (const n of edges.get(r) ?? []) {
        if (n === start || out.has(n)) continue;
        out.set(n, depth);
        next.push(n);
      }
    }
    frontier = next;
  }
  return out;
}

/** regionMismatch is the explanation text for candidates outside the asked region (filter and index alike). */
export function regionMismatch(asked: string): string {
  return `region mismatch (want ${asked})`;
}
