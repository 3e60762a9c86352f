/**
 * The coordination.k8s.io/v1 Lease kind: a named lock with a holder and an expiry, used
 * for leader election and heartbeats.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { ResourceType, Strategy } from '../registry/resource-type.js';
import { child, forbidden, invalid, notSupported } from './field-errors.js';
import { resourceSchema } from './object-meta-schema.js';
import { int32, microTime, obj, str } from './schema-builders.js';
import { verbsFor } from './verbs.js';

/** The only coordinated-election strategy Kubernetes defines. */
export const leaseStrategies = ['OldestEmulationVersion'] as const;

function leaseSchema() {
  return resourceSchema('A Lease is a named lock with a holder and an expiry, used for leader election and heartbeats.', {
    spec: obj('The state of the lease.', {
      holderIdentity: str('The identity of the current holder, e.g. a process or pod name.'),
      leaseDurationSeconds: int32('How long, in seconds, candidates wait after the last renewal before they may take the lease over. Must be greater than 0.'),
      acquireTime: microTime('When the current holder acquired the lease.'),
      renewTime: microTime('When the current holder last renewed the lease.'),
      leaseTransitions: int32('How many times the lease has changed holders.'),
      strategy: str(
        'How the holder is chosen under coordinated leader election; OldestEmulationVersion is the only strategy. When set, preferredHolder may name the next holder.',
      ),
      preferredHolder: str('The candidate the coordinator wants to hold the lease next; only with strategy set.'),
    }),
  });
}

/** Causes for a Lease's spec. */
export function validateLease(o: KObject): StatusCause[] {
  const spec = isPlainObject(o.spec) ? o.spec : {};
  const causes: StatusCause[] = [];
  const p = (f: string) => child('spec', f);
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    causes.push(invalid(p('leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    causes.push(invalid(p('leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  const strategy = typeof spec.strategy === 'string' ? spec.strategy : undefined;
  if (strategy !== undefined && !(leaseStrategies as readonly string[]).includes(strategy)) {
    causes.push(notSupported(p('strategy'), strategy, leaseStrategies));
  }
  if (typeof spec.preferredHolder === 'string' && spec.preferredHolder !== '' && !strategy) {
    causes.push(forbidden(p('preferredHolder'), 'may only be specified if `strategy` is defined'));
  }
  return causes;
}

/** A leaseStrategy holds Lease checks. */
export const leaseStrategy: Strategy = {
  validate: (o) => validateLease(o),
  selectableFields: () => ({}),
};

/** The ResourceType of coordination.k8s.io/v1 Lease. */
export function leaseResourceType(): ResourceType {
  return {
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    listKind: 'LeaseList',
    resource: 'leases',
    singular: 'lease',
    shortNames: [],
    categories: [],
    namespaced: true,
    subresources: { status: false },
    verbs: verbsFor('Lease'),
    schema: leaseSchema(),
    printerColumns: [
      {
        name: 'Holder',
        type: 'string',
        description: 'The identity of the current holder.',
        cell: (o) => (isPlainObject(o.spec) && typeof o.spec.holderIdentity === 'string' ? o.spec.holderIdentity : ''),
      },
    ],
    tracksGeneration: false,
    structural: false,
    strategy: leaseStrategy,
    source: { type: 'builtin' },
  };
}
