import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineSplitter } from './line-splitter.js';

describe('LineSplitter', () => {
  const cases: { reason: string; chunks: string[]; want: string[]; pending: string }[] = [
    { reason: 'one line in one chunk', chunks: ['{"a":1}\n'], want: ['{"a":1}'], pending: '' },
    { reason: 'a line split across chunks', chunks: ['{"a"', ':1}\n{"b"'], want: ['{"a":1}'], pending: '{"b"' },
    { reason: 'several lines in a chunk, blank lines dropped', chunks: ['x\n\ny\n'], want: ['x', 'y'], pending: '' },
    { reason: 'CRLF is tolerated', chunks: ['x\r\n'], want: ['x'], pending: '' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const s = new LineSplitter();
      const got = c.chunks.flatMap((ch) => s.push(ch));
      assert.deepEqual(got, c.want);
      assert.equal(s.pending(), c.pending);
    });
  }

  test('any chunking of a stream yields the same lines', () => {
    const line = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !s.includes('\n') && s.trim() === s && s !== '');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 10 }), (lines, cuts) => {
        const text = lines.map((l) => l + '\n').join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(text.slice(prev, p));
          prev = p;
        }
        chunks.push(text.slice(prev));
        const s = new LineSplitter();
        return JSON.stringify(chunks.flatMap((c) => s.push(c))) === JSON.stringify(lines) && s.pending() === '';
      }),
    );
  });
});
