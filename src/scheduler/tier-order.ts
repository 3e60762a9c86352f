/**
 * Ordered tiers (cost: cheapest first; performance: slowest first) set by an administrator.
 */

/** A TierOrder ranks tier names; names are compared trimmed and case-insensitively. */
export class TierOrder {
  private readonly ranks = new Map<string, number>();
  private readonly distinct: number;

  constructor(readonly tiers: readonly string[] = []) {
    for (const t of tiers) {
      const k = normalizeTier(t);
      if (!this.ranks.has(k)) this.ranks.set(k, this.ranks.size);
    }
    this.distinct = this.ranks.size;
    // Names as written are looked up first, sparing the normalization on the common path.
    tiers.forEach((t) => {
      if (!this.ranks.has(t)) this.ranks.set(t, this.ranks.get(normalizeTier(t))!);
    });
  }

  /** The number of distinct tiers. */
  get size(): number {
    return this.distinct;
  }

  /** The tier's position (0 = first), or undefined when the tier is not in the list. */
  rank(tier: string | undefined): number | undefined {
    return tier === undefined ? undefined : (this.ranks.get(tier) ?? this.ranks.get(normalizeTier(tier)));
  }

  /**
   * Compares an offered tier with an asked one: negative when it comes earlier in the list,
   * 0 when it is the same, positive when later, and undefined when they cannot be compared
   * (one is not in the list and they are not the same name).
   */
  compare(offered: string | undefined, asked: string): number | undefined {
    if (offered === undefined) return undefined;
    const a = this.rank(offered);
    const b = this.rank(asked);
    if (a !== undefined && b !== undefined) return a - b;
    return normalizeTier(offered) === normalizeTier(asked) ? 0 : undefined;
  }
}

function normalizeTier(t: string): string {
  return t.trim().toLowerCase();
}
