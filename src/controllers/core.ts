/**
 * The controllers the API server itself depends on to honour the Kubernetes contract:
 * namespace deletion (removing a namespace's contents) and garbage collection
 * (ownerReferences with background, foreground and orphan propagation).
 */
import type { Logger } from 'pino';
import type { Client } from '../client/types.js';
import type { ResourceCatalog } from './catalog.js';
import { GarbageCollector } from './gc/garbage-collector.js';
import { NamespaceController } from './namespace/namespace-controller.js';

export interface RunningControllers {
  stop(): void;
}

export async function startCoreControllers(client: Client, catalog: ResourceCatalog, log: Logger): Promise<RunningControllers> {
  const gc = new GarbageCollector(client, catalog, log.child({ controller: 'garbage-collector' }));
  const ns = new NamespaceController(client, catalog, log.child({ controller: 'namespace' }));
  gc.start();
  ns.start();
  return {
    stop() {
      gc.stop();
      ns.stop();
    },
  };
}
