/**
 * network.local.conductor.io/v1alpha1 — the `local` provider's load balancer kinds
 * (docs/design.md 3.1 "Bronze" and "Silver", 3.2, 3.7), defined once: CRD, ResourceRef and TypeScript
 * type. Both listen on 127.0.0.1 of the machine Conductor runs on and forward to their targets
 * round-robin; both implement LoadBalancer claims:
 * - LocalPortForwarder ("Bronze"): a small TCP proxy process Conductor ships and starts;
 * - HAProxyLoadBalancer ("Silver"): a dedicated haproxy process with a generated config.
 */
import { s, type Infer } from '../../../apis/schema/builder.js';
import type { ObjectOf } from '../../../apis/schema/kind.js';
import { targetAddress } from '../../../apis/common/fields.js';
import { LOAD_BALANCER_CONNECTION_KEYS, loadBalancerKind, MAX_TARGETS } from '../../../apis/network/kinds.js';
import { V1ALPHA1 } from '../../../apis/well-known.js';
import type { GroupKind } from '../../spi.js';
import { defineProviderKind, type ClaimKindSupport } from '../../kind-definition.js';

export const LOCAL_NETWORK_GROUP = 'network.local.conductor.io';

/** The claim kind both listener kinds implement. */
export const loadBalancerClaim: GroupKind = { group: loadBalancerKind.group, kind: loadBalancerKind.kind };

/** The connection secret keys of a LoadBalancer claim: exactly the claim kind's. */
export const loadBalancerSecretKeys = LOAD_BALANCER_CONNECTION_KEYS;

const loadBalancerSupport: ClaimKindSupport = {
  claim: loadBalancerKind,
  portableKeys: LOAD_BALANCER_CONNECTION_KEYS,
  connectionSecretKeys: loadBalancerSecretKeys,
};

/** The address every local listener binds. */
export const listenAddress = '127.0.0.1';

/** The protocols a local listener speaks: TCP forwards bytes, HTTP balances requests (HAProxy). */
export const LOCAL_LISTENER_PROTOCOLS = ['TCP', 'HTTP'] as const;

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

/** One backend of a local listener: an address, a claim or a Service (with their namespace). */
export const localListenerTarget = () =>
  s
    .object({
      address: targetAddress(false)
        .describe(
          'host:port of a backend: a DNS hostname, an IPv4 address or an IPv6 address in brackets, and a port from 1 to 65535. Link-local and cloud metadata addresses are refused unless allowLinkLocalTargets is true.',
        )
        .optional(),
      claimRef: s
        .object({
          apiVersion: s.string().describe('API version of the claim.').optional(),
          kind: s.string().describe('Kind of the claim.'),
          namespace: s.string().describe('Namespace of the claim.').optional(),
          name: s.string({ minLength: 1 }).describe('Name of the claim.'),
        })
        .describe('A claim whose connection details name the backend.')
        .optional(),
      serviceRef: s
        .object({
          namespace: s.string().describe('Namespace of the Service.').optional(),
          name: s.string({ minLength: 1 }).describe('Name of the Service.'),
          port: tcpPort().describe('The Service port.'),
        })
        .describe('A Service.')
        .optional(),
    })
    .rules({
      rule: '[has(self.address), has(self.claimRef), has(self.serviceRef)].filter(x, x).size() == 1',
      message: 'exactly one of address, claimRef or serviceRef must be set',
    });
export type LocalListenerTarget = Infer<ReturnType<typeof localListenerTarget>>;

/** The provider-specific fields both listener kinds share. */
const listenerFields = (protocolDescription: string) => ({
  port: tcpPort()
    .describe('The port to listen on (127.0.0.1) when it is free; otherwise a free one is chosen. The port in use is kept across restarts.')
    .optional(),
  protocol: s.enumOf(LOCAL_LISTENER_PROTOCOLS).withDefault('TCP').describe(protocolDescription).optional(),
  targets: s
    .array(localListenerTarget(), { listType: 'atomic', maxItems: MAX_TARGETS })
    .describe(
      'The backends connections go to, round-robin (at most 64). Only address targets are resolved; the others are reported in status.atProvider.unsupportedTargets.',
    )
    .optional(),
  allowLinkLocalTargets: s
    .boolean()
    .describe(
      'Allow targets in link-local ranges (169.254.0.0/16, fe80::/10) and cloud metadata endpoints (169.254.169.254, fd00:ec2::254, metadata.google.internal, ...), which are refused by default, hostnames resolving to them included. Set it in a ResourceClass template (spec) for targets the template itself names, or on a resource an admin writes; a claim cannot set it, and claims may never name such targets.',
    )
    .optional(),
});

export const localPortForwarderKind = defineProviderKind({
  group: LOCAL_NETWORK_GROUP,
  version: V1ALPHA1,
  kind: 'LocalPortForwarder',
  plural: 'localportforwarders',
  shortNames: ['lpf'],
  description:
    'A LocalPortForwarder is a TCP listener on 127.0.0.1 of the machine Conductor runs on, served by a small proxy process Conductor starts, that forwards each connection to the next target in turn.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [loadBalancerSupport],
  fields: listenerFields('TCP or HTTP; either way connections are forwarded byte for byte.'),
});
export type LocalPortForwarder = ObjectOf<typeof localPortForwarderKind>;

export const haproxyLoadBalancerKind = defineProviderKind({
  group: LOCAL_NETWORK_GROUP,
  version: V1ALPHA1,
  kind: 'HAProxyLoadBalancer',
  plural: 'haproxyloadbalancers',
  shortNames: ['hlb'],
  description:
    'An HAProxyLoadBalancer is a dedicated haproxy process on the machine Conductor runs on, listening on 127.0.0.1 and balancing round-robin over its targets (mode http for HTTP, tcp for TCP).',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [loadBalancerSupport],
  fields: listenerFields('TCP (haproxy mode tcp: connections are balanced) or HTTP (mode http: requests are balanced).'),
});
export type HAProxyLoadBalancer = ObjectOf<typeof haproxyLoadBalancerKind>;

/** A ListenerProtocol is what a local listener speaks. */
export type ListenerProtocol = (typeof LOCAL_LISTENER_PROTOCOLS)[number];

/** A ListenerTarget is one backend as a resource's spec names it. */
export type ListenerTarget = LocalListenerTarget;

/** A LocalListener is a LocalPortForwarder or an HAProxyLoadBalancer (their specs are the same). */
export type LocalListener = LocalPortForwarder;

/** The provider-specific spec of both listener kinds. */
export type ListenerSpec = LocalListener['spec'];

/** The listener kinds' ResourceRefs, by plural. */
export const loadBalancerRefs = {
  localportforwarders: localPortForwarderKind.ref,
  haproxyloadbalancers: haproxyLoadBalancerKind.ref,
} as const;
