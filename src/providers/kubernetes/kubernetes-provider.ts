/**
 * The running `kubernetes` provider: its one kind, KubernetesObject, whose connector reads the
 * Provider's credentials and hands out an external client of that target (clients shared per
 * distinct target), and `check`. Each KubernetesObject's target object is watched (one watch
 * per Provider, kind and namespace: target-watch.ts) so a change there has it observed at
 * once. `stop` stops the watches and closes the clients' connections.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { checkTarget } from './check.js';
import { kubernetesObjectClaims } from './claims.js';
import { targetClusterFrom } from './credentials.js';
import { kubernetesObjectKind, type KubernetesObject } from './kinds.js';
import { KubernetesObjectClient } from './kubernetes-object.js';
import { TargetClients } from './target-clients.js';
import { TargetWatches } from './target-watch.js';

/** A KubernetesProvider is the module the controllers use. */
export interface KubernetesProvider extends ProviderModule {
  readonly type: 'kubernetes';
}

/** How many KubernetesObjects are reconciled at once (the managed reconciler's default is 4). */
export const KUBERNETES_OBJECT_WORKERS = 16;

/**
 * kubernetesObjectConcreteKind builds the KubernetesObject kind over a set of target clients
 * and, when given, the watches of the targets (without them every object is polled).
 */
export function kubernetesObjectConcreteKind(clients: TargetClients, watches?: TargetWatches): ConcreteKind<KubernetesObject> {
  return {
    ...kindNames(kubernetesObjectKind),
    // The object's identity is its manifest's apiVersion, kind, namespace and name.
    deterministicExternalNames: true,
    implements: kubernetesObjectClaims,
    // Observing or creating an object is a few requests to the target, each mostly waiting on it:
    // four at once left a target's operator hundreds of objects ahead (bench/README.md).
    workers: KUBERNETES_OBJECT_WORKERS,
    connector: {
      async connect(resource, context) {
        context.signal?.throwIfAborted();
        const client = clients.clientFor(targetClusterFrom(context.credentials));
        if (!watches) return new KubernetesObjectClient(client);
        const namespace = resource.metadata.namespace ?? '';
        const owner = `${namespace}/${resource.metadata.name}`;
        const provider = `${context.provider?.metadata.namespace ?? namespace}/${context.provider?.metadata.name ?? resource.spec.providerRef?.name ?? ''}`;
        return new KubernetesObjectClient(client, {
          track: (key) => watches.track(provider, client, key, owner),
          saw: (resourceVersion) => watches.saw(owner, resourceVersion),
          hold: () => watches.hold(owner),
          release: () => watches.release(owner),
          untrack: () => watches.untrack(owner),
        });
      },
    },
    ...(watches ? { watch: (changed: (namespace: string, name: string) => void) => watches.onChange(changed) } : {}),
  };
}

/** createKubernetesProvider returns the running provider. */
export function createKubernetesProvider(): KubernetesProvider {
  const clients = new TargetClients();
  const watches = new TargetWatches();
  return {
    type: 'kubernetes',
    kinds: [kubernetesObjectConcreteKind(clients, watches)],
    // Clusters as scheduling targets: a class naming no Provider is placed on each cluster.
    placedAcrossProviders: true,
    check: checkTarget,
    async stop() {
      watches.close();
      clients.close();
    },
  };
}
