/**
 * network.conductor.io/v1alpha1 — LoadBalancer (docs/design.md 3.1; the seeds' IngressClaim: "Gold"
 * a cloud load balancer, "Silver" an HAProxy/nginx, "Bronze" a port on one machine).
 */
import { s, type Infer } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineClaimKind } from '../common/claim.js';
import { localRef, targetAddress } from '../common/fields.js';
import { V1ALPHA1 } from '../well-known.js';

export const NETWORK_GROUP = 'network.conductor.io';

/** The keys of a LoadBalancer's connection Secret. */
export const LOAD_BALANCER_CONNECTION_KEYS = ['address', 'port', 'url'] as const;

export const LOAD_BALANCER_PROTOCOLS = ['TCP', 'HTTP', 'HTTPS'] as const;

const port = () => s.integer({ minimum: 1, maximum: 65535 });

/** One backend of a load balancer: an address, a claim or a Service. */
export const loadBalancerTarget = () =>
  s
    .object({
      address: targetAddress(true)
        .describe(
          'host:port of a backend: a DNS hostname, an IPv4 address or an IPv6 address in brackets, and a port from 1 to 65535. Link-local and cloud metadata addresses are refused.',
        )
        .optional(),
      claimRef: s
        .object({
          apiVersion: s.string().describe('API version of the claim.').optional(),
          kind: s.string().describe('Kind of the claim.'),
          name: s.string({ minLength: 1 }).describe('Name of the claim (same namespace).'),
        })
        .describe('A claim in the same namespace whose connection details name the backend.')
        .optional(),
      serviceRef: s
        .object({
          name: s.string({ minLength: 1 }).describe('Name of the Service (same namespace).'),
          port: port().describe('The Service port.'),
        })
        .describe('A Service in the same namespace.')
        .optional(),
    })
    .rules({
      rule: '[has(self.address), has(self.claimRef), has(self.serviceRef)].filter(x, x).size() == 1',
      message: 'exactly one of address, claimRef or serviceRef must be set',
    });
export type LoadBalancerTarget = Infer<ReturnType<typeof loadBalancerTarget>>;

/** The most targets a load balancer takes. */
export const MAX_TARGETS = 64;

export const loadBalancerKind = defineClaimKind({
  group: NETWORK_GROUP,
  version: V1ALPHA1,
  kind: 'LoadBalancer',
  plural: 'loadbalancers',
  shortNames: ['lb'],
  description: 'A LoadBalancer claims a load balancer in front of targets. Its connection Secret has the keys address, port and url.',
  connectionKeys: LOAD_BALANCER_CONNECTION_KEYS,
  portable: {
    ports: s.array(port(), { listType: 'set' }).describe('The ports the load balancer listens on.').optional(),
    protocol: s.enumOf(LOAD_BALANCER_PROTOCOLS).describe('TCP, HTTP or HTTPS.').optional(),
    // Bounded: Kubernetes prices each target's CEL rule by how many targets there may be.
    targets: s.array(loadBalancerTarget(), { listType: 'atomic', maxItems: MAX_TARGETS }).describe('The backends traffic goes to (at most 64).').optional(),
    tls: s
      .object({
        secretRef: localRef('Secret holding the certificate and key (tls.crt, tls.key)').optional(),
      })
      .describe('Terminate TLS at the load balancer.')
      .optional(),
  },
});
export type LoadBalancer = ObjectOf<typeof loadBalancerKind>;

export const networkKinds = [loadBalancerKind] as const;

export const networkRefs = { loadbalancers: loadBalancerKind.ref } as const;
