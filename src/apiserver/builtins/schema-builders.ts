/**
 * Small constructors for the OpenAPI schemas of the built-in kinds. Every call returns a
 * fresh object, so schemas can be inlined many times without sharing mutable parts.
 */
import type { JSONSchemaProps } from '../registry/resource-type.js';

type Extra = Omit<JSONSchemaProps, 'type' | 'description'>;

export function str(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'string', description, ...extra };
}

export function bool(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'boolean', description, ...extra };
}

export function int32(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'integer', format: 'int32', description, ...extra };
}

export function int64(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'integer', format: 'int64', description, ...extra };
}

/** A timestamp with second precision (RFC 3339), like metav1.Time. */
export function time(description: string): JSONSchemaProps {
  return { type: 'string', format: 'date-time', description };
}

/** A timestamp with microsecond precision (RFC 3339), like metav1.MicroTime. */
export function microTime(description: string): JSONSchemaProps {
  return { type: 'string', format: 'date-time', description };
}

/** A map of string to string. */
export function stringMap(description: string, valueDescription = 'A value.'): JSONSchemaProps {
  return { type: 'object', description, additionalProperties: { type: 'string', description: valueDescription } };
}

/** A map of string to base64-encoded bytes. */
export function byteMap(description: string, valueDescription = 'The bytes, base64-encoded.'): JSONSchemaProps {
  return {
    type: 'object',
    description,
    additionalProperties: { type: 'string', format: 'byte', description: valueDescription },
  };
}

/** A struct with named properties. */
export function obj(description: string, properties: Record<string, JSONSchemaProps>, extra: Extra = {}): JSONSchemaProps {
  return { type: 'object', description, properties, ...extra };
}

/** A list. */
export function arr(description: string, items: JSONSchemaProps, extra: Extra = {}): JSONSchemaProps {
  return { type: 'array', description, items, ...extra };
}

/** A list of strings treated as a set by server-side apply (and merged by strategic merge patch when `merge`). */
export function stringSet(description: string, itemDescription: string, merge = false): JSONSchemaProps {
  return arr(description, str(itemDescription), {
    'x-kubernetes-list-type': 'set',
    ...(merge ? { 'x-kubernetes-patch-strategy': 'merge' } : {}),
  });
}

/** A list of strings replaced as a whole. */
export function atomicStringList(description: string, itemDescription: string): JSONSchemaProps {
  return arr(description, str(itemDescription), { 'x-kubernetes-list-type': 'atomic' });
}

/** A list of structs keyed by `keys` for server-side apply and by `keys[0]` for strategic merge patch. */
export function mapList(description: string, items: JSONSchemaProps, keys: string[], patchMerge = true): JSONSchemaProps {
  return arr(description, items, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': keys,
    ...(patchMerge ? { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': keys[0] } : {}),
  });
}
