/**
 * What every concrete kind (managed infrastructure, docs/design.md 3.2) shares: the spec fields the
 * scheduler, binder and release controllers read, the status the managed reconciler and the
 * binder write, the printer columns, and the CRD category and annotation that make a kind
 * concrete and say which claim kinds it implements.
 */
import { s, type Infer, type InferShape, type Shape } from '../schema/builder.js';
import { defineKind, type CrdPrinterColumn, type KindObject } from '../schema/kind.js';
import { capabilities, conditions, localRef, objectRef, quantities, rebindPolicy, type ObjectReference } from './fields.js';
import { IMPLEMENTS_ANNOTATION, MANAGED_CATEGORY } from '../well-known.js';
import { terminatingColumn } from './terminating-column.js';

/** Whether one claim or several may bind a concrete resource. */
export const SHARING_MODES = ['Exclusive', 'Shared'] as const;
export type SharingMode = (typeof SHARING_MODES)[number];

/** Full: create, update and delete the external resource; ObserveOnly: only observe it (imported). */
export const MANAGEMENT_POLICIES = ['Full', 'ObserveOnly'] as const;
export type ManagementPolicy = (typeof MANAGEMENT_POLICIES)[number];

export const sharing = () =>
  s
    .object({
      mode: s.enumOf(SHARING_MODES).describe('Exclusive: one claim at a time; Shared: several claims, each with its own credentials.'),
      maxClaims: s.integer({ minimum: 1 }).describe('The most claims a Shared resource takes; unlimited when absent.').optional(),
    })
    .rules({ rule: "self.mode == 'Shared' || !has(self.maxClaims)", message: 'maxClaims applies only to mode Shared', fieldPath: '.maxClaims' })
    .describe('Whether several claims may bind this resource.');
export type Sharing = Infer<ReturnType<typeof sharing>>;

/** The spec fields common to every concrete kind. */
export const concreteSpecFields = {
  providerRef: localRef('Provider that manages this resource').optional(),
  rebindPolicy: rebindPolicy().withDefault('Retain'),
  resourceClass: s.string().describe('The profile this resource belongs to; empty for none.').optional(),
  capabilities: capabilities().optional(),
  sharing: sharing().optional(),
  claimRef: objectRef('claim bound to this resource (Exclusive mode); set by the binder, or by an admin to pre-bind').optional(),
  writeConnectionSecretToRef: localRef('Secret the raw connection details are written to, in this namespace').optional(),
  managementPolicy: s
    .enumOf(MANAGEMENT_POLICIES)
    .withDefault('Full')
    .describe('Full: Conductor creates, updates and deletes the external resource; ObserveOnly: it only observes it (imported).'),
};

/** A concrete resource's lifecycle phase. */
export const CONCRETE_PHASES = ['Pending', 'Available', 'Bound', 'Released', 'Failed'] as const;
export type ConcretePhase = (typeof CONCRETE_PHASES)[number];

/** One claim's binding to a Shared resource. */
export const binding = () =>
  s.object({
    claimRef: objectRef('bound claim'),
    requests: quantities('What the claim takes from the resource, e.g. {storage: 5Gi}.').optional(),
    secretName: s.string().describe("The Secret in this namespace holding this claim's own connection details.").optional(),
  });
export type Binding = Infer<ReturnType<typeof binding>>;

/** The status every concrete kind has. */
export const concreteStatus = () =>
  s
    .object({
      phase: s.enumOf(CONCRETE_PHASES).describe('Pending, Available, Bound, Released or Failed.').optional(),
      claim: s.string().describe('The bound claim as namespace/name (Shared: the count and the first few), for display; see claimColumn.').optional(),
      bindings: s.array(binding(), { listType: 'atomic' }).describe('The claims bound to a Shared resource.').optional(),
      allocatable: quantities("Capacity minus the bound claims' requests.").optional(),
      atProvider: s.freeform().describe('The observed state of the external resource.').optional(),
      conditions: conditions().optional(),
      observedGeneration: s.integer({ minimum: 0, format: 'int64' }).describe('The metadata.generation the status describes.').optional(),
    })
    .describe('The observed state of the resource.');
