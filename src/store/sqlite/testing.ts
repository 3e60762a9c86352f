/**
 * Helpers for the store's tests: stores on real files in temporary folders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyValue, StoreEvent, ValueEncoder } from '../types.js';
import type { SqliteStoreOptions } from './options.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

/** A TempStore is a store on a file in its own temporary folder. */
export interface TempStore {
  store: SqliteStore;
  path: string;
  /** reopen closes the store (if open) and opens the same file again. */
  reopen(options?: Partial<SqliteStoreOptions>): Promise<SqliteStore>;
  /** cleanup closes the store and removes the folder. */
  cleanup(): Promise<void>;
}

export function tempStore(options: Partial<SqliteStoreOptions> = {}): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-store-test-'));
  const path = join(dir, 'store.db');
  const open = (extra: Partial<SqliteStoreOptions>) => openSqliteStore({ compactionIntervalMs: 0, ...options, ...extra, path });
  const temp: TempStore = {
    store: open({}),
    path,
    async reopen(extra = {}) {
      await temp.store.close();
      temp.store = open(extra);
      return temp.store;
    },
    async cleanup() {
      await temp.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return temp;
}

/** json is a ValueEncoder storing `body` with the revision embedded, as the API server does. */
export function json(body: Record<string, unknown>): ValueEncoder {
  return (revision) => JSON.stringify({ ...body, rev: revision });
}

/** brief reduces a KeyValue to what tests usually compare. */
export function brief(kv: KeyValue | undefined): string {
  return kv ? `${kv.key}@${kv.createRevision}/${kv.modRevision}=${kv.value}` : '<none>';
}

/** describeEvent renders an event as one line for comparisons. */
export function describeEvent(event: StoreEvent): string {
  return `${event.type} ${brief(event.kv)} prev ${brief(event.prev)}`;
}

/** settle turns a promise into its value or its error's code, for table comparisons. */
export async function settle<T>(promise: Promise<T>): Promise<{ ok: T } | { error: string; current?: KeyValue }> {
  try {
    return { ok: await promise };
  } catch (err) {
    const e = err as { code?: string; current?: KeyValue; message: string };
    return e.current ? { error: e.code ?? e.message, current: e.current } : { error: e.code ?? e.message };
  }
}

/** nextTurn waits until pending immediates (commits, watch steps) have run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
