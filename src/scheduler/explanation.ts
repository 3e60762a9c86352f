/**
 * The words of a decision: rejections counted by reason, and the one-line messages a
 * claim's Scheduled condition carries.
 */
import { formatKind } from './keys.js';
import type { Candidate, ClaimInfo, FailureCount, PluginScore } from './types.js';
import type { Universe } from './candidate-index.js';

/** How many reasons a message lists before it sums up the rest. */
export const MAX_LISTED_REASONS = 8;

/** A FailureTally counts rejections by (plugin, summary). */
export class FailureTally {
  /** plugin → summary → count. */
  private readonly counts = new Map<string, Map<string, { plugin: string; summary: string; count: number }>>();

  add(plugin: string, summary: string, count = 1): void {
    if (count === 0) return;
    let bySummary = this.counts.get(plugin);
    if (bySummary === undefined) this.counts.set(plugin, (bySummary = new Map<string, { plugin: string; summary: string; count: number }>()));
    const e = bySummary.get(summary);
    if (e === undefined) bySummary.set(summary, { plugin, summary, count });
    else e.count += count;
  }

  /** The counts, most frequent first, then by summary and plugin. */
  list(): FailureCount[] {
    return [...this.counts.values()]
      .flatMap((m) => [...m.values()])
      .filter((e) => e.count > 0)
      .sort((a, b) => b.count - a.count || cmp(a.summary, b.summary) || cmp(a.plugin, b.plugin))
      .map((e) => ({ ...e }));
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** formatFailures lists reasons as `5 insufficient storage (want 25Gi), 4 region mismatch (want us-east-1)`. */
export function formatFailures(failures: readonly FailureCount[]): string {
  const listed = failures.slice(0, MAX_LISTED_REASONS).map((f) => `${f.count} ${f.summary}`);
  const rest = failures.slice(MAX_LISTED_REASONS);
  if (rest.length > 0) {
    const n = rest.reduce((s, f) => s + f.count, 0);
    listed.push(`${n} for ${rest.length} other reason${rest.length === 1 ? '' : 's'}`);
  }
  return listed.join(', ');
}

/** unschedulableMessage says why nothing fits, e.g. `0/12 candidates: 5 insufficient storage (want 25Gi), 7 already bound`. */
export function unschedulableMessage(claim: ClaimInfo, universe: Universe, total: number, failures: readonly FailureCount[]): string {
  if (total === 0) {
    switch (universe) {
      case 'named':
        return `0/0 candidates: no resource named ${JSON.stringify(claim.resourceName ?? '')}`;
      case 'kind':
        return `0/0 candidates: no resource implements ${formatKind(claim.kind)} and no class supports it`;
      case 'all':
        return '0/0 candidates: none registered';
      default: {
        const never: never = universe;
        return never;
      }
    }
  }
  const reasons = formatFailures(failures);
  return `0/${total} candidates${reasons === '' ? '' : `: ${reasons}`}`;
}

/** describeCandidate names a candidate for people: `RDSInstance conductor-system/rds-1`, `class conductor-system/fast (creates RDSInstance)`. */
export function describeCandidate(c: Candidate): string {
  if (c.type === 'resource') return `${c.kind.kind} ${c.namespace}/${c.name}`;
  const on = c.target === undefined ? '' : ` on Provider ${c.target}${c.capabilities.region === undefined ? '' : ` (${c.capabilities.region})`}`;
  return `class ${c.namespace}/${c.name}${on} (creates ${c.templateKind.kind})`;
}

/** formatScore prints a score total with at most two decimals. */
export function formatScore(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/**
 * chosenMessage says what was chosen and why, e.g.
 * `3/12 candidates fit; chose RDSInstance conductor-system/rds-1: StaticFirst 100×100, LeastWaste 50×3 = 10150`,
 * or when the search stopped early `100/10000 candidates fit (9850 unchecked); chose ...`;
 * the rejections follow, e.g. `...; rejected: 1 region europe-west does not satisfy north-america`.
 */
export function chosenMessage(
  winner: Candidate,
  feasible: number,
  total: number,
  scores: readonly PluginScore[],
  totalScore: number,
  reserved: boolean,
  unchecked = 0,
  failures: readonly FailureCount[] = [],
  otherTargets: readonly string[] = [],
): string {
  let msg = `${feasible}/${total} candidates fit${unchecked > 0 ? ` (${unchecked} unchecked)` : ''}; chose ${describeCandidate(winner)}`;
  if (reserved) msg += ' (reserved for this claim)';
  if (scores.length > 0)
    msg += `: ${scores.map((s) => `${s.plugin} ${formatScore(s.score)}×${formatScore(s.weight)}`).join(', ')} = ${formatScore(totalScore)}`;
  if (otherTargets.length > 0) msg += `; other Providers that fit: ${otherTargets.join(', ')}`;
  const rejected = formatFailures(failures);
  if (rejected !== '') msg += `; rejected: ${rejected}`;
  return msg;
}
