/**
 * The store's public surface: the Store contract and its backends (SQLite, etcd).
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
export { openEtcdStore, EtcdStore, type EtcdStoreOptions, type EtcdTlsOptions } from './etcd/index.js';
