/**
 * The well-known labels, annotations, finalizers and categories of Conductor's API
 * (docs/design.md 3.1–3.6), so every controller spells them the same way.
 */

/** The API version of every Conductor kind in this release. */
export const V1ALPHA1 = 'v1alpha1';

/** The namespace administrators' objects live in by default. */
export const SYSTEM_NAMESPACE = 'conductor-system';

/** CRD category of every claim kind (`kubectl get claim -A`). */
export const CLAIM_CATEGORY = 'claim';
/** CRD category of every concrete (managed) kind (`kubectl get managed -A`). */
export const MANAGED_CATEGORY = 'managed';

/** CRD label marking an abstract (claim) kind; new claim kinds are added by a CRD carrying it. */
export const ABSTRACT_LABEL = 'conductor.io/abstract';
/** CRD annotation on a concrete kind: the claim kinds it implements, `<plural>.<group>` comma-separated. */
export const IMPLEMENTS_ANNOTATION = 'conductor.io/implements';

/**
 * CRD annotation on a claim kind: the keys of its connection Secret, comma-separated; a key
 * ending in `?` is published when the implementation has it (a Volume's `path`, or `server`
 * and `export`). On a concrete kind: the keys it publishes beyond its claim kinds' keys.
 */
export const CONNECTION_KEYS_ANNOTATION = 'conductor.io/connection-keys';

/** ResourceClass annotation: `"true"` makes the class the default for the kinds it supports. */
export const IS_DEFAULT_CLASS_ANNOTATION = 'conductor.io/is-default-class';

/** Concrete resource annotation: the external resource's name at the provider. */
export const EXTERNAL_NAME_ANNOTATION = 'conductor.io/external-name';
/**
 * Concrete resource finalizer: kept until the managed reconciler has dealt with the external
 * resource (deleted, released or retained it). The claim controller puts it on the resources
 * it provisions for kinds reconciled in its process, so the reconciler need not write it.
 */
export const MANAGED_PROTECTION_FINALIZER = 'conductor.io/managed-protection';
/** Crash guard: written before the provider's create call. */
export const EXTERNAL_CREATE_PENDING_ANNOTATION = 'conductor.io/external-create-pending';
/** Crash guard: written after the provider's create call succeeded. */
export const EXTERNAL_CREATE_SUCCEEDED_ANNOTATION = 'conductor.io/external-create-succeeded';
/** Crash guard: written after the provider's create call failed. */
export const EXTERNAL_CREATE_FAILED_ANNOTATION = 'conductor.io/external-create-failed';
/** Concrete resource annotation: how often to re-observe, as a duration (`60s`, `5m`). */
export const POLL_INTERVAL_ANNOTATION = 'conductor.io/poll-interval';

/** Annotation on any object that consumes a claim (late binding): the claim's name. */
export const CONSUMES_ANNOTATION = 'conductor.io/consumes';

/** Finalizer on claims: the binding is released before the claim goes. */
export const CLAIM_PROTECTION_FINALIZER = 'conductor.io/claim-protection';

/** The field manager Conductor's own writes use. */
export const CONDUCTOR_FIELD_MANAGER = 'conductor';
