import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_RECHECK_MS, NOT_READY_RECHECK_MS, notReadyRecheckMs } from './not-ready-recheck.js';

describe('notReadyRecheckMs', () => {
  const now = 1_000_000;
  const cases: { why: string; since: number | undefined; pollMs?: number; want: number }[] = [
    { why: 'first found not ready: soon', since: undefined, want: MIN_RECHECK_MS },
    { why: 'not ready for half a second: the minimum', since: now - 500, want: MIN_RECHECK_MS },
    { why: 'not ready for 4 s: a quarter of it', since: now - 4_000, want: 1_000 },
    { why: 'not ready for a minute: the cap', since: now - 60_000, want: NOT_READY_RECHECK_MS },
    { why: 'a transition time in the future (clock skew) counts as none', since: now + 9_000, want: MIN_RECHECK_MS },
    { why: 'an unreadable transition time counts as none', since: Number.NaN, want: MIN_RECHECK_MS },
    { why: 'never later than the poll interval', since: now - 60_000, pollMs: 2_000, want: 2_000 },
    { why: 'a poll interval shorter than the minimum wins', since: undefined, pollMs: 100, want: 100 },
  ];
  for (const c of cases) test(c.why, () => assert.equal(notReadyRecheckMs(c.since, now, c.pollMs ?? 60_000), c.want));
});
