/**
 * Defaulting as Kubernetes applies it to custom resources: first nulls of fields that are
 * neither nullable nor defaulted are dropped, then every declared default is filled in —
 * for absent fields and for nulls of non-nullable fields — in properties, map values and
 * list items, descending into the values (including freshly defaulted ones) so nested
 * defaults apply wherever their parent exists.
 */
import { isObject, type SchemaNode } from './node.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function copy<T>(v: T): T {
  return v === null || typeof v !== 'object' ? v : structuredClone(v);
}

function isNonNullableNull(v: unknown, s: SchemaNode | undefined): boolean {
  return v === null && !!s && s.hasDefault && !s.nullable;
}

function childOf(node: SchemaNode, key: string): SchemaNode | undefined {
  return node.properties?.get(key) ?? node.additional;
}

/** Drops nulls of fields whose schema is neither nullable nor defaulted. */
export function pruneNonNullableNulls(node: SchemaNode | undefined, value: unknown, depth = 0): void {
  if (!node || depth > 200) return;
  if (isObject(value)) {
    for (const k of Object.keys(value)) {
      if (node.resourceRoot && META_FIELDS.has(k)) continue;
      const child = childOf(node, k);
      const v = value[k];
      if (v === null && child && !child.nullable && !child.hasDefault) delete value[k];
      else pruneNonNullableNulls(child, v, depth + 1);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) pruneNonNullableNulls(node.items, item, depth + 1);
  }
}

/** Fills in declared defaults (mutates value). */
export function applyDefaultsTo(node: SchemaNode | undefined, value: unknown, depth = 0): void {
  if (!node || !node.hasDefaults || depth > 200) return;
  if (isObject(value)) {
    if (node.properties) {
      for (const [k, prop] of node.properties) {
        if (!prop.hasDefault || (node.resourceRoot && META_FIELDS.has(k))) continue;
        if (!(k in value) || isNonNullableNull(value[k], prop)) value[k] = copy(prop.default);
      }
    }
    for (const k of Object.keys(value)) {
      if (node.resourceRoot && META_FIELDS.has(k)) continue;
      const prop = node.properties?.get(k);
      if (prop) applyDefaultsTo(prop, value[k], depth + 1);
      else if (node.additional) {
        if (isNonNullableNull(value[k], node.additional)) value[k] = copy(node.additional.default);
        applyDefaultsTo(node.additional, value[k], depth + 1);
      }
    }
  } else if (Array.isArray(value)) {
    const items = node.items;
    if (!items) return;
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items)) value[i] = copy(items.default);
      applyDefaultsTo(items, value[i], depth + 1);
    }
  }
}
