import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KeyCodec, prefixEnd } from './keys.js';

/** Characters around the edges of the byte order: ASCII, '/', two-, three- and four-byte UTF-8. */
const edgeChar = fc.constantFrom('a', 'b', '/', '0', '\u007f', '\u00e9', '\uffff', '\u{10000}', '\u{10ffff}');
const key = fc.array(edgeChar, { maxLength: 5 }).map((chars) => chars.join(''));
/** A stored key: never empty (the store refuses one, and etcd has none). */
const storedKey = fc.array(edgeChar, { minLength: 1, maxLength: 5 }).map((chars) => chars.join(''));

/** inRange tells whether `k` lies in etcd's [key, rangeEnd) (a rangeEnd of one 0 byte: to the end). */
function inRange(k: Buffer, range: { key: Buffer; rangeEnd: Buffer }): boolean {
  const toTheEnd = range.rangeEnd.length === 1 && range.rangeEnd[0] === 0;
  return Buffer.compare(k, range.key) >= 0 && (toTheEnd || Buffer.compare(k, range.rangeEnd) < 0);
}

describe('etcd keys', () => {
  test('prefixEnd', () => {
    const cases = [
      { reason: 'the last byte is incremented', prefix: [0x2f, 0x61], want: [0x2f, 0x62] },
      { reason: 'trailing 0xff bytes are dropped first', prefix: [0x61, 0xff, 0xff], want: [0x62] },
      { reason: 'only 0xff bytes: every key from the prefix on', prefix: [0xff], want: [0] },
    ];
    for (const c of cases) assert.deepEqual([...prefixEnd(Buffer.from(c.prefix))], c.want, c.reason);
  });

  test('a stored key is in the range of a prefix exactly when it starts with the prefix, under any key prefix (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('', '/registry', '\u{10ffff}'), key, storedKey, (keyPrefix, prefix, k) => {
        const codec = new KeyCodec(keyPrefix);
        assert.equal(inRange(codec.encode(k), codec.range(prefix)), k.startsWith(prefix));
        assert.equal(codec.decode(codec.encode(k)), k);
      }),
      { numRuns: 2000 },
    );
  });

  test('a continuation range holds exactly the keys of the prefix after startAfter, in byte order (property)', () => {
    fc.assert(
      fc.property(key, key, storedKey, (prefix, startAfter, k) => {
        const codec = new KeyCodec('/p');
        const range = codec.listRange(prefix, startAfter);
        const after = Buffer.compare(Buffer.from(k), Buffer.from(startAfter)) > 0;
        assert.equal(inRange(codec.encode(k), range), k.startsWith(prefix) && after);
      }),
      { numRuns: 2000 },
    );
  });
});
