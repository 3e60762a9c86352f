/**
 * The shapes of the local provider's load balancer kinds (LocalPortForwarder,
 * HAProxyLoadBalancer), as far as this provider reads them. The CRDs themselves live in
 * src/apis/local-network.
 */
import type { KObject } from '../../../machinery/object.js';
import type { GroupKind } from '../../spi.js';

export const localNetworkGroup = 'network.local.conductor.io';
export const localNetworkVersion = 'v1alpha1';

/** The claim kind both listener kinds implement. */
export const loadBalancerClaim: GroupKind = { group: 'network.conductor.io', kind: 'LoadBalancer' };

/** The connection secret keys of a LoadBalancer claim (DESIGN.md 3.1). */
export const loadBalancerSecretKeys = ['address', 'port', 'url'] as const;

/** The address every local listener binds. */
export const listenAddress = '127.0.0.1';

/** A ListenerProtocol is what a local listener speaks. */
export type ListenerProtocol = 'TCP' | 'HTTP';

/** A ListenerTarget is one backend as a resource's spec names it. */
export interface ListenerTarget {
  address?: string;
  claimRef?: { apiVersion?: string; kind: string; namespace?: string; name: string };
  serviceRef?: { namespace?: string; name: string; port: number };
}

/** A ListenerSpec is the provider-specific spec of both listener kinds. */
export interface ListenerSpec {
  /** The preferred port; used when free at creation, else a free one is chosen and kept. */
  port?: number;
  protocol?: ListenerProtocol;
  targets?: ListenerTarget[];
  /** The bound claim (the binder's); a listener forwards only while it is set. */
  claimRef?: { namespace?: string; name: string; uid?: string };
  /** Accept link-local and metadata targets (refused by default). */
  allowLinkLocalTargets?: boolean;
  [field: string]: unknown;
}

/** A LocalListener is a LocalPortForwarder or an HAProxyLoadBalancer. */
export interface LocalListener extends KObject {
  spec: ListenerSpec;
}
