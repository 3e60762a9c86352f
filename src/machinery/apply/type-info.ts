/**
 * Type information server-side apply needs from a kind's OpenAPI schema: which lists are
 * atomic, sets or map-lists (and their keys), which maps are atomic, and which map keys are
 * declared fields. A missing schema means granular maps and atomic lists.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import type { JsonValue } from '../object.js';
import { isPlainObject } from '../object.js';
import type { PathElement } from './field-path.js';
import { encodeElement, keyElement, valueElement } from './field-path.js';

export type Schema = JSONSchemaProps | undefined;

/** A ListType says how a list merges: replaced whole, as a set of values, or item by key. */
export type ListType = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: string[] };

/** The schema Kubernetes uses for ObjectMeta, whatever a kind's own schema says about metadata. */
export const objectMetaSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    creationTimestamp: { type: 'string' },
    deletionTimestamp: { type: 'string' },
    deletionGracePeriodSeconds: { type: 'integer' },
    selfLink: { type: 'string' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    ownerReferences: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      items: {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
};

/** The schema of a whole object with the standard ObjectMeta schema for `metadata`. */
export function rootSchema(schema: Schema): JSONSchemaProps {
  return { ...(schema ?? { type: 'object' }), properties: { ...schema?.properties, metadata: objectMetaSchema } };
}

/** The schema of a map field and whether the field is declared (a property) rather than a free key. */
export function fieldSchema(schema: Schema, name: string): { schema: Schema; declared: boolean } {
  const prop = schema?.properties?.[name];
  if (prop) return { schema: prop, declared: true };
  const extra = schema?.additionalProperties;
  if (typeof extra === 'object') return { schema: extra, declared: false };
  return { schema: undefined, declared: false };
}

/** True when the schema makes an object a single value (`x-kubernetes-map-type: atomic`). */
export function isAtomicMap(schema: Schema): boolean {
  return schema?.['x-kubernetes-map-type'] === 'atomic';
}

/** True when an explicit `null` is a legitimate value at this schema. */
export function isNullable(schema: Schema): boolean {
  return schema?.nullable === true;
}

/**
 * How a list merges. `x-kubernetes-list-type` decides; without it, a strategic-merge
 * `x-kubernetes-patch-merge-key` makes a map-list keyed by that field and a merge strategy on
 * a list of scalars makes a set; any other list is atomic.
 */
export function listTypeOf(schema: Schema): ListType {
  const declared = schema?.['x-kubernetes-list-type'];
  if (declared === 'set') return { type: 'set' };
  if (declared === 'map') {
    const keys = schema?.['x-kubernetes-list-map-keys'];
    return keys && keys.length > 0 ? { type: 'map', keys } : { type: 'atomic' };
  }
  if (declared === 'atomic') return { type: 'atomic' };
  const mergeKey = schema?.['x-kubernetes-patch-merge-key'];
  if (typeof mergeKey === 'string' && mergeKey) return { type: 'map', keys: [mergeKey] };
  const strategy = schema?.['x-kubernetes-patch-strategy'];
  const itemType = schema?.items?.type;
  if (
    typeof strategy === 'string' &&
    strategy.split(',').includes('merge') &&
    (itemType === 'string' || itemType === 'integer' || itemType === 'number' || itemType === 'boolean')
  ) {
    return { type: 'set' };
  }
  return { type: 'atomic' };
}

/** A ListShapeError reports a list whose items cannot be addressed (missing or duplicate keys). */
export class ListShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListShapeError';
  }
}

/**
 * The path elements of a granular list's items, in order, or a ListShapeError when an item
 * lacks a key field (and the schema gives no default), a key is not a scalar, or two items
 * share a key.
 */
export function listItemElements(list: JsonValue[], lt: ListType, itemSchema: Schema): PathElement[] | ListShapeError {
  const items = listItems(list, lt, itemSchema);
  return items instanceof ListShapeError ? items : items.elements;
}

/** The path elements of a list's items and their encodings (see encodeElement), in order. */
export interface ListItems {
  elements: PathElement[];
  keys: string[];
}

/** listItems is listItemElements that also returns each element's encoding. */
export function listItems(list: JsonValue[], lt: ListType, itemSchema: Schema): ListItems | ListShapeError {
  const out: PathElement[] = [];
  const keys: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    let pe: PathElement;
    let id: string;
    if (lt.type === 'map') {
      if (!isPlainObject(item)) return new ListShapeError(`element ${i}: associative list item must be an object`);
      const fields: { [name: string]: JsonValue } = {};
      for (const key of lt.keys) {
        let v: JsonValue | undefined = Object.prototype.hasOwnProperty.call(item, key) ? item[key] : undefined;
        if (v === undefined) v = itemSchema?.properties?.[key]?.default as JsonValue | undefined;
        if (v === undefined || v === null) {
          return new ListShapeError(
            `element ${i}: associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`,
          );
        }
        if (typeof v === 'object') {
          return new ListShapeError(`element ${i}: key field ${JSON.stringify(key)} must be a string, number or boolean`);
        }
        fields[key] = v;
      }
      pe = keyElement(fields);
      id = encodeKey(fields);
    } else {
      pe = valueElement(item);
      id = encodeElement(pe);
    }
    if (seen.has(id)) {
      const what = pe.kind === 'key' ? `key ${describeKey(pe.fields)}` : `value ${JSON.stringify(item)}`;
      return new ListShapeError(`duplicate entries for ${what}`);
    }
    seen.add(id);
    out.push(pe);
    keys.push(id);
  }
  return { elements: out, keys };
}

/**
 * encodeElement of a key element whose fields all hold scalars (as listItems makes them),
 * without the general canonical JSON walk: `k:{"name":"x"}`, fields sorted by name.
 */
function encodeKey(fields: { [name: string]: JsonValue }): string {
  const names = Object.keys(fields);
  if (names.length > 1) names.sort(compareNames);
  let out = 'k:{';
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (i > 0) out += ',';
    out += `${JSON.stringify(name)}:${JSON.stringify(fields[name])}`;
  }
  return `${out}}`;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedEntries(fields: { [name: string]: JsonValue }): [string, JsonValue][] {
  return Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function describeKey(fields: { [name: string]: JsonValue }): string {
  return `[${sortedEntries(fields)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',')}]`;
}
