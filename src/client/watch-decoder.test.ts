import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WatchDecodeError, WatchDecoder, decodeWatchLine } from './watch-decoder.js';
import type { WatchEvent } from './types.js';

const eventArb: fc.Arbitrary<WatchEvent> = fc.record({
  type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR' as const),
  object: fc.record({
    apiVersion: fc.constant('v1'),
    kind: fc.constant('ConfigMap'),
    metadata: fc.record({ name: fc.string(), resourceVersion: fc.nat().map(String) }),
    data: fc.dictionary(fc.string(), fc.string({ unit: 'grapheme' })),
  }),
});

/** Cuts `text` at the given fractions of its length. */
function cut(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let last = 0;
  for (const p of points) {
    pieces.push(text.slice(last, p));
    last = p;
  }
  pieces.push(text.slice(last));
  return pieces;
}

describe('WatchDecoder', () => {
  test('decodes the same events however the stream is chunked (property)', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 8 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
        fc.boolean(),
        (events, cuts, finalNewline) => {
          const body = events.map((e) => JSON.stringify(e)).join('\n') + (finalNewline ? '\n' : '');
          const decoder = new WatchDecoder();
          const got: WatchEvent[] = [];
          for (const piece of cut(body, cuts)) got.push(...decoder.push(piece));
          got.push(...decoder.end());
          assert.deepEqual(got, JSON.parse(JSON.stringify(events)));
        },
      ),
    );
  });

  test('returns an event only when its line is complete', () => {
    const decoder = new WatchDecoder();
    const line = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    assert.deepEqual(decoder.push(line.slice(0, 10)), []);
    assert.deepEqual(decoder.push(line.slice(10)), []);
    assert.equal(decoder.push('\n').length, 1);
  });

  test('ignores blank lines and a trailing carriage return', () => {
    const decoder = new WatchDecoder();
    const events = decoder.push(`\n\n${JSON.stringify({ type: 'DELETED', object: { metadata: {} } })}\r\n\n`);
    assert.deepEqual(
      events.map((e) => e.type),
      ['DELETED'],
    );
    assert.deepEqual(decoder.end(), []);
  });
});

describe('decodeWatchLine', () => {
  const bad: Array<{ reason: string; line: string; error: RegExp }> = [
    { reason: 'not JSON', line: '{"type":', error: /cannot decode watch event/ },
    { reason: 'not an object', line: '[1,2]', error: /expected a JSON object/ },
    { reason: 'unknown type', line: '{"type":"CHANGED","object":{}}', error: /got "CHANGED"/ },
    { reason: 'missing object', line: '{"type":"ADDED"}', error: /ADDED event has no object/ },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => decodeWatchLine(c.line),
        (err: Error) => err instanceof WatchDecodeError && c.error.test(err.message),
      );
    });
  }

  test('an ERROR event carries its Status', () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old', reason: 'Expired', code: 410 };
    const event = decodeWatchLine(JSON.stringify({ type: 'ERROR', object: status }));
    assert.deepEqual(event, { type: 'ERROR', object: status });
  });
});