export type ConcreteStatus = Infer<ReturnType<typeof concreteStatus>>;

/** The spec fields every concrete kind has. */
export type ConcreteSpec = InferShape<typeof concreteSpecFields>;

/**
 * A concrete resource of any kind, including kinds of out-of-process providers: the common
 * spec fields typed, the provider-specific ones unknown.
 */
export type ConcreteResource = KindObject<{ spec: ConcreteSpec & { [field: string]: unknown }; status?: ConcreteStatus }>;

/** The type of a concrete spec with provider-specific fields `P`. */
export type ConcreteSpecOf<P extends Shape> = InferShape<typeof concreteSpecFields & P>;

/** The columns of `kubectl get <concrete kind>`. */
export const concretePrinterColumns: CrdPrinterColumn[] = [
  { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Pending, Available, Bound, Released or Failed.' },
  { name: 'Claim', type: 'string', jsonPath: '.status.claim', description: 'The bound claim (namespace/name).' },
  { name: 'Class', type: 'string', jsonPath: '.spec.resourceClass', description: 'The profile the resource belongs to.' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the external resource is ready.' },
  {
    name: 'Synced',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Synced")].status',
    description: 'Whether the last reconcile with the provider succeeded (False: see the Synced condition).',
  },
  { name: 'Provider', type: 'string', jsonPath: '.spec.providerRef.name', priority: 1, description: 'The Provider managing the resource.' },
  {
    name: 'External-Name',
    type: 'string',
    jsonPath: '.metadata.annotations.conductor\\.io/external-name',
    priority: 1,
    description: 'The name at the provider.',
  },
  terminatingColumn,
];

/** Names and provider-specific spec fields of one concrete kind. */
export interface ConcreteKindOptions<P extends Shape> {
  group: string;
  version: string;
  kind: string;
  plural: string;
  shortNames: string[];
  description: string;
  /** The claim kinds it implements, as `<plural>.<group>`. */
  implements: string[];
  /** The provider-specific spec fields. */
  fields: P;
  /** Overrides of common fields' defaults, e.g. a shared server's `sharing`. */
  sharingDefault?: Sharing;
}

/** Defines a concrete kind: category `managed`, annotation `conductor.io/implements`, status subresource. */
export function defineConcreteKind<P extends Shape>(opts: ConcreteKindOptions<P>) {
  const common = opts.sharingDefault ? { ...concreteSpecFields, sharing: sharing().withDefault(opts.sharingDefault).optional() } : concreteSpecFields;
  return defineKind({
    group: opts.group,
    version: opts.version,
    kind: opts.kind,
    plural: opts.plural,
    shortNames: opts.shortNames,
    categories: [MANAGED_CATEGORY],
    description: opts.description,
    annotations: { [IMPLEMENTS_ANNOTATION]: opts.implements.join(',') },
    fields: {
      spec: s.object({ ...common, ...opts.fields }).describe('The desired state: provider-specific configuration and the fields common to concrete resources.'),
      status: concreteStatus().optional(),
    },
    printerColumns: concretePrinterColumns,
  });
}

/**
 * The text of a concrete resource's CLAIM column (`status.claim`): `namespace/name` of the
 * Exclusive claim, or for Shared `N claims: ns/a, ns/b, …` (the first three); empty when
 * unbound. The binder writes it whenever it changes claimRef or bindings.
 */
export function claimColumn(claimRef: ObjectReference | undefined, bindings: readonly Binding[] | undefined): string {
  const show = (r: ObjectReference) => (r.namespace ? `${r.namespace}/${r.name}` : r.name);
  if (bindings && bindings.length > 0) {
    const first = bindings.slice(0, 3).map((b) => show(b.claimRef));
    const more = bindings.length > 3 ? ', …' : '';
    return bindings.length === 1 ? first[0] : `${bindings.length} claims: ${first.join(', ')}${more}`;
  }
  return claimRef ? show(claimRef) : '';
}
