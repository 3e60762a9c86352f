export { openSqliteStore, SqliteStore, type SqliteStoreStats } from './sqlite-store.js';
export {
  defaultRetention,
  defaultCompactionIntervalMs,
  type CommitObserver,
  type RetentionPolicy,
  type SqliteStoreOptions,
  type StoreLogger,
} from './options.js';
export { StorageFullError } from './errors.js';
