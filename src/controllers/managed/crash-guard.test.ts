import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  EXTERNAL_CREATE_FAILED_ANNOTATION as FAILED,
  EXTERNAL_CREATE_PENDING_ANNOTATION as PENDING,
  EXTERNAL_CREATE_SUCCEEDED_ANNOTATION as SUCCEEDED,
} from '../../apis/well-known.js';
import { lastCreateAttempt, outcomeTimestamp, pendingTimestamp } from './crash-guard.js';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

describe('lastCreateAttempt', () => {
  const cases: { reason: string; annotations: Record<string, string>; want: string }[] = [
    { reason: 'no marks: never attempted', annotations: {}, want: 'None' },
    { reason: 'an outcome without a pending mark is ignored', annotations: { [SUCCEEDED]: t(1) }, want: 'None' },
    { reason: 'pending alone: unknown outcome', annotations: { [PENDING]: t(5) }, want: 'Incomplete' },
    { reason: 'succeeded after pending', annotations: { [PENDING]: t(5), [SUCCEEDED]: t(6) }, want: 'Succeeded' },
    { reason: 'failed after pending', annotations: { [PENDING]: t(5), [FAILED]: t(6) }, want: 'Failed' },
    { reason: 'an outcome at the same instant counts', annotations: { [PENDING]: t(5), [SUCCEEDED]: t(5) }, want: 'Succeeded' },
    {
      reason: 'outcomes older than the pending mark belong to an earlier attempt',
      annotations: { [PENDING]: t(9), [SUCCEEDED]: t(3), [FAILED]: t(4) },
      want: 'Incomplete',
    },
    { reason: 'the later of two outcomes wins', annotations: { [PENDING]: t(1), [FAILED]: t(2), [SUCCEEDED]: t(3) }, want: 'Succeeded' },
    { reason: 'a failure after a success (a later attempt) wins', annotations: { [PENDING]: t(1), [SUCCEEDED]: t(2), [FAILED]: t(3) }, want: 'Failed' },
    { reason: 'an unreadable pending time is treated carefully as unknown', annotations: { [PENDING]: 'yesterday', [SUCCEEDED]: t(3) }, want: 'Incomplete' },
    { reason: 'an unreadable outcome time is no outcome', annotations: { [PENDING]: t(1), [SUCCEEDED]: 'later' }, want: 'Incomplete' },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.equal(lastCreateAttempt(c.annotations).state, c.want));
  }
});

describe('pendingTimestamp and outcomeTimestamp', () => {
  test('a new pending mark is after every recorded outcome, even when the clock went back', () => {
    const annotations = { [PENDING]: t(10), [FAILED]: t(20) };
    const pending = pendingTimestamp(annotations, new Date(t(15)));
    assert.ok(Date.parse(pending) > Date.parse(t(20)));
    assert.equal(lastCreateAttempt({ ...annotations, [PENDING]: pending }).state, 'Incomplete');
  });
  test('an outcome is never older than its pending mark', () => {
    assert.equal(outcomeTimestamp(t(10), new Date(t(5))), t(10));
    assert.equal(outcomeTimestamp(t(10), new Date(t(12))), t(12));
  });
  test('property: after any history, the last attempt is incomplete exactly when its outcome was not written', () => {
    // A history is a sequence of attempts at arbitrary (possibly backwards) clock readings,
    // each either finished (succeeded or failed) or interrupted; only the last may be interrupted.
    const attempt = fc.record({
      pendingClock: fc.integer({ min: 0, max: 10_000 }),
      outcomeClock: fc.integer({ min: 0, max: 10_000 }),
      outcome: fc.constantFrom('Succeeded', 'Failed'),
    });
    fc.assert(
      fc.property(fc.array(attempt, { minLength: 1, maxLength: 8 }), fc.boolean(), (history, interruptLast) => {
        let annotations: Record<string, string> = {};
        history.forEach((a, i) => {
          const pending = pendingTimestamp(annotations, new Date(a.pendingClock));
          annotations = { ...annotations, [PENDING]: pending };
          if (i === history.length - 1 && interruptLast) return;
          const key = a.outcome === 'Succeeded' ? SUCCEEDED : FAILED;
          annotations = { ...annotations, [key]: outcomeTimestamp(pending, new Date(a.outcomeClock)) };
        });
        const got = lastCreateAttempt(annotations).state;
        const last = history[history.length - 1];
        return interruptLast ? got === 'Incomplete' : got === last.outcome;
      }),
    );
  });
});
