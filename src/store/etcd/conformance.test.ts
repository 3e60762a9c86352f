/**
 * The Store conformance suite (store/testing/conformance.ts) on real etcd: one member for the
 * whole suite, and a 3-member cluster for the write, read and watch parts. Each test gets a
 * store of its own under a key prefix nobody else uses, so tests see only their own keys
 * (revisions and compaction are the cluster's: the suite counts revisions from the store's
 * start).
 */
import { after, before, describe } from 'node:test';
import { etcdMissing, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd.js';
import { storeConformance, type ConformanceBackend } from '../testing/conformance.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';

const missing = etcdMissing();
let stores = 0;

/** backend opens stores on `cluster()` under fresh key prefixes. */
function backend(
  name: string,
  cluster: () => EtcdCluster,
  propertyRuns: ConformanceBackend['propertyRuns'],
  extra: { watchCache?: boolean } = {},
): ConformanceBackend {
  return {
    name,
    async open(options = {}) {
      const n = ++stores;
      const keyPrefix = `/conformance/${process.pid}/${n}`;
      // Each store talks to a different member first (calls go to the first that answers).
      const all = cluster().endpoints;
      const endpoints = all.map((_, i) => all[(i + n) % all.length]);
      const open = () => openEtcdStore({ endpoints, keyPrefix, compactionIntervalMs: 0, ...extra, ...options });
      let store: EtcdStore = await open();
      return {
        get store() {
          return store;
        },
        async reopen() {
          await store.close();
          store = await open();
          return store;
        },
        watcherCount: () => store.watcherCount(),
        cleanup: () => store.close(),
      };
    },
    ordersConcurrentWrites: false,
    propertyRuns,
  };
}

describe('etcd store on one member', { skip: missing }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(1);
  });
  after(async () => {
    await cluster?.stop();
  });
  storeConformance(backend('etcd (1 member)', () => cluster!, { list: 10, watch: 15 }));
  // Gets answered by the watch cache (what the API server uses): the whole contract still holds.
  storeConformance(backend('etcd (1 member, watch cache)', () => cluster!, { list: 5, watch: 5 }, { watchCache: true }));
});

describe('etcd store on a 3-member cluster', { skip: missing }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(3);
  });
  after(async () => {
    await cluster?.stop();
  });
  // Writes, reads and watches, with every call able to go to any member.
  storeConformance(
    backend('etcd (3 members)', () => cluster!, { list: 5, watch: 5 }),
    ['writes', 'reads', 'watch'],
  );
});
