import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { POLL_INTERVAL_ANNOTATION } from '../../apis/well-known.js';
import { formatDuration, parseDuration, pollIntervalFor } from './poll-interval.js';

describe('parseDuration', () => {
  for (const c of [
    { reason: 'seconds', input: '30s', want: 30_000 },
    { reason: 'minutes', input: '5m', want: 300_000 },
    { reason: 'hours and minutes', input: '1h30m', want: 5_400_000 },
    { reason: 'milliseconds', input: '250ms', want: 250 },
    { reason: 'a fraction', input: '1.5m', want: 90_000 },
    { reason: 'a leading dot', input: '.5s', want: 500 },
    { reason: 'microseconds', input: '1500us', want: 1.5 },
    { reason: 'every unit at once', input: '1h1m1s1ms1000us1000000ns', want: 3_661_003 },
  ]) {
    test(`reads ${c.reason}: ${c.input}`, () => assert.equal(parseDuration(c.input), c.want));
  }
  for (const c of [
    { reason: 'a bare number has no unit', input: '30' },
    { reason: 'an unknown unit', input: '3d' },
    { reason: 'a sign', input: '-5s' },
    { reason: 'spaces', input: '5 s' },
    { reason: 'empty', input: '' },
    { reason: 'a trailing number', input: '1m30' },
  ]) {
    test(`rejects ${c.reason}: "${c.input}"`, () => assert.throws(() => parseDuration(c.input), /want a duration such as 30s, 5m or 1h30m/));
  }
  test('reads back whatever formatDuration writes (whole milliseconds)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10 * 24 * 3_600_000 }), (ms) => parseDuration(formatDuration(ms)) === ms));
  });
  test('never throws anything but an Error naming the expected form', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        try {
          const ms = parseDuration(text);
          return Number.isFinite(ms) && ms >= 0;
        } catch (err) {
          return err instanceof Error && /want a duration/.test(err.message);
        }
      }),
    );
  });
});

describe('pollIntervalFor', () => {
  const withAnnotation = (value?: string) => ({
    apiVersion: 'v1',
    kind: 'X',
    metadata: { name: 'x', ...(value !== undefined ? { annotations: { [POLL_INTERVAL_ANNOTATION]: value } } : {}) },
  });
  for (const c of [
    { reason: 'no annotation: the default', annotation: undefined, want: 60_000, problem: false },
    { reason: 'a valid annotation wins', annotation: '30s', want: 30_000, problem: false },
    { reason: 'surrounding spaces are tolerated', annotation: ' 5m ', want: 300_000, problem: false },
    { reason: 'a malformed annotation falls back, saying why', annotation: 'soon', want: 60_000, problem: true },
    { reason: 'zero falls back (it would spin)', annotation: '0s', want: 60_000, problem: true },
  ]) {
    test(c.reason, () => {
      const got = pollIntervalFor(withAnnotation(c.annotation), 60_000);
      assert.equal(got.ms, c.want);
      assert.equal(got.problem !== undefined, c.problem, got.problem);
    });
  }
});
