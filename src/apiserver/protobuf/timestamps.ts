/**
 * meta/v1 Time and MicroTime: on the wire a Timestamp {seconds: int64 = 1, nanos: int32 = 2};
 * in JSON an RFC 3339 string in UTC. Time keeps whole seconds
 * (`2024-05-01T10:00:00Z`); MicroTime keeps six fractional digits
 * (`2024-05-01T10:00:00.123456Z`). An empty Timestamp message is Go's zero time, which
 * Kubernetes writes as null: the decoder leaves such fields out.
 */

/** Seconds of 0001-01-01T00:00:00Z, the earliest instant RFC 3339 can write. */
export const MIN_SECONDS = -62135596800;
/** Seconds of 9999-12-31T23:59:59Z, the latest. */
export const MAX_SECONDS = 253402300799;

/** A Timestamp's fields as read from the wire. */
export interface Timestamp {
  seconds: number;
  nanos: number;
}

/** Why a Timestamp cannot be written as RFC 3339, or undefined when it can. */
export function timestampProblem(ts: Timestamp, micro: boolean): string | undefined {
  if (!Number.isInteger(ts.seconds) || ts.seconds < MIN_SECONDS || ts.seconds > MAX_SECONDS) {
    return `seconds ${ts.seconds} lie outside years 0001 to 9999`;
  }
  if (micro && (!Number.isInteger(ts.nanos) || ts.nanos < 0 || ts.nanos > 999_999_999)) {
    return `nanos ${ts.nanos} lie outside 0 to 999999999`;
  }
  return undefined;
}

function isoSeconds(seconds: number): string {
  // toISOString gives YYYY-MM-DDTHH:MM:SS.sssZ for years 0000-9999; keep the part before ".".
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/** Formats a Time: RFC 3339 in UTC with whole seconds (nanos are dropped, as Kubernetes does). */
export function formatTime(ts: Timestamp): string {
  return `${isoSeconds(ts.seconds)}Z`;
}

/** Formats a MicroTime: RFC 3339 in UTC with exactly six fractional digits. */
export function formatMicroTime(ts: Timestamp): string {
  const micros = Math.floor(ts.nanos / 1000);
  return `${isoSeconds(ts.seconds)}.${String(micros).padStart(6, '0')}Z`;
}
