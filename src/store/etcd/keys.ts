/**
 * Keys as etcd sees them: bytes (UTF-8), ordered bytewise — the same order as the SQLite
 * store's — under an optional key prefix that is added on the way in and removed on the way out.
 */
import type { KeyValue } from '../types.js';
import type { RpcKeyValue } from './rpc.js';

/** A ByteRange is etcd's half-open key range [key, rangeEnd). */
export interface ByteRange {
  key: Buffer;
  rangeEnd: Buffer;
}

/** The range_end that means "every key from `key` on". */
const toTheEnd = Buffer.from([0]);

/**
 * prefixEnd returns the smallest byte string greater than every string starting with
 * `prefix`: the prefix with trailing 0xff bytes dropped and its last byte incremented, or the
 * "to the end" marker when there is none.
 */
export function prefixEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const byte = prefix[i];
    if (byte < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = byte + 1;
      return end;
    }
  }
  return toTheEnd;
}

export class KeyCodec {
  private readonly prefixBytes: Buffer;

  constructor(readonly keyPrefix: string) {
    this.prefixBytes = Buffer.from(keyPrefix, 'utf8');
  }

  encode(key: string): Buffer {
    return Buffer.from(this.keyPrefix + key, 'utf8');
  }

  decode(raw: Buffer): string {
    return raw.subarray(this.prefixBytes.length).toString('utf8');
  }

  /** range returns the range of the keys starting with `prefix`. */
  range(prefix: string): ByteRange {
    const key = this.encode(prefix);
    // etcd has no empty key and refuses one in a request: the range of every key starts at 0x00.
    return key.length === 0 ? { key: toTheEnd, rangeEnd: toTheEnd } : { key, rangeEnd: prefixEnd(key) };
  }

  /**
   * listRange returns the range to list under `prefix`, starting strictly after `startAfter`
   * when that lies at or after the prefix (the smallest key after it is itself plus a 0 byte).
   */
  listRange(prefix: string, startAfter: string | undefined): ByteRange {
    const range = this.range(prefix);
    if (startAfter === undefined) return range;
    const after = Buffer.concat([this.encode(startAfter), toTheEnd]);
    return Buffer.compare(after, range.key) > 0 ? { key: after, rangeEnd: range.rangeEnd } : range;
  }

  toKeyValue(raw: RpcKeyValue): KeyValue {
    return { key: this.decode(raw.key), value: raw.value.toString('utf8'), createRevision: raw.create_revision, modRevision: raw.mod_revision };
  }
}
