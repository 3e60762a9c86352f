import type { PluginContext } from '../plugin.js';
import type { Candidate } from '../types.js';

/**
 * providerLoad reads, for the providers of the candidates being ranked, how many claims each
 * serves now, and the largest of those: what Spread and BinPack compare. Candidates in key
 * order mostly share their neighbour's provider, so the last one looked up is remembered.
 */
export function providerLoad(ctx: PluginContext, feasible: readonly Candidate[]): { usage: (c: Candidate) => number; max: number } {
  const usage = new Map<string, number>();
  let max = 0;
  let previous: string | undefined;
  for (let i = 0; i < feasible.length; i++) {
    const p = feasible[i].provider ?? '';
    if (p === previous) continue;
    previous = p;
    if (usage.has(p)) continue;
    const u = ctx.providerUsage(p);
    usage.set(p, u);
    if (u > max) max = u;
  }
  let lastProvider: string | undefined;
  let lastUsage = 0;
  return {
    usage: (c) => {
      const p = c.provider ?? '';
      if (p !== lastProvider) {
        lastProvider = p;
        lastUsage = usage.get(p) ?? 0;
      }
      return lastUsage;
    },
    max,
  };
}
