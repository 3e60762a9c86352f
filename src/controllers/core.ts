/**
 * The controllers the API server itself depends on to honour the Kubernetes contract:
 * namespace deletion (removing a namespace's contents) and garbage collection
 * (ownerReferences with background, foreground and orphan propagation).
 */
import type { Logger } from 'pino';
import type { Client } from '../client/types.js';
import type { ResourceCatalog } from './catalog.js';
import type { ControllerMetrics } from './metrics.js';
import { GarbageCollector } from './gc/garbage-collector.js';
import type { ProcessCaches } from './process-caches.js';
import { NamespaceController } from './namespace/namespace-controller.js';

export interface RunningControllers {
  stop(): void;
}

/** `caches`: where the garbage collector looks owners up before reading them (informers of Conductor's controllers). */
export async function startCoreControllers(
  client: Client,
  catalog: ResourceCatalog,
  log: Logger,
  metrics?: ControllerMetrics,
  caches?: ProcessCaches,
): Promise<RunningControllers> {
  const gc = new GarbageCollector(client, catalog, log.child({ controller: 'garbage-collector' }), metrics, caches);
  const ns = new NamespaceController(client, catalog, log.child({ controller: 'namespace' }), metrics);
  gc.start();
  ns.start();
  return {
    stop() {
      gc.stop();
      ns.stop();
    },
  };
}
