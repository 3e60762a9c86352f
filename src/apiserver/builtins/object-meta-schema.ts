/**
 * The OpenAPI schema of ObjectMeta and the small reference types every built-in kind
 * shares, with descriptions (shown by `kubectl explain`) and the list metadata that
 * strategic merge patch and server-side apply read.
 */
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { arr, bool, int64, obj, str, stringMap, stringSet, time, mapList } from './schema-builders.js';

/** The schema of an OwnerReference: one object this object depends on. */
export function ownerReferenceSchema(): JSONSchemaProps {
  return obj(
    'An OwnerReference names an object that owns this one. When every owner is gone, the garbage collector deletes the dependent. Owners must live in the same namespace as the dependent, or be cluster-scoped.',
    {
      apiVersion: str('The API version (group/version) of the owner.'),
      kind: str('The kind of the owner, e.g. ConfigMap.'),
      name: str('The name of the owner.'),
      uid: str('The uid of the owner; a reference only matches the exact object it was made for.'),
      controller: bool('True when this owner is the managing controller. At most one owner reference may set it.'),
      blockOwnerDeletion: bool(
        'When true and the owner is deleted with foreground propagation, the owner is not removed until this dependent is gone. Setting it requires delete permission on the owner.',
      ),
    },
    { required: ['apiVersion', 'kind', 'name', 'uid'], 'x-kubernetes-map-type': 'atomic' },
  );
}

/** The schema of a ManagedFieldsEntry: the fields one manager owns (server-side apply). */
export function managedFieldsEntrySchema(): JSONSchemaProps {
  return obj('A ManagedFieldsEntry records the set of fields one field manager owns and the operation that made it the owner.', {
    manager: str('The name of the field manager (the client or controller) that owns these fields.'),
    operation: str("The kind of write that produced this entry: 'Apply' or 'Update'."),
    apiVersion: str('The API version in which the field set is expressed; field paths depend on the version.'),
    time: time('When the fields were last changed by this manager through this operation.'),
    fieldsType: str("The format of fieldsV1; the only format is 'FieldsV1'."),
    fieldsV1: {
      type: 'object',
      description:
        'The set of owned fields as a tree of JSON keys: `f:<name>` for a field, `k:<json>` for a list item by key, `v:<json>` for a set item by value, `i:<n>` for an item by position, and `.` for the node itself.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    subresource: str('The subresource the write went through (e.g. status), or empty for the main resource.'),
  });
}

/** A fresh copy of the schema of ObjectMeta, the metadata every persisted object carries. */
export function newObjectMetaSchema(): JSONSchemaProps {
  return obj('Standard metadata of an object: its identity (name, namespace, uid), version, labels and annotations, owners and finalizers.', {
    name: str(
      'The unique name of the object within its namespace (or the cluster for cluster-scoped kinds). Set by the client on create, unless generateName is used; it cannot change afterwards.',
    ),
    generateName: str('A prefix from which the server makes a unique name when name is empty: the server appends a random suffix. Only used on create.'),
    namespace: str('The namespace the object lives in. Empty for cluster-scoped kinds. It cannot change after creation.'),
    uid: str(
      'A value the server assigns on create that is unique in time and space; it tells apart objects that had the same name at different times. Read-only.',
    ),
    resourceVersion: str(
      'An opaque value that changes on every write. Clients pass it back on update for optimistic concurrency and use it to start watches; they must not interpret it. Read-only.',
    ),
    generation: int64('A sequence number of changes to the desired state (spec), incremented by the server. Read-only.'),
    creationTimestamp: time('When the server created the object (RFC 3339, UTC). Read-only.'),
    deletionTimestamp: time(
      'When deletion was requested. Set by the server when a delete is accepted but finalizers (or a grace period) still hold the object; once set it cannot be unset. Read-only.',
    ),
    deletionGracePeriodSeconds: int64(
      'The seconds the object is given to terminate gracefully before it is removed. Only set together with deletionTimestamp. Read-only.',
    ),
    labels: stringMap(
      'Key/value pairs used to organise and select objects (label selectors). Keys are qualified names with an optional DNS prefix; values are at most 63 characters.',
      'A label value.',
    ),
    annotations: stringMap(
      'Key/value pairs for arbitrary non-identifying data that tools and controllers attach to the object. They are not used for selection.',
      'An annotation value.',
    ),
    ownerReferences: mapList(
      'The objects this object depends on. When all of them are deleted the object is garbage-collected; at most one of them may be the managing controller.',
      ownerReferenceSchema(),
      ['uid'],
    ),
    finalizers: stringSet(
      'Names of pending cleanup steps. While this list is not empty a deleted object stays (with deletionTimestamp set) until the responsible controllers remove their entries.',
      'A finalizer name, usually domain-qualified (example.com/cleanup).',
      true,
    ),
    managedFields: arr('Which field manager owns which fields, maintained by the server for server-side apply.', managedFieldsEntrySchema(), {
      'x-kubernetes-list-type': 'atomic',
    }),
    selfLink: str('Deprecated and always empty; kept for compatibility with older clients.'),
  });
}

/**
 * The schema of ObjectMeta, shared: do not mutate it (call `newObjectMetaSchema()` for a
 * private copy). Custom resources use it for their `metadata` too.
 */
export const objectMetaSchema: JSONSchemaProps = newObjectMetaSchema();

/** The schema of an ObjectReference: a pointer to any object, possibly to a field within it. */
export function objectReferenceSchema(description: string): JSONSchemaProps {
  return obj(
    description,
    {
      apiVersion: str('The API version of the referenced object.'),
      kind: str('The kind of the referenced object.'),
      namespace: str('The namespace of the referenced object.'),
      name: str('The name of the referenced object.'),
      uid: str('The uid of the referenced object.'),
      resourceVersion: str('The resource version of the referenced object at the time the reference was made.'),
      fieldPath: str('A path to a part of the object rather than the whole, e.g. spec.containers{app} for one container of a pod.'),
    },
    { 'x-kubernetes-map-type': 'atomic' },
  );
}

/** The schema of a LocalObjectReference: the name of an object in the same namespace. */
export function localObjectReferenceSchema(description: string): JSONSchemaProps {
  return obj(
    description,
    { name: str('The name of the referenced object in the same namespace.') },
    {
      'x-kubernetes-map-type': 'atomic',
    },
  );
}

/** The schema of a whole object of a kind: apiVersion, kind, metadata and the kind's own fields. */
export function resourceSchema(description: string, properties: Record<string, JSONSchemaProps>, required: string[] = []): JSONSchemaProps {
  return {
    type: 'object',
    description,
    properties: {
      apiVersion: str(
        'The versioned schema of this representation of the object (group/version, or just the version for the core group). Servers convert recognised versions to their internal form.',
      ),
      kind: str('The REST resource kind this object represents, in CamelCase. Servers infer it from the endpoint when it is left out.'),
      metadata: newObjectMetaSchema(),
      ...properties,
    },
    ...(required.length ? { required } : {}),
  };
}
