import type { PluginContext } from '../plugin.js';
import type { Candidate } from '../types.js';

/**
 * providerLoad reads, for the providers of the candidates being ranked, how many claims each
 * serves now, and the largest of those: what Spread and BinPack compare.
 */
export function providerLoad(ctx: PluginContext, feasible: readonly Candidate[]): { usage: (c: Candidate) => number; max: number } {
  const usage = new Map<string, number>();
  let max = 0;
  for (const c of feasible) {
    const p = c.provider ?? '';
    if (usage.has(p)) continue;
    const u = ctx.providerUsage(p);
    usage.set(p, u);
    if (u > max) max = u;
  }
  return { usage: (c) => usage.get(c.provider ?? '') ?? 0, max };
}
