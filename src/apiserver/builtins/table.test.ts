import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { humanDuration, tableLayoutFor, timestampAge } from './table.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  const cases = [
    { reason: 'slightly negative reads 0s', ms: -500, want: '0s' },
    { reason: 'clearly negative is invalid', ms: -5 * s, want: '<invalid>' },
    { reason: 'seconds up to two minutes', ms: 119 * s, want: '119s' },
    { reason: 'minutes and seconds below ten minutes', ms: 3 * m + 20 * s, want: '3m20s' },
    { reason: 'whole minutes drop the seconds', ms: 4 * m, want: '4m' },
    { reason: 'minutes up to three hours', ms: 179 * m, want: '179m' },
    { reason: 'hours and minutes below eight hours', ms: 5 * h + 7 * m, want: '5h7m' },
    { reason: 'hours up to two days', ms: 47 * h, want: '47h' },
    { reason: 'days and hours below eight days', ms: 3 * d + 4 * h, want: '3d4h' },
    { reason: 'days up to two years', ms: 400 * d, want: '400d' },
    { reason: 'years and days below eight years', ms: (2 * 365 + 31) * d, want: '2y31d' },
    { reason: 'years beyond', ms: 9 * 365 * d, want: '9y' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(humanDuration(c.ms), c.want));

  test('property: the output is short and made of number-unit pairs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 * 365 * d }), (ms) => {
        const out = humanDuration(ms);
        assert.match(out, /^(\d+[smhdy]){1,2}$/);
        assert.ok(out.length <= 8, out);
      }),
    );
  });
});

describe('timestampAge', () => {
  test('measures from now', () => assert.equal(timestampAge('2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:05:00Z')), '5m'));
  test('a missing or bad timestamp is unknown', () => {
    assert.equal(timestampAge(undefined), '<unknown>');
    assert.equal(timestampAge('yesterday'), '<unknown>');
  });
});

describe('tableLayoutFor', () => {
  test('ordinary built-ins get NAME and AGE', () => {
    assert.deepEqual(tableLayoutFor({ group: '', kind: 'Secret', source: { type: 'builtin' } }), { nameColumn: true, ageColumn: true });
  });
  test('custom kinds named like built-ins get the standard layout', () => {
    assert.deepEqual(tableLayoutFor({ group: '', kind: 'Event', source: { type: 'crd', crdName: 'x', storage: true } }), { nameColumn: true, ageColumn: true });
  });
});
