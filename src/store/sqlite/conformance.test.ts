/**
 * The Store conformance suite (store/testing/conformance.ts) on the SQLite backend: a store
 * on a fresh file per test.
 */
import { storeConformance } from '../testing/conformance.js';
import { tempStore } from './testing.js';

storeConformance({
  name: 'sqlite',
  async open(options = {}) {
    const t = tempStore(options);
    return {
      get store() {
        return t.store;
      },
      reopen: () => t.reopen(),
      watcherCount: () => t.store.stats().watchers,
      cleanup: () => t.cleanup(),
    };
  },
  ordersConcurrentWrites: true,
  propertyRuns: { list: 30, watch: 40 },
});
