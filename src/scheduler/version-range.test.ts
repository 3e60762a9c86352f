import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { coerceVersion, parseVersionRange, versionInRange } from './version-range.js';

describe('coerceVersion', () => {
  const cases: { reason: string; input: unknown; want: string | undefined }[] = [
    { reason: 'a full version', input: '8.0.35', want: '8.0.35' },
    { reason: 'major.minor', input: '5.7', want: '5.7.0' },
    { reason: 'a major alone', input: '15', want: '15.0.0' },
    { reason: 'a YAML number', input: 5.9, want: '5.9.0' },
    { reason: 'an engine constant with underscores', input: 'MYSQL_5_7', want: '5.7.0' },
    { reason: 'a PostgreSQL engine constant', input: 'POSTGRES_15', want: '15.0.0' },
    { reason: 'a suffix is ignored', input: '8.0.35-log', want: '8.0.35' },
    { reason: 'a v prefix', input: 'v14.2', want: '14.2.0' },
    { reason: 'no digits', input: 'latest', want: undefined },
    { reason: 'blank', input: '  ', want: undefined },
    { reason: 'not text', input: { major: 5 }, want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(coerceVersion(c.input)?.version, c.want));

  test('any major.minor.patch reads back as itself', () => {
    const n = fc.integer({ min: 0, max: 9999 });
    fc.assert(
      fc.property(n, n, n, fc.constantFrom('.', '_'), (a, b, c, sep) => assert.equal(coerceVersion(`${a}${sep}${b}${sep}${c}`)?.version, `${a}.${b}.${c}`)),
    );
  });
});

describe('version ranges', () => {
  const cases: { reason: string; version: unknown; range: string; want: boolean | undefined }[] = [
    { reason: '>= with a space, as in the seed', version: '5.7', range: '>= 5.6', want: true },
    { reason: 'below the bound', version: '5.5.62', range: '>= 5.6', want: false },
    { reason: 'a loose "5.7" is 5.7.x', version: '5.7.44', range: '5.7', want: true },
    { reason: 'a loose "15" is 15.x', version: '15.4', range: '15', want: true },
    { reason: '"15" excludes 16', version: '16', range: '15', want: false },
    { reason: 'caret', version: 'MYSQL_8_0', range: '^8.0', want: true },
    { reason: 'alternatives', version: '9', range: '>=5.6 <8 || 9', want: true },
    { reason: 'an unreadable range', version: '5.7', range: 'newest', want: undefined },
    { reason: 'an unreadable version', version: 'latest', range: '>= 5', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(versionInRange(c.version, c.range), c.want));
  test('parsing never throws', () => {
    fc.assert(fc.property(fc.string(), (s) => void parseVersionRange(s)));
  });
});
