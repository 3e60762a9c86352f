/**
 * copyStore copies every key of one Store into another (`conductor migrate`: a SQLite data
 * dir into etcd). Values are copied byte for byte — encrypted Secrets stay encrypted, under
 * the same keys — from one consistent revision of the source; the target gets new revisions
 * (its own). Then the counts per resource prefix are compared.
 */
import { StoreError, type Store } from './types.js';

export interface CopyProgress {
  /** Keys copied so far. */
  copied: number;
  /** Keys the source holds at the revision copied. */
  total: number;
}

export interface PrefixCount {
  /** `/registry/<group>/<resource>/`, or the key's first segments for other keys. */
  prefix: string;
  source: number;
  target: number;
}

export interface CopyResult {
  /** The source revision copied. */
  revision: number;
  copied: number;
  /** Every prefix with its count in the source and in the target; they match when `verified`. */
  counts: PrefixCount[];
  verified: boolean;
}

export interface CopyOptions {
  /** The target may hold keys: delete every one of them first (default: refuse). */
  replace?: boolean;
  /** Called after each batch. */
  onProgress?: (progress: CopyProgress) => void;
  /** Keys listed per page (default 500). */
  pageSize?: number;
  /** Writes in flight at once (default 32). */
  concurrency?: number;
}

/** A CopyRefusedError says the target already holds keys and `replace` was not given. */
export class CopyRefusedError extends Error {
  constructor(readonly keys: number) {
    super(`the target already holds ${keys} keys: refusing to mix two Conductors' objects (use --force to delete them first)`);
    this.name = 'CopyRefusedError';
  }
}

/** prefixOf groups a key by resource: `/registry/<group>/<resource>/` (or the key's first two segments). */
export function prefixOf(key: string): string {
  const parts = key.split('/');
  // ['', 'registry', group, resource, ...]
  if (parts[1] === 'registry' && parts.length > 4) return `/registry/${parts[2]}/${parts[3]}/`;
  return parts.length > 2 ? `/${parts[1]}/` : key;
}

export async function copyStore(source: Store, target: Store, options: CopyOptions = {}): Promise<CopyResult> {
  const pageSize = options.pageSize ?? 500;
  const concurrency = options.concurrency ?? 32;
  const existing = await target.count('');
  if (existing > 0) {
    if (!options.replace) throw new CopyRefusedError(existing);
    await deleteAll(target, pageSize, concurrency);
  }
  const first = await source.list('', { limit: 1 });
  const revision = first.revision;
  const total = first.items.length + first.remaining;
  const sourceCounts = new Map<string, number>();
  let copied = 0;
  let startAfter: string | undefined;
  for (;;) {
    const page = await source.list('', { limit: pageSize, startAfter, revision });
    await inBatches(page.items, concurrency, async (kv) => {
      try {
        await target.create(kv.key, () => kv.value);
      } catch (err) {
        throw new Error(`cannot copy ${kv.key}: ${(err as Error).message}`, { cause: err });
      }
    });
    for (const kv of page.items) sourceCounts.set(prefixOf(kv.key), (sourceCounts.get(prefixOf(kv.key)) ?? 0) + 1);
    copied += page.items.length;
    options.onProgress?.({ copied, total });
    if (!page.more || page.items.length === 0) break;
    startAfter = page.items[page.items.length - 1].key;
  }
  const counts: PrefixCount[] = [];
  for (const [prefix, n] of [...sourceCounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    counts.push({ prefix, source: n, target: await target.count(prefix) });
  }
  const targetTotal = await target.count('');
  const verified = counts.every((c) => c.source === c.target) && targetTotal === copied;
  if (targetTotal !== copied) counts.push({ prefix: '(all keys)', source: copied, target: targetTotal });
  return { revision, copied, counts, verified };
}

/** deleteAll removes every key of `store`, page by page. */
async function deleteAll(store: Store, pageSize: number, concurrency: number): Promise<void> {
  for (;;) {
    const page = await store.list('', { limit: pageSize });
    if (page.items.length === 0) return;
    await inBatches(page.items, concurrency, async (kv) => {
      try {
        await store.delete(kv.key);
      } catch (err) {
        if (!(err instanceof StoreError && err.code === 'not-found')) throw err;
      }
    });
  }
}

/** inBatches runs `fn` over `items`, at most `concurrency` at once; the first failure fails all. */
async function inBatches<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += concurrency) {
    await Promise.all(items.slice(i, i + concurrency).map(fn));
  }
}
