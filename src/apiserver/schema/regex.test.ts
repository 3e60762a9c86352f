import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern } from './regex.js';

describe('compilePattern', () => {
  const cases: { reason: string; pattern: string; matches: string[]; rejects: string[] }[] = [
    { reason: 'plain patterns work as in JavaScript', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', matches: ['a', 'a-b'], rejects: ['-a', 'A'] },
    { reason: 'a leading (?i) becomes the i flag', pattern: '(?i)^abc$', matches: ['ABC', 'abc'], rejects: ['abd'] },
    { reason: '\\A and \\z anchor', pattern: '\\Aab\\z', matches: ['ab'], rejects: ['xab', 'ab\n'] },
    { reason: 'POSIX classes', pattern: '^[[:alpha:]][[:digit:]]+$', matches: ['a12'], rejects: ['1a'] },
    { reason: 'named groups in Go spelling', pattern: '^(?P<n>[0-9]+)$', matches: ['42'], rejects: ['x'] },
    { reason: 'identity escapes Unicode mode rejects', pattern: '^[a-z\\_]+$', matches: ['a_b'], rejects: ['a-b'] },
    { reason: 'Unicode classes', pattern: '^\\pL+$', matches: ['héllo'], rejects: ['h3'] },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const re = compilePattern(c.pattern);
      assert.ok(re instanceof RegExp, `${c.pattern} should compile`);
      for (const m of c.matches) assert.ok(re.test(m), `${c.pattern} should match ${JSON.stringify(m)}`);
      for (const r of c.rejects) assert.ok(!re.test(r), `${c.pattern} should not match ${JSON.stringify(r)}`);
    });
  }

  test('an invalid pattern returns the error', () => {
    assert.ok(compilePattern('([a-z') instanceof Error);
  });
});
