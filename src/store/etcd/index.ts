export { openEtcdStore, EtcdStore } from './etcd-store.js';
export { type EtcdStoreOptions, type EtcdTlsOptions, type ReadObserver } from './options.js';
