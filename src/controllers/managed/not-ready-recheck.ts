/**
 * How soon a resource that exists but is not ready yet is observed again: a quarter of how long
 * it has been not ready, at least MIN_RECHECK_MS and at most NOT_READY_RECHECK_MS (and never
 * later than the poll interval). An object an operator readies in a second is seen ready within
 * about a quarter second more, not five; a database that takes minutes is looked at every 5 s,
 * as before, after its first 20 s.
 */

/** The longest wait between two observations of a resource that is not ready yet. */
export const NOT_READY_RECHECK_MS = 5_000;
/** The shortest wait between two observations of a resource that is not ready yet. */
export const MIN_RECHECK_MS = 250;

/**
 * notReadyRecheckMs is the wait before the next observation. `notReadySince` is when the
 * resource's Ready condition last became False (its lastTransitionTime, in ms), undefined
 * when it is not False yet (this observation is the first to find it not ready).
 */
export function notReadyRecheckMs(notReadySince: number | undefined, now: number, pollMs: number): number {
  const waited = notReadySince === undefined || !Number.isFinite(notReadySince) ? 0 : Math.max(0, now - notReadySince);
  const wait = Math.min(NOT_READY_RECHECK_MS, Math.max(MIN_RECHECK_MS, Math.round(waited / 4)));
  return Math.min(pollMs, wait);
}
