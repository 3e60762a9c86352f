/**
 * The backoff of polls of a resource in a passing state (RDS's `creating`, ElastiCache's
 * `modifying`, …): asked again after 5 s, the wait doubling while the state stays, up to
 * 60 s; between polls `observe` answers from what it last saw, without calling AWS. Other
 * states are asked about every time. One schedule per running kind, keyed by region and name.
 */
import type { ExternalObservation } from '../spi.js';

export const FIRST_POLL_MS = 5_000;
export const MAX_POLL_MS = 60_000;

interface PollState {
  status: string;
  observation: ExternalObservation;
  nextAt: number;
  intervalMs: number;
}

/** A PollSchedule remembers, per resource, when AWS is next asked about it. */
export class PollSchedule {
  private readonly states = new Map<string, PollState>();
  constructor(
    /** The states that pass by themselves (polled with backoff). */
    private readonly passing: ReadonlySet<string>,
    readonly now: () => number = Date.now,
  ) {}

  /** cached is what to answer without calling AWS, when the resource is in a passing state and its next poll is not due. */
  cached(key: string): ExternalObservation | undefined {
    const s = this.states.get(key);
    return s && this.now() < s.nextAt ? s.observation : undefined;
  }

  /** saw records an observation: passing states are polled with backoff, others every time. */
  saw(key: string, status: string | undefined, observation: ExternalObservation): void {
    if (status === undefined || !this.passing.has(status)) {
      this.states.delete(key);
      return;
    }
    const before = this.states.get(key);
    const intervalMs = before && before.status === status ? Math.min(before.intervalMs * 2, MAX_POLL_MS) : FIRST_POLL_MS;
    if (this.states.size > 10_000) this.states.clear();
    this.states.set(key, { status, observation, nextAt: this.now() + intervalMs, intervalMs });
  }

  forget(key: string): void {
    this.states.delete(key);
  }
}

/** reasonOf turns an AWS state into a condition reason: `backing-up` → `BackingUp`. */
export const reasonOf = (status: string) =>
  status
    .split('-')
    .filter((p) => p !== '')
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('') || 'Unknown';
