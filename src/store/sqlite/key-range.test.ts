import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { compareKeys, directoryOf, prefixRange, prefixSuccessor } from './key-range.js';

/** Characters around the edges of the orderings: ASCII, '/', U+FFFF, astral and the maximum code point. */
const edgeChar = fc.constantFrom('a', 'b', '/', '0', '\u007f', '\u00e9', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1f600}', '\u{10ffff}');
const key = fc.array(edgeChar, { maxLength: 6 }).map((chars) => chars.join(''));

describe('key ranges', () => {
  test('prefixSuccessor', () => {
    const cases = [
      { reason: 'the last character is incremented', prefix: '/a/', want: '/a0' },
      { reason: 'the empty prefix has no successor', prefix: '', want: undefined },
      { reason: 'a trailing maximum code point is dropped', prefix: 'a\u{10ffff}', want: 'b' },
      { reason: 'only maximum code points: no successor', prefix: '\u{10ffff}\u{10ffff}', want: undefined },
      { reason: 'the successor skips the surrogate block', prefix: 'x\ud7ff', want: 'x\ue000' },
      { reason: 'astral characters are incremented as one code point', prefix: '\u{1f600}', want: '\u{1f601}' },
    ];
    for (const c of cases) assert.equal(prefixSuccessor(c.prefix), c.want, c.reason);
  });

  test('a key is in the prefix range exactly when it starts with the prefix (property)', () => {
    fc.assert(
      fc.property(key, key, (prefix, k) => {
        const range = prefixRange(prefix);
        const aboveLower = compareKeys(k, range.lower) >= 0;
        const belowUpper = typeof range.upper !== 'string' || compareKeys(k, range.upper) < 0;
        assert.equal(aboveLower && belowUpper, k.startsWith(prefix));
      }),
      { numRuns: 2000 },
    );
  });

  test('compareKeys and the ranges agree with SQLite (property)', () => {
    const db = new Database(':memory:');
    try {
      const order = db.prepare<{ a: string; b: string }, number>('SELECT (@a > @b) - (@a < @b)').pluck();
      const inRange = db.prepare<{ k: string; lo: string; hi: string | Buffer }, number>('SELECT @k >= @lo AND @k < @hi').pluck();
      fc.assert(
        fc.property(key, key, (a, b) => {
          assert.equal(Math.sign(compareKeys(a, b)), order.get({ a, b }));
          const range = prefixRange(a);
          assert.equal(inRange.get({ k: b, lo: range.lower, hi: range.upper }) === 1, b.startsWith(a));
        }),
        { numRuns: 1000 },
      );
    } finally {
      db.close();
    }
  });

  test('directoryOf', () => {
    const cases = [
      { reason: 'a prefix ending in / is its own directory', prefix: '/registry/pods/', want: '/registry/pods/' },
      { reason: 'a key-like prefix files under its parent', prefix: '/registry/pods/ns/name', want: '/registry/pods/ns/' },
      { reason: 'no slash: the root', prefix: 'abc', want: '' },
      { reason: 'the empty prefix: the root', prefix: '', want: '' },
    ];
    for (const c of cases) assert.equal(directoryOf(c.prefix), c.want, c.reason);
  });
});
