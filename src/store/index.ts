/**
 * The store's public surface: the Store contract and its SQLite backend.
 */
export * from './types.js';
export {
  openSqliteStore,
  SqliteStore,
  StorageFullError,
  defaultRetention,
  defaultCompactionIntervalMs,
  type SqliteStoreStats,
  type RetentionPolicy,
  type SqliteStoreOptions,
  type StoreLogger,
} from './sqlite/index.js';
