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
  type CommitObserver,
  type RetentionPolicy,
  type SqliteStoreOptions,
  type StoreLogger,
} from './sqlite/index.js';
export type { EtcdStore, EtcdStoreOptions, EtcdTlsOptions, ReadObserver } from './etcd/index.js';
import type { EtcdStore, EtcdStoreOptions } from './etcd/index.js';

/**
 * openEtcdStore opens a Store on an etcd cluster. The gRPC client (grpc-js, proto-loader and
 * protobufjs: ~100 ms to load) loads with this call, not with every server that runs on SQLite.
 */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<EtcdStore> {
  const etcd = await import('./etcd/index.js');
  return etcd.openEtcdStore(options);
}
export { copyStore, prefixOf, CopyRefusedError, type CopyOptions, type CopyProgress, type CopyResult, type PrefixCount } from './copy.js';
