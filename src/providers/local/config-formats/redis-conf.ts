/**
 * Writing values into redis.conf. Redis splits a config line into arguments the way
 * `redis-cli` does (sdssplitargs): a double-quoted argument may hold any byte, written with
 * `\\`, `\"`, `\n`, `\r`, `\t` or `\xHH`; outside quotes a space or a quote ends or breaks
 * the argument and a newline starts a new directive. So strings are always quoted and every
 * byte outside printable ASCII is hex-escaped; words (enums) and sizes are checked instead.
 */

/** redisString quotes a string as one redis.conf argument, whatever it holds. */
export function redisString(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`redis.conf: want a string, got ${typeof value}`);
  let out = '"';
  for (const byte of Buffer.from(value, 'utf8')) {
    if (byte === 0x5c) out += '\\\\';
    else if (byte === 0x22) out += '\\"';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

/** redisWord checks a value against the words a directive accepts (an enum) and writes it bare. */
export function redisWord(value: unknown, allowed: readonly string[]): string {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new Error(`redis.conf: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
  }
  return value;
}

/** redisMemory checks a memory amount (digits, then b, kb, mb or gb) and writes it bare. */
export function redisMemory(value: unknown): string {
  if (typeof value !== 'string' || !/^[0-9]{1,15}(?:b|kb|mb|gb)?$/i.test(value)) {
    throw new Error(`redis.conf: memory amount ${JSON.stringify(value)} is not digits followed by b, kb, mb or gb`);
  }
  return value;
}

/** redisInteger checks an integer in a range and writes it. */
export function redisInteger(value: unknown, min: number, max: number): string {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`redis.conf: ${JSON.stringify(value)} is not an integer from ${min} to ${max}`);
  }
  return String(value);
}
