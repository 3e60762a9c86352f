/**
 * The window of the SAS tokens Conductor hands out per claim. A token is signed for a fixed
 * window rather than "from now", so observing a resource again yields the same token (the
 * claim's Secret does not change on every poll): windows start every third of the validity
 * (minus 15 minutes, for clocks a little behind), so a token published is good for at least
 * two thirds of `validityDays`, and the next observation after a window starts publishes the
 * next token.
 */

/** The default validity of a SAS token, in days. */
export const DEFAULT_SAS_VALIDITY_DAYS = 30;

const DAY_MS = 86_400_000;
const SKEW_MS = 15 * 60_000;

/** A SasWindow is when a token starts and stops being valid. */
export interface SasWindow {
  startsOn: Date;
  expiresOn: Date;
}

/** sasWindow is the window in force at `now` for tokens valid `validityDays`. */
export function sasWindow(now: Date, validityDays: number = DEFAULT_SAS_VALIDITY_DAYS): SasWindow {
  const validity = Math.max(1, Math.floor(validityDays)) * DAY_MS;
  const period = Math.floor(validity / 3);
  const start = Math.floor(now.getTime() / period) * period;
  return { startsOn: new Date(start - SKEW_MS), expiresOn: new Date(start + validity) };
}
