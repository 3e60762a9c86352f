export { openEtcdStore, EtcdStore } from './etcd-store.js';
export { type EtcdStoreOptions, type EtcdTlsOptions } from './options.js';
