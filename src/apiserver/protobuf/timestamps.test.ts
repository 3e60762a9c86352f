import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatMicroTime, formatTime, MAX_SECONDS, MIN_SECONDS, timestampProblem } from './timestamps.js';

describe('formatTime and formatMicroTime', () => {
  const cases: { reason: string; seconds: number; nanos: number; time: string; micro: string }[] = [
    { reason: 'the Unix epoch', seconds: 0, nanos: 0, time: '1970-01-01T00:00:00Z', micro: '1970-01-01T00:00:00.000000Z' },
    {
      reason: 'nanos are dropped by Time and truncated (not rounded) to micros by MicroTime',
      seconds: 1714557600,
      nanos: 123456789,
      time: '2024-05-01T10:00:00Z',
      micro: '2024-05-01T10:00:00.123456Z',
    },
    {
      reason: 'small fractions keep their leading zeros',
      seconds: 1714557600,
      nanos: 1000,
      time: '2024-05-01T10:00:00Z',
      micro: '2024-05-01T10:00:00.000001Z',
    },
    { reason: 'before the epoch', seconds: -1, nanos: 0, time: '1969-12-31T23:59:59Z', micro: '1969-12-31T23:59:59.000000Z' },
    { reason: 'the earliest writable instant', seconds: MIN_SECONDS, nanos: 0, time: '0001-01-01T00:00:00Z', micro: '0001-01-01T00:00:00.000000Z' },
    { reason: 'the latest writable instant', seconds: MAX_SECONDS, nanos: 999999999, time: '9999-12-31T23:59:59Z', micro: '9999-12-31T23:59:59.999999Z' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.equal(timestampProblem({ seconds: c.seconds, nanos: c.nanos }, true), undefined);
      assert.equal(formatTime({ seconds: c.seconds, nanos: c.nanos }), c.time);
      assert.equal(formatMicroTime({ seconds: c.seconds, nanos: c.nanos }), c.micro);
    });
  }

  test('formatted times parse back to the same instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_SECONDS, max: MAX_SECONDS }), fc.integer({ min: 0, max: 999_999_999 }), (seconds, nanos) => {
        assert.equal(Date.parse(formatTime({ seconds, nanos })), seconds * 1000);
        const micro = formatMicroTime({ seconds, nanos });
        assert.match(micro, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        assert.equal(Date.parse(micro), seconds * 1000 + Math.floor(nanos / 1_000_000));
      }),
    );
  });
});

describe('timestampProblem', () => {
  const cases: { reason: string; seconds: number; nanos: number; micro: boolean; want: RegExp | undefined }[] = [
    { reason: 'year 0000 cannot be written', seconds: MIN_SECONDS - 1, nanos: 0, micro: false, want: /outside years 0001 to 9999/ },
    { reason: 'year 10000 cannot be written', seconds: MAX_SECONDS + 1, nanos: 0, micro: false, want: /outside years 0001 to 9999/ },
    { reason: 'negative nanos are invalid for MicroTime', seconds: 0, nanos: -1, micro: true, want: /nanos -1/ },
    { reason: 'a whole second of nanos is invalid for MicroTime', seconds: 0, nanos: 1_000_000_000, micro: true, want: /nanos 1000000000/ },
    { reason: 'Time ignores nanos altogether', seconds: 0, nanos: -1, micro: false, want: undefined },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = timestampProblem({ seconds: c.seconds, nanos: c.nanos }, c.micro);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', c.want);
    });
  }
});
