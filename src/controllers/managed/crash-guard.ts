/**
 * The create crash guard (docs/design.md 3.6 point 5). Before calling a provider's `create`, the
 * reconciler persists `conductor.io/external-create-pending: <time>`; afterwards it persists
 * `external-create-succeeded` or `external-create-failed` with a later (or equal) time. A
 * pending mark that no outcome has followed means the process died — or the call timed out
 * — while `create` was running: the external resource may or may not exist, and when the
 * provider cannot find it by a name derived from the resource, creating again could make a
 * second one.
 */
import { EXTERNAL_CREATE_FAILED_ANNOTATION, EXTERNAL_CREATE_PENDING_ANNOTATION, EXTERNAL_CREATE_SUCCEEDED_ANNOTATION } from '../../apis/well-known.js';

/** A CreateAttempt is what the annotations say about the last call of `create`. */
export type CreateAttempt =
  /** No pending mark: `create` was never called (or the marks were removed). */
  | { state: 'None' }
  /** A pending mark with no outcome at or after it: the outcome is unknown. */
  | { state: 'Incomplete'; pendingSince: string }
  | { state: 'Succeeded'; at: string }
  | { state: 'Failed'; at: string };

function parseTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * lastCreateAttempt reads the crash-guard annotations. An outcome counts only when its time
 * is at or after the pending mark; an unreadable pending time counts as incomplete (the
 * careful reading), an unreadable outcome time as no outcome.
 */
export function lastCreateAttempt(annotations: Record<string, string> | undefined): CreateAttempt {
  const pendingText = annotations?.[EXTERNAL_CREATE_PENDING_ANNOTATION];
  if (pendingText === undefined) return { state: 'None' };
  const pending = parseTime(pendingText);
  if (pending === undefined) return { state: 'Incomplete', pendingSince: pendingText };
  const succeededText = annotations?.[EXTERNAL_CREATE_SUCCEEDED_ANNOTATION];
  const failedText = annotations?.[EXTERNAL_CREATE_FAILED_ANNOTATION];
  const succeeded = parseTime(succeededText);
  const failed = parseTime(failedText);
  const okSucceeded = succeeded !== undefined && succeeded >= pending;
  const okFailed = failed !== undefined && failed >= pending;
  if (okSucceeded && (!okFailed || succeeded >= failed)) return { state: 'Succeeded', at: succeededText! };
  if (okFailed) return { state: 'Failed', at: failedText! };
  return { state: 'Incomplete', pendingSince: pendingText };
}

/**
 * pendingTimestamp is the time to write as a new pending mark: now, or — if a recorded
 * outcome is not older than now (a clock step back) — one millisecond after the latest
 * outcome, so an earlier outcome can never be read as the outcome of this attempt.
 */
export function pendingTimestamp(annotations: Record<string, string> | undefined, now: Date): string {
  let t = now.getTime();
  for (const key of [EXTERNAL_CREATE_SUCCEEDED_ANNOTATION, EXTERNAL_CREATE_FAILED_ANNOTATION, EXTERNAL_CREATE_PENDING_ANNOTATION]) {
    const earlier = parseTime(annotations?.[key]);
    if (earlier !== undefined && earlier >= t) t = earlier + 1;
  }
  return new Date(t).toISOString();
}

/**
 * outcomeTimestamp is the time to write as the outcome of the attempt pending since
 * `pending`: now, or the pending time if the clock went back, so the outcome is never
 * older than its pending mark.
 */
export function outcomeTimestamp(pending: string, now: Date): string {
  const p = parseTime(pending);
  return new Date(p !== undefined && p > now.getTime() ? p : now.getTime()).toISOString();
}
