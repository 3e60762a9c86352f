import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rangeProblem, versionFromServerNum, versionMismatch } from './version.js';

describe('versionFromServerNum', () => {
  const cases = [
    { reason: 'PostgreSQL 10+ numbers releases major.minor', input: 150004, want: '15.4' },
    { reason: 'double-digit minors', input: 180004, want: '18.4' },
    { reason: 'PostgreSQL 9 used three parts', input: 90624, want: '9.6.24' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(versionFromServerNum(c.input), c.want));
});

describe('versionMismatch', () => {
  const cases = [
    { reason: 'an exact version inside a lower bound', wanted: '>= 14', offered: '15.4', exact: true, fits: true },
    { reason: 'a loose major asks for any minor of it', wanted: '15', offered: '15.18', exact: true, fits: true },
    { reason: 'another major does not fit', wanted: '15', offered: '18.4', exact: true, fits: false },
    { reason: 'a caret range', wanted: '^15.2', offered: '15.1', exact: true, fits: false },
    { reason: 'a hyphen range', wanted: '14 - 16', offered: '16.2', exact: true, fits: true },
    { reason: 'an offered range that overlaps', wanted: '>= 15', offered: '15', exact: false, fits: true },
    { reason: 'an offered range that does not overlap', wanted: '< 15', offered: '15', exact: false, fits: false },
    { reason: 'a version string with a distribution suffix', wanted: '15', offered: '15.18 (Debian 15.18-0+deb12u1)', exact: true, fits: true },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = versionMismatch(c.wanted, c.offered, c.exact);
      assert.equal(got === undefined, c.fits, got);
    });
  }

  test('an invalid range says what is wanted', () => {
    assert.match(rangeProblem('latest') ?? '', /not a valid version range \(want e\.g\. "15"/);
    assert.match(versionMismatch('latest', '15.4', true) ?? '', /not a valid version range/);
  });

  test('a mismatch says what was offered and asked', () => {
    assert.equal(versionMismatch('< 15', '18.4', true), 'version 18.4 does not satisfy "< 15"');
  });
});
