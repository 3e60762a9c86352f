/**
 * Poll intervals: how often a managed resource is observed again so drift is noticed. The
 * default comes from the reconciler's options; the annotation `conductor.io/poll-interval`
 * on a resource overrides it with a duration such as `30s`, `5m` or `1h30m`.
 */
import type { KObject } from '../../machinery/object.js';
import { POLL_INTERVAL_ANNOTATION } from '../../apis/well-known.js';

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/**
 * parseDuration reads a duration in Go's notation — one or more decimal numbers each
 * followed by a unit (`ns`, `us`, `ms`, `s`, `m`, `h`), e.g. `30s`, `1.5m`, `1h30m` — and
 * returns it in milliseconds. It throws when the text is anything else (a bare number, an
 * unknown unit, a sign).
 */
export function parseDuration(text: string): number {
  const want = 'want a duration such as 30s, 5m or 1h30m';
  if (text === '') throw new Error(`duration is empty: ${want}`);
  let total = 0;
  let at = 0;
  while (at < text.length) {
    TERM.lastIndex = at;
    const m = TERM.exec(text);
    if (!m) throw new Error(`duration "${text}" is malformed at "${text.slice(at)}": ${want}`);
    total += Number(m[1]) * UNIT_MS[m[2]];
    at = TERM.lastIndex;
  }
  if (!Number.isFinite(total)) throw new Error(`duration "${text}" is too long: ${want}`);
  return total;
}

/** formatDuration writes milliseconds the way parseDuration reads them (`1h30m`, `250ms`). */
export function formatDuration(ms: number): string {
  if (!(ms > 0)) return '0s';
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join('') || '0s';
}

/** A PollInterval is the interval to use for one resource, and why a bad annotation was ignored. */
export interface PollInterval {
  ms: number;
  /** Set when the annotation was present but unusable; `ms` is then the default. */
  problem?: string;
}

/**
 * pollIntervalFor returns the resource's poll interval: its `conductor.io/poll-interval`
 * annotation when that is a positive duration, otherwise `defaultMs` (with the problem,
 * when the annotation was unusable).
 */
export function pollIntervalFor(resource: KObject, defaultMs: number): PollInterval {
  const text = resource.metadata.annotations?.[POLL_INTERVAL_ANNOTATION];
  if (text === undefined) return { ms: defaultMs };
  try {
    const ms = parseDuration(text.trim());
    if (ms < 1) return { ms: defaultMs, problem: `annotation ${POLL_INTERVAL_ANNOTATION} "${text}" is not positive: want at least 1ms` };
    return { ms };
  } catch (err) {
    return { ms: defaultMs, problem: `annotation ${POLL_INTERVAL_ANNOTATION}: ${(err as Error).message}` };
  }
}
