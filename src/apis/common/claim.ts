/**
 * What every claim kind (abstract resource, docs/design.md 3.1) shares: the generic spec fields
 * the scheduler reads, the status the binder writes, the printer columns, and the CRD
 * label and category that make a kind a claim.
 */
import { s, type Infer, type InferShape, type Shape } from '../schema/builder.js';
import { defineKind, type CrdPrinterColumn, type KindObject } from '../schema/kind.js';
import { conditions, labelSelector, localRef, namespacedRef, objectRef, requirements } from './fields.js';
import { ABSTRACT_LABEL, CLAIM_CATEGORY, CONNECTION_KEYS_ANNOTATION } from '../well-known.js';
import { terminatingColumn } from './terminating-column.js';

/** The spec fields common to every claim kind. */
export const claimSpecFields = {
  requirements: requirements().optional(),
  resourceClass: s
    .string()
    .describe('The profile to bind to or provision from, e.g. performance; when empty, resources with no profile and the default class of the kind.')
    .optional(),
  resourceName: s
    .string({ minLength: 1 })
    .describe(
      'Binds to this concrete resource only (the selector is then not applied); the claim stays Pending while it does not fit. A resource the claim may not use (another kind or profile, bound to another claim, a namespace not allowed) is reported exactly as a name nothing has.',
    )
    .optional(),
  resourceSelector: labelSelector().describe('Only concrete resources whose labels match are considered.').optional(),
  writeConnectionSecretToRef: localRef("Secret the connection details are written to; default: the claim's name").optional(),
};

/** A claim's lifecycle phase. */
export const CLAIM_PHASES = ['Pending', 'Bound', 'Lost'] as const;
export type ClaimPhase = (typeof CLAIM_PHASES)[number];

/** The status every claim kind has. */
export const claimStatus = () =>
  s
    .object({
      phase: s
        .enumOf(CLAIM_PHASES)
        .describe('Pending until bound; Bound; Lost when the bound resource disappeared or no longer records this claim.')
        .optional(),
      resourceRef: objectRef('concrete resource the claim is bound to').optional(),
      classRef: namespacedRef('ResourceClass the bound resource was provisioned from').optional(),
      connectionSecretRef: localRef('Secret holding the connection details').optional(),
      conditions: conditions().optional(),
      observedGeneration: s.integer({ minimum: 0, format: 'int64' }).describe('The metadata.generation the status describes.').optional(),
    })
    .describe('The observed state of the claim.');
export type ClaimStatus = Infer<ReturnType<typeof claimStatus>>;

/** The spec fields every claim has. */
export type ClaimSpec = InferShape<typeof claimSpecFields>;

/**
 * A claim of any kind, including kinds added by CRD: the common spec fields typed, the
 * portable ones unknown. Code that serves every claim kind works with this type.
 */
export type Claim = KindObject<{ spec: ClaimSpec & { [field: string]: unknown }; status?: ClaimStatus }>;

/** The type of a claim's spec with the kind-specific fields `P`. */
export type ClaimSpecOf<P extends Shape> = InferShape<typeof claimSpecFields & P>;

/** The columns of `kubectl get <claims>`. */
export const claimPrinterColumns: CrdPrinterColumn[] = [
  { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Pending, Bound or Lost.' },
  { name: 'Resource', type: 'string', jsonPath: '.status.resourceRef.name', description: 'The concrete resource the claim is bound to.' },
  { name: 'Class', type: 'string', jsonPath: '.spec.resourceClass', description: 'The profile the claim asks for.' },
  {
    name: 'Ready',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    priority: 1,
    description: 'Whether the bound resource is ready for use.',
  },
  { name: 'Resource-Kind', type: 'string', jsonPath: '.status.resourceRef.kind', priority: 1, description: 'The kind of the bound resource.' },
  terminatingColumn,
];

/** Names and the kind-specific portable spec fields of one claim kind. */
export interface ClaimKindOptions<P extends Shape> {
  group: string;
  version: string;
  kind: string;
  plural: string;
  shortNames: string[];
  description: string;
  /** The kind-specific portable fields (common to every implementation). */
  portable: P;
  /**
   * The keys of the kind's connection Secret (the CRD's `conductor.io/connection-keys`
   * annotation, which out-of-process providers read); `key?` marks a key not every
   * implementation publishes.
   */
  connectionKeys: readonly string[];
}

/** The spec Field of a claim kind with portable fields `P`. */
export function claimSpec<P extends Shape>(portable: P) {
  return s.object({ ...claimSpecFields, ...portable }).describe('The desired state: portable configuration and generic requirements.');
}

/** Defines a claim kind: category `claim`, label `conductor.io/abstract: "true"`, status subresource. */
export function defineClaimKind<P extends Shape>(opts: ClaimKindOptions<P>) {
  return defineKind({
    group: opts.group,
    version: opts.version,
    kind: opts.kind,
    plural: opts.plural,
    shortNames: opts.shortNames,
    categories: [CLAIM_CATEGORY],
    description: opts.description,
    labels: { [ABSTRACT_LABEL]: 'true' },
    annotations: { [CONNECTION_KEYS_ANNOTATION]: opts.connectionKeys.join(',') },
    fields: {
      // Required, so readers can rely on it: "anything of this kind" is `spec: {}`.
      spec: claimSpec(opts.portable),
      status: claimStatus().optional(),
    },
    printerColumns: claimPrinterColumns,
  });
}
