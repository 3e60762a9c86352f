import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { inMariaDbNumbering, mysqlCompatibleLine, parseServerVersion, versionMismatch } from './version.js';

describe('parseServerVersion', () => {
  const cases = [
    { reason: 'Debian MariaDB version text', input: '10.11.19-MariaDB-0+deb12u1', want: ['mariadb', '10.11.19'] },
    { reason: 'MySQL 8', input: '8.0.36', want: ['mysql', '8.0.36'] },
    { reason: 'a spec version that names MariaDB', input: 'MariaDB 11.4', want: ['mariadb', '11.4.0'] },
    { reason: 'a major of 10 or more is MariaDB', input: '10.6', want: ['mariadb', '10.6.0'] },
    { reason: 'MySQL 5.7 loose', input: '5.7', want: ['mysql', '5.7.0'] },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const v = parseServerVersion(c.input);
      assert.deepEqual([v?.flavor, v?.version.version], c.want);
    });
  }
  test('text without a number is unreadable', () => assert.equal(parseServerVersion('unknown'), undefined));
});

describe('mysqlCompatibleLine', () => {
  const cases = [
    { reason: 'MariaDB 10.11 is MySQL 5.7 compatible', input: '10.11.19-MariaDB', want: '5.7' },
    { reason: 'MariaDB 10.1 is MySQL 5.6 compatible', input: '10.1.48-MariaDB', want: '5.6' },
    { reason: 'MariaDB 5.5 is MySQL 5.5', input: '5.5.68-MariaDB', want: '5.5' },
    { reason: 'MySQL keeps its own line', input: '8.0.36', want: '8.0' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(mysqlCompatibleLine(parseServerVersion(c.input)!), c.want));
});

describe('versionMismatch', () => {
  const cases = [
    { reason: 'MariaDB 10.11 satisfies a MySQL lower bound', wanted: '>= 5.6', offered: '10.11.19-MariaDB', exact: true, fits: true },
    { reason: 'MariaDB 10.11 counts as MySQL 5.7', wanted: '5.7', offered: '10.11.19-MariaDB', exact: true, fits: true },
    { reason: 'MariaDB is not MySQL 8', wanted: '>= 8.0', offered: '10.11.19-MariaDB', exact: true, fits: false },
    { reason: "a range in MariaDB numbering uses MariaDB's own version", wanted: '>= 10.6', offered: '10.11.19-MariaDB', exact: true, fits: true },
    { reason: 'MariaDB numbering, too old', wanted: '>= 11', offered: '10.11.19-MariaDB', exact: true, fits: false },
    { reason: 'MySQL 8 satisfies >= 5.6', wanted: '>= 5.6', offered: '8.0.36', exact: true, fits: true },
    { reason: 'MySQL 8 is not MariaDB 10.6', wanted: '>= 10.6', offered: '8.0.36', exact: true, fits: false },
    { reason: 'MySQL 5.6 is too old for 5.7', wanted: '5.7', offered: '5.6.51', exact: true, fits: false },
    { reason: 'a spec version is a line: 8.0 meets >= 8.0.30', wanted: '>= 8.0.30', offered: '8.0', exact: false, fits: true },
    { reason: 'a MariaDB spec version against a MySQL range', wanted: '>= 5.6', offered: '10.11', exact: false, fits: true },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = versionMismatch(c.wanted, c.offered, c.exact);
      assert.equal(got === undefined, c.fits, `got ${got}`);
    });
  }
  test('an invalid range says what is wanted', () => assert.match(versionMismatch('newest', '8.0.36', true) ?? '', /not a valid version range \(want e\.g\./));
  test('the reason of a MariaDB mismatch names the compatible MySQL line', () =>
    assert.equal(versionMismatch('>= 8.0', '10.11.19-MariaDB', true), 'MariaDB 10.11.19 (compatible with MySQL 5.7) does not satisfy ">= 8.0"'));

  test('property: every MariaDB 10.2+ release satisfies ">= 5.6" and never ">= 8.0"', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 11 }), fc.integer({ min: 2, max: 30 }), fc.integer({ min: 0, max: 99 }), (major, minor, patch) => {
        const offered = `${major}.${minor}.${patch}-MariaDB`;
        assert.equal(versionMismatch('>= 5.6', offered, true), undefined);
        assert.notEqual(versionMismatch('>= 8.0', offered, true), undefined);
      }),
    );
  });
  test('property: a MySQL version satisfies exactly the ranges semver says it does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 9 }),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 5, max: 9 }),
        (major, minor, patch, bound) => {
          const fitsGot = versionMismatch(`>= ${bound}.0`, `${major}.${minor}.${patch}`, true) === undefined;
          assert.equal(fitsGot, major >= bound);
        },
      ),
    );
  });
  test('inMariaDbNumbering tells ranges apart by their lowest version', () => {
    assert.deepEqual(['>= 10.6', '>= 5.6', '8.0', '11', '*'].map(inMariaDbNumbering), [true, false, false, true, false]);
  });
});
