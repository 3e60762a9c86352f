/**
 * Key ranges in SQLite's order. SQLite compares TEXT keys by their UTF-8 bytes, which is
 * Unicode code point order; JavaScript's `<` compares UTF-16 code units, which differs for
 * characters above U+FFFF. Everything here follows SQLite's order.
 */

/**
 * A KeyRange is the half-open range `[lower, upper)` holding exactly the keys that start
 * with a prefix. `upper` is a one-byte BLOB when no string bound exists (empty prefix, or a
 * prefix of only U+10FFFF): SQLite orders every BLOB after every TEXT value.
 */
export interface KeyRange {
  lower: string;
  upper: string | Buffer;
}

const maxCodePoint = 0x10ffff;
const afterAllText = Buffer.from([0xff]);

/** prefixRange returns the KeyRange of the keys starting with `prefix`. */
export function prefixRange(prefix: string): KeyRange {
  const upper = prefixSuccessor(prefix);
  return { lower: prefix, upper: upper ?? afterAllText };
}

/**
 * prefixSuccessor returns the smallest string greater than every string starting with
 * `prefix`, or undefined when there is none.
 */
export function prefixSuccessor(prefix: string): string | undefined {
  const codePoints = Array.from(prefix, (c) => c.codePointAt(0) ?? 0);
  while (codePoints.length > 0) {
    const last = codePoints.pop() ?? 0;
    if (last < maxCodePoint) {
      // Skip the surrogate block: those code points never appear in valid UTF-8.
      codePoints.push(last + 1 === 0xd800 ? 0xe000 : last + 1);
      return String.fromCodePoint(...codePoints);
    }
  }
  return undefined;
}

/** compareKeys orders two keys the way SQLite does (negative, zero or positive). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** directoryOf returns the longest prefix of `prefix` that ends with '/', or "" when none. */
export function directoryOf(prefix: string): string {
  return prefix.slice(0, prefix.lastIndexOf('/') + 1);
}
