/**
 * The running `kubernetes` provider: its one kind, KubernetesObject, whose connector reads the
 * Provider's credentials and hands out an external client of that target (clients shared per
 * distinct target), and `check`. `stop` closes the clients' connections.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { checkTarget } from './check.js';
import { kubernetesObjectClaims } from './claims.js';
import { targetClusterFrom } from './credentials.js';
import { kubernetesObjectKind, type KubernetesObject } from './kinds.js';
import { KubernetesObjectClient } from './kubernetes-object.js';
import { TargetClients } from './target-clients.js';

/** A KubernetesProvider is the module the controllers use. */
export interface KubernetesProvider extends ProviderModule {
  readonly type: 'kubernetes';
}

/** kubernetesObjectConcreteKind builds the KubernetesObject kind over a set of target clients. */
export function kubernetesObjectConcreteKind(clients: TargetClients): ConcreteKind<KubernetesObject> {
  return {
    ...kindNames(kubernetesObjectKind),
    // The object's identity is its manifest's apiVersion, kind, namespace and name.
    deterministicExternalNames: true,
    implements: kubernetesObjectClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        return new KubernetesObjectClient(clients.clientFor(targetClusterFrom(context.credentials)));
      },
    },
  };
}

/** createKubernetesProvider returns the running provider. */
export function createKubernetesProvider(): KubernetesProvider {
  const clients = new TargetClients();
  return {
    type: 'kubernetes',
    kinds: [kubernetesObjectConcreteKind(clients)],
    // Clusters as scheduling targets: a class naming no Provider is placed on each cluster.
    placedAcrossProviders: true,
    check: checkTarget,
    async stop() {
      clients.close();
    },
  };
}
