/**
 * network.local.conductor.io/v1alpha1 — the `local` provider's load balancer kinds
 * (DESIGN 3.1 "Bronze" and "Silver", 3.2, 3.7). Both listen on 127.0.0.1 of the machine
 * Conductor runs on and forward to their targets round-robin; both implement LoadBalancer
 * claims:
 * - LocalPortForwarder ("Bronze"): a small TCP proxy process Conductor ships and starts;
 * - HAProxyLoadBalancer ("Silver"): a dedicated haproxy process with a generated config.
 */
import { s, type Infer } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineConcreteKind } from '../common/concrete.js';
import { targetAddress } from '../common/fields.js';
import { V1ALPHA1 } from '../well-known.js';

export const LOCAL_NETWORK_GROUP = 'network.local.conductor.io';

/** The claim kinds both kinds implement (CRD annotation conductor.io/implements). */
export const LOAD_BALANCER_CLAIM_KINDS = ['loadbalancers.network.conductor.io'];

/** The protocols a local listener speaks: TCP forwards bytes, HTTP balances requests (HAProxy). */
export const LOCAL_LISTENER_PROTOCOLS = ['TCP', 'HTTP'] as const;

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

/** One backend of a local listener: an address, a claim or a Service (with their namespace). */
export const localListenerTarget = () =>
  s
    .object({
      address: targetAddress(false)
        .describe('host:port of a backend: a DNS hostname, an IPv4 address or an IPv6 address in brackets, and a port from 1 to 65535. Link-local and cloud metadata addresses are refused unless allowLinkLocalTargets is true.')
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
    .array(localListenerTarget(), { listType: 'atomic' })
    .describe('The backends connections go to, round-robin. Only address targets are resolved; the others are reported in status.atProvider.unsupportedTargets.')
    .optional(),
  allowLinkLocalTargets: s
    .boolean()
    .describe(
      'Allow targets in link-local ranges (169.254.0.0/16, fe80::/10) and cloud metadata endpoints (169.254.169.254, fd00:ec2::254, metadata.google.internal, ...), which are refused by default, hostnames resolving to them included. Set it in a ResourceClass template (spec) for targets the template itself names, or on a resource an admin writes; a claim cannot set it, and claims may never name such targets.',
    )
    .optional(),
});

export const localPortForwarderKind = defineConcreteKind({
  group: LOCAL_NETWORK_GROUP,
  version: V1ALPHA1,
  kind: 'LocalPortForwarder',
  plural: 'localportforwarders',
  shortNames: ['lpf'],
  description:
    'A LocalPortForwarder is a TCP listener on 127.0.0.1 of the machine Conductor runs on, served by a small proxy process Conductor starts, that forwards each connection to the next target in turn.',
  implements: LOAD_BALANCER_CLAIM_KINDS,
  fields: listenerFields('TCP or HTTP; either way connections are forwarded byte for byte.'),
});
export type LocalPortForwarder = ObjectOf<typeof localPortForwarderKind>;

export const haproxyLoadBalancerKind = defineConcreteKind({
  group: LOCAL_NETWORK_GROUP,
  version: V1ALPHA1,
  kind: 'HAProxyLoadBalancer',
  plural: 'haproxyloadbalancers',
  shortNames: ['hlb'],
  description:
    'An HAProxyLoadBalancer is a dedicated haproxy process on the machine Conductor runs on, listening on 127.0.0.1 and balancing round-robin over its targets (mode http for HTTP, tcp for TCP).',
  implements: LOAD_BALANCER_CLAIM_KINDS,
  fields: listenerFields('TCP (haproxy mode tcp: connections are balanced) or HTTP (mode http: requests are balanced).'),
});
export type HAProxyLoadBalancer = ObjectOf<typeof haproxyLoadBalancerKind>;

export const localNetworkKinds = [localPortForwarderKind, haproxyLoadBalancerKind] as const;

export const localNetworkRefs = {
  localportforwarders: localPortForwarderKind.ref,
  haproxyloadbalancers: haproxyLoadBalancerKind.ref,
} as const;
