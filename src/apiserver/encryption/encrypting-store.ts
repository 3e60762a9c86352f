/**
 * An EncryptingStore wraps a Store and encrypts the values of chosen key prefixes (Secrets
 * by default) on the way in and decrypts them on the way out — get, list, watch events,
 * conflict values and deletes alike — so everything above it sees plain JSON. Values under
 * other prefixes pass through untouched, so only encrypted resources pay for it.
 */
import type { Logger } from 'pino';
import { ApiError } from '../../machinery/errors.js';
import {
  StoreError,
  type KeyValue,
  type Store,
  type StoreEvent,
  type StoreListOptions,
  type StoreListResult,
  type StoreWatchHandlers,
  type StoreWatcher,
  type ValueEncoder,
} from '../../store/types.js';
import { EnvelopeError, isSealed, open, seal, sealedKeyId } from './envelope.js';
import type { EncryptionKey, KeySet } from './key-file.js';

/** The store prefix of core/v1 Secrets (as ObjectStore builds keys). */
export const SECRETS_PREFIX = '/registry/core/secrets/';

export interface EncryptingStoreOptions {
  keys: KeySet;
  /** Key prefixes whose values are encrypted; default: Secrets only. */
  prefixes?: readonly string[];
  logger?: Logger;
}

/** How often the same missing or broken key is logged again. */
const REPORT_EVERY_MS = 10_000;

export class EncryptingStore implements Store {
  readonly prefixes: readonly string[];
  private readonly keys: Map<string, EncryptionKey>;
  private readonly primary: EncryptionKey;
  private readonly log: Logger | undefined;
  private readonly reported = new Map<string, number>();
  /** Watch events are shared by every watcher: decrypt each once. */
  private readonly opened = new WeakMap<KeyValue, KeyValue>();

  constructor(
    readonly inner: Store,
    opts: EncryptingStoreOptions,
  ) {
    this.prefixes = opts.prefixes ?? [SECRETS_PREFIX];
    this.keys = new Map(opts.keys.keys.map((k) => [k.id, k]));
    const primary = this.keys.get(opts.keys.primary);
    if (!primary) throw new Error(`the primary encryption key "${opts.keys.primary}" is not in the key set`);
    this.primary = primary;
    this.log = opts.logger;
  }

  get embedsRevision(): boolean {
    return this.inner.embedsRevision;
  }

  /** The id of the key new writes use. */
  get primaryKeyId(): string {
    return this.primary.id;
  }

  currentRevision(): number {
    return this.inner.currentRevision();
  }

  compactedRevision(): number {
    return this.inner.compactedRevision();
  }

  latestRevision(): Promise<number> {
    return this.inner.latestRevision ? this.inner.latestRevision() : Promise.resolve(this.inner.currentRevision());
  }

  checkReachable(): Promise<string | undefined> {
    return this.inner.checkReachable ? this.inner.checkReachable() : Promise.resolve(undefined);
  }

  /** True when values of `key` are encrypted. */
  covers(key: string): boolean {
    for (const p of this.prefixes) if (key.startsWith(p)) return true;
    return false;
  }

  /** True when some key under `prefix` may be encrypted. */
  private overlaps(prefix: string): boolean {
    for (const p of this.prefixes) if (p.startsWith(prefix) || prefix.startsWith(p)) return true;
    return false;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(key);
    return kv && this.covers(key) ? this.openKv(kv) : kv;
  }

