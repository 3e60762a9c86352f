/**
 * Storage migration for encryption: re-encrypting every covered value under the primary key
 * (after a rotation, or for values written before encryption was on), and counting which
 * keys stored values use (so a key is retired only when nothing needs it).
 */
import type { Logger } from 'pino';
import type { Store } from '../../store/types.js';
import { sealedKeyId } from './envelope.js';
import type { EncryptingStore } from './encrypting-store.js';

/** The usage entry for values stored before encryption was on. */
export const PLAINTEXT = '(plaintext)';
const PAGE = 500;

export interface ReencryptResult {
  /** Values rewritten under the primary key. */
  rewritten: number;
  /** Covered values seen in all. */
  scanned: number;
}

/**
 * Rewrites every covered value not under the primary key. Each rewrite is a
 * compare-and-swap that keeps the object and gives it a new resourceVersion (watchers see
 * MODIFIED); a value written concurrently is left alone, as its writer used the primary key.
 */
export interface ReencryptOptions {
  logger?: Logger;
  signal?: AbortSignal;
  /**
   * Told after each page of values (and once at the start, with nothing scanned): how many were
   * scanned and rewritten so far, of `total` (counted first, only when this is given).
   */
  onProgress?: (progress: ReencryptResult & { total: number }) => void;
}

export async function reencryptAll(store: EncryptingStore, opts: ReencryptOptions = {}): Promise<ReencryptResult> {
  const result: ReencryptResult = { rewritten: 0, scanned: 0 };
  let total = 0;
  if (opts.onProgress) {
    for (const prefix of store.prefixes) total += await store.inner.count(prefix);
    opts.onProgress({ ...result, total });
  }
  for (const prefix of store.prefixes) {
    let startAfter: string | undefined;
    for (;;) {
      if (opts.signal?.aborted) return result;
      const page = await store.inner.list(prefix, { limit: PAGE, startAfter });
      for (const kv of page.items) {
        if (opts.signal?.aborted) return result;
        result.scanned++;
        if (await store.reseal(kv, withRevision)) result.rewritten++;
      }
      // A value written meanwhile may make the scan pass the first count.
      if (page.items.length > 0) opts.onProgress?.({ ...result, total: Math.max(total, result.scanned) });
      if (!page.more || page.items.length === 0) break;
      startAfter = page.items[page.items.length - 1].key;
    }
  }
  if (result.rewritten > 0) opts.logger?.info({ ...result, primary: store.primaryKeyId }, 're-encrypted stored values under the primary key');
  return result;
}

/** Counts the live values under `prefixes` by the key that encrypts them (PLAINTEXT for none). */
export async function keyUsage(store: Store, prefixes: readonly string[]): Promise<Map<string, number>> {
  const usage = new Map<string, number>();
  for (const prefix of prefixes) {
    let startAfter: string | undefined;
    for (;;) {
      const page = await store.list(prefix, { limit: PAGE, startAfter });
      for (const kv of page.items) {
        const id = sealedKeyId(kv.value) ?? PLAINTEXT;
        usage.set(id, (usage.get(id) ?? 0) + 1);
      }
      if (!page.more || page.items.length === 0) break;
      startAfter = page.items[page.items.length - 1].key;
    }
  }
  return usage;
}

/** Puts `revision` into a stored object's metadata.resourceVersion, as the object encoder does. */
export function withRevision(plain: string, revision: number): string {
  let obj: unknown;
  try {
    obj = JSON.parse(plain);
  } catch {
    return plain;
  }
  if (typeof obj !== 'object' || obj === null) return plain;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null) return plain;
  (meta as { resourceVersion?: string }).resourceVersion = revision > 0 ? String(revision) : undefined;
  return JSON.stringify(obj);
}
