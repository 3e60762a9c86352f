/**
 * The shared apimachinery schemas every group-version document carries: ObjectMeta and
 * ListMeta (referenced by each kind), Status, DeleteOptions and Patch (referenced by the
 * operations). They are written in the OpenAPI v3 form; refs point at
 * `#/components/schemas/...` and are rewritten for OpenAPI v2.
 */
import { metaName } from './names.js';

/** A SchemaObject is an OpenAPI schema as plain JSON (refs, extensions and all). */
export type SchemaObject = { [key: string]: unknown };

/** refTo is a v3 reference to a named schema. */
export function refTo(name: string): SchemaObject {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * refWith references a named schema while keeping a description of the referring field
 * (OpenAPI 3.0 ignores siblings of `$ref`, so the reference sits inside `allOf`).
 */
export function refWith(name: string, description: string, extra: SchemaObject = {}): SchemaObject {
  return { description, allOf: [refTo(name)], ...extra };
}

const str = (description: string): SchemaObject => ({ type: 'string', description });
const int64 = (description: string): SchemaObject => ({ type: 'integer', format: 'int64', description });
const int32 = (description: string): SchemaObject => ({ type: 'integer', format: 'int32', description });
const bool = (description: string): SchemaObject => ({ type: 'boolean', description });
const time = (description: string): SchemaObject => ({ type: 'string', format: 'date-time', description });
const stringMap = (description: string): SchemaObject => ({
  type: 'object',
  additionalProperties: { type: 'string', default: '' },
  description,
});

export const API_VERSION_DESCRIPTION =
  'The versioned schema this object is written in (group/version, or just the version for the core group). ' +
  'The server converts known versions to the version it stores and rejects unknown ones.';
export const KIND_DESCRIPTION =
  'The kind of object this is, in CamelCase. The server can infer it from the endpoint a request is sent to; ' + 'it cannot be changed.';
export const OBJECT_META_DESCRIPTION = "Standard object metadata: name, namespace, labels, annotations, owners, finalizers and the server's bookkeeping.";
export const LIST_META_DESCRIPTION = 'Standard list metadata: the resource version of the list and the continue token.';

const objectMeta: SchemaObject = {
  description:
    'ObjectMeta is the metadata every persisted object carries: its identity, labels and annotations, ' + 'ownership and the fields the server maintains.',
  type: 'object',
  properties: {
    annotations: stringMap('Unstructured key/value data set by tools and controllers. Not used to select objects.'),
    creationTimestamp: time('When the server created the object (RFC 3339, UTC). Set by the server; read-only.'),
    deletionGracePeriodSeconds: int64(
      'Seconds the object is allowed to take to terminate gracefully before it is removed. Set with deletionTimestamp; read-only.',
    ),
    deletionTimestamp: time(
      'When the object was asked to be deleted (RFC 3339). While finalizers remain the object stays visible with this field set. Read-only.',
    ),
    finalizers: {
      type: 'array',
      items: { type: 'string', default: '' },
      description: 'Keys that must all be removed before a deleted object is removed from storage. Each names the controller responsible for clearing it.',
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    generateName: str('A prefix the server uses to generate a unique name when name is empty. The generated name is the prefix followed by random characters.'),
    generation: int64('A sequence number for the desired state (spec), incremented by the server. Read-only.'),
    labels: stringMap('Key/value pairs used to organise and select objects (label selectors).'),
    managedFields: {
      type: 'array',
      items: refTo(metaName('ManagedFieldsEntry')),
      description: 'Which field managers own which fields, maintained by the server for server-side apply. Rarely edited by hand.',
      'x-kubernetes-list-type': 'atomic',
    },
    name: str('The name of the object, unique within its namespace (or cluster-wide for cluster-scoped kinds). Cannot be changed.'),
    namespace: str('The namespace the object lives in. Empty for cluster-scoped kinds; defaults to "default" for namespaced ones. Cannot be changed.'),
    ownerReferences: {
      type: 'array',
      items: refTo(metaName('OwnerReference')),
      description:
        'Objects this object depends on. When every owner is gone the garbage collector removes this object; at most one owner may be the managing controller.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    resourceVersion: str('An opaque value that changes whenever the object changes; used for optimistic concurrency and to start watches. Read-only.'),
    selfLink: str('Deprecated and always empty.'),
    uid: str('A unique identifier for this incarnation of the object, set by the server. Read-only.'),
  },
};

const listMeta: SchemaObject = {
  description: 'ListMeta is the metadata of a list: the resource version it was read at and how to get the next page.',
  type: 'object',
  properties: {
    continue: str('An opaque token to pass as the continue parameter to fetch the next page; empty on the last page.'),
    remainingItemCount: int64('An estimate of the number of items after this page, when the server can tell.'),
    resourceVersion: str('The resource version the list was read at; a watch can start from it.'),
    selfLink: str('Deprecated and always empty.'),
  },
};

const ownerReference: SchemaObject = {
  description: 'OwnerReference identifies an object that owns the referring object.',
  type: 'object',
  required: ['apiVersion', 'kind', 'name', 'uid'],
  properties: {
    apiVersion: str('API version of the owner.'),
    blockOwnerDeletion: bool('When true and the owner has the foregroundDeletion finalizer, the owner is not removed until this object is.'),
    controller: bool('True when the owner is the managing controller of this object.'),
    kind: str('Kind of the owner.'),
    name: str('Name of the owner.'),
    uid: str('UID of the owner.'),
  },
  'x-kubernetes-map-type': 'atomic',
};

const managedFieldsEntry: SchemaObject = {
  description: 'ManagedFieldsEntry records the fields one field manager owns, and through which operation.',
  type: 'object',
  properties: {
    apiVersion: str('The version of the resource the fields are expressed in.'),
    fieldsType: str('The format of fieldsV1; always "FieldsV1".'),
    fieldsV1: {
      type: 'object',
      description: 'The set of owned fields, as a trie of field paths.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    manager: str('The name of the field manager.'),
    operation: str('The operation that produced this entry: "Apply" or "Update".'),
    subresource: str('The subresource written through, if any (for example "status").'),
    time: time('When the entry last changed.'),
  },
};

const statusCause: SchemaObject = {
  description: 'StatusCause gives one reason an operation failed, usually naming the offending field.',
  type: 'object',
  properties: {
    field: str('The field that caused the error, as a path such as "spec.ports[0].port". May be empty.'),
    message: str('A human-readable description of the cause.'),
    reason: str('A machine-readable description of the cause, such as FieldValueInvalid.'),
  },
};

const statusDetails: SchemaObject = {
  description: 'StatusDetails says which object a Status is about and why it failed.',
  type: 'object',
  properties: {
    causes: {
      type: 'array',
      items: refTo(metaName('StatusCause')),
      description: 'The individual causes of the failure.',
      'x-kubernetes-list-type': 'atomic',
    },
    group: str('The group of the object.'),
    kind: str('The kind of the object.'),
    name: str('The name of the object.'),
    retryAfterSeconds: int32('Seconds to wait before retrying, when the failure is temporary.'),
    uid: str('The UID of the object.'),
  },
};

const status: SchemaObject = {
  description: 'Status is the result of an operation that does not return an object, and the body of every error.',
  type: 'object',
  properties: {
    apiVersion: str(API_VERSION_DESCRIPTION),
    code: int32('The HTTP status code of the result.'),
    details: refWith(metaName('StatusDetails'), 'More data about the object and the causes of the failure.'),
    kind: str(KIND_DESCRIPTION),
    message: str('A human-readable description of the result.'),
    metadata: refWith(metaName('ListMeta'), LIST_META_DESCRIPTION, { default: {} }),
    reason: str('A machine-readable reason for a failure, such as NotFound or Conflict.'),
    status: str('"Success" or "Failure".'),
  },
  'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
};

const preconditions: SchemaObject = {
  description: 'Preconditions must hold for a delete to go ahead.',
  type: 'object',
  properties: {
    resourceVersion: str('The object must have this resource version.'),
    uid: str('The object must have this UID.'),
  },
};

const deleteOptions: SchemaObject = {
  description: 'DeleteOptions may be sent with a delete request.',
  type: 'object',
  properties: {
    apiVersion: str(API_VERSION_DESCRIPTION),
    dryRun: {
      type: 'array',
      items: { type: 'string', default: '' },
      description: 'When "All", the request is validated and admitted but nothing is persisted.',
      'x-kubernetes-list-type': 'atomic',
    },
    gracePeriodSeconds: int64('Seconds before the object is removed; 0 removes it at once.'),
    ignoreStoreReadErrorWithClusterBreakingPotential: bool(
      'Removes an object that cannot be read from storage. Dangerous; needs the delete-ignore-read-errors permission.',
    ),
    kind: str(KIND_DESCRIPTION),
    orphanDependents: bool('Deprecated: use propagationPolicy. When true, dependents are orphaned.'),
    preconditions: refWith(metaName('Preconditions'), 'Conditions that must hold for the delete to go ahead.'),
    propagationPolicy: str('What happens to dependents: "Orphan" leaves them, "Background" deletes them after the owner, "Foreground" before it.'),
  },
};

const patch: SchemaObject = {
  description:
    'Patch is the body of a PATCH request; its format is given by the Content-Type (JSON patch, merge patch, strategic merge patch or apply configuration).',
  type: 'object',
};

/** META_SCHEMAS are the shared schemas, by name, included in every OpenAPI document. */
export const META_SCHEMAS: ReadonlyArray<[string, SchemaObject]> = [
  [metaName('DeleteOptions'), deleteOptions],
  [metaName('ListMeta'), listMeta],
  [metaName('ManagedFieldsEntry'), managedFieldsEntry],
  [metaName('ObjectMeta'), objectMeta],
  [metaName('OwnerReference'), ownerReference],
  [metaName('Patch'), patch],
  [metaName('Preconditions'), preconditions],
  [metaName('Status'), status],
  [metaName('StatusCause'), statusCause],
  [metaName('StatusDetails'), statusDetails],
];