  async list(prefix: string, options?: StoreListOptions): Promise<StoreListResult> {
    const res = await this.inner.list(prefix, options);
    if (!this.overlaps(prefix)) return res;
    return { ...res, items: res.items.map((kv) => (this.covers(kv.key) ? this.openKv(kv) : kv)) };
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  async create(key: string, encode: ValueEncoder): Promise<KeyValue> {
    if (!this.covers(key)) return this.inner.create(key, encode);
    let plain = '';
    try {
      const kv = await this.inner.create(key, (rev) => this.seal(key, (plain = encode(rev))));
      return { ...kv, value: plain };
    } catch (err) {
      throw this.openError(err);
    }
  }

  async update(key: string, expectedModRevision: number, encode: ValueEncoder): Promise<KeyValue> {
    if (!this.covers(key)) return this.inner.update(key, expectedModRevision, encode);
    let plain = '';
    try {
      const kv = await this.inner.update(key, expectedModRevision, (rev) => this.seal(key, (plain = encode(rev))));
      return { ...kv, value: plain };
    } catch (err) {
      throw this.openError(err);
    }
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    if (!this.covers(key)) return this.inner.delete(key, expectedModRevision);
    try {
      return this.openKv(await this.inner.delete(key, expectedModRevision));
    } catch (err) {
      throw this.openError(err);
    }
  }

  watch(prefix: string, afterRevision: number, handlers: StoreWatchHandlers): StoreWatcher {
    if (!this.overlaps(prefix)) return this.inner.watch(prefix, afterRevision, handlers);
    let failed = false;
    let watcher: StoreWatcher | undefined;
    const openEvent = (ev: StoreEvent): StoreEvent => {
      if (!this.covers(ev.kv.key)) return ev;
      const kv = this.openShared(ev.kv);
      const prev = ev.prev ? this.openShared(ev.prev) : undefined;
      return prev ? { type: ev.type, kv, prev } : { type: ev.type, kv };
    };
    // eslint-disable-next-line prefer-const -- the Store interface does not promise no event before watch() returns: the handler then sees `watcher` undefined, where a const would throw (TDZ)
    watcher = this.inner.watch(prefix, afterRevision, {
      onEvents: (events) => {
        if (failed) return;
        let out: StoreEvent[];
        try {
          out = events.map(openEvent);
        } catch (err) {
          // The watch cannot go on without losing events: end it; the client relists and
          // gets the error as a Status.
          failed = true;
          watcher?.close();
          handlers.onError(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        return handlers.onEvents(out);
      },
      onError: (err) => {
        if (!failed) handlers.onError(err);
      },
    });
    return watcher;
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /**
   * Re-encrypts one stored value under the primary key when it uses another key (or is
   * still plain text), keeping its content; `rewrite` puts the new revision into the text
   * (as the object encoder does). Returns false when nothing needed doing or the key
   * changed or vanished meanwhile (a concurrent write already used the primary key).
   */
  async reseal(raw: KeyValue, rewrite: (plain: string, revision: number) => string): Promise<boolean> {
    if (!this.covers(raw.key) || sealedKeyId(raw.value) === this.primary.id) return false;
    const plain = this.openKv(raw).value;
    try {
      await this.inner.update(raw.key, raw.modRevision, (rev) => this.seal(raw.key, rewrite(plain, rev)));
      return true;
    } catch (err) {
      if (err instanceof StoreError && (err.code === 'conflict' || err.code === 'not-found')) return false;
      throw err;
    }
  }

  private seal(key: string, plain: string): string {
    return seal(this.primary, key, plain);
  }

  private openShared(kv: KeyValue): KeyValue {
    let out = this.opened.get(kv);
    if (!out) {
      out = this.openKv(kv);
      this.opened.set(kv, out);
    }
    return out;
  }

  /** Decrypts a KeyValue read from the inner store; values written before encryption pass as they are. */
  openKv(kv: KeyValue): KeyValue {
    if (!isSealed(kv.value)) return kv;
    try {
      return { ...kv, value: open(kv.value, kv.key, this.keys) };
    } catch (err) {
      throw this.failure(err, kv.key);
    }
  }

  /** Store errors carry the current value: decrypt it too (or drop it when it cannot be). */
  private openError(err: unknown): unknown {
    if (!(err instanceof StoreError) || !err.current || !isSealed(err.current.value)) return err;
    let current: KeyValue | undefined;
    try {
      current = this.openKv(err.current);
    } catch {
      current = undefined;
    }
    const copy = new StoreError(err.code, err.message, current);
    copy.stack = err.stack;
    return copy;
  }

  /** Turns an EnvelopeError into the ApiError a client sees, logging it (rate-limited). */
  private failure(err: unknown, storageKey: string): unknown {
    if (!(err instanceof EnvelopeError)) return err;
    const now = Date.now();
    const tag = `${err.code}:${err.keyId}`;
    if ((this.reported.get(tag) ?? 0) + REPORT_EVERY_MS <= now) {
      this.reported.set(tag, now);
      this.log?.error(
        { keyId: err.keyId, key: storageKey, known: [...this.keys.keys()] },
        err.code === 'missing-key'
          ? `stored data is encrypted with key "${err.keyId}", which the encryption key file does not hold: restore the key (or the key file) to read it`
          : `stored data fails decryption with key "${err.keyId}": ${err.message}`,
      );
    }
    if (err.code === 'missing-key') {
      return new ApiError(
        503,
        'ServiceUnavailable',
        `the server cannot decrypt stored data: encryption key "${err.keyId}" is missing from the server's key file`,
      );
    }
    return new ApiError(500, 'InternalError', `Internal error occurred: ${err.message}`);
  }
}
