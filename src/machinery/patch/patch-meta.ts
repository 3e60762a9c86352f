/**
 * Strategic-merge-patch metadata read from a kind's schema: the schema of a field or list
 * item, and a field's `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import { hasOwn, isJsonObject } from './json-access.js';

/** PatchMeta is how a field merges: its strategies (`merge`, `replace`, `retainKeys`) and merge key. */
export interface PatchMeta {
  strategies: ReadonlySet<string>;
  mergeKey?: string;
}

const NO_META: PatchMeta = { strategies: new Set() };

/** The schema of property `key` of an object schema (its properties, allOf parts, then additionalProperties). */
export function fieldSchema(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (!schema) return undefined;
  if (schema.properties && hasOwn(schema.properties, key)) return schema.properties[key];
  for (const part of schema.allOf ?? []) {
    const found = fieldSchema(part, key);
    if (found) return found;
  }
  return isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

/** The schema of the items of an array schema. */
export function itemSchema(schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  if (!schema) return undefined;
  if (schema.items) return schema.items;
  for (const part of schema.allOf ?? []) {
    const found = itemSchema(part);
    if (found) return found;
  }
  return undefined;
}

/** The patch metadata declared on a field's schema. */
export function patchMeta(schema: JSONSchemaProps | undefined): PatchMeta {
  if (!schema) return NO_META;
  const strategy = schema['x-kubernetes-patch-strategy'];
  const mergeKey = schema['x-kubernetes-patch-merge-key'];
  if (typeof strategy !== 'string' && typeof mergeKey !== 'string') return NO_META;
  const strategies = new Set(
    (typeof strategy === 'string' ? strategy : '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  return typeof mergeKey === 'string' && mergeKey ? { strategies, mergeKey } : { strategies };
}
