/**
 * The OpenAPI schemas of a resource type: its kind (from ResourceType.schema, with
 * `metadata` pointing at the shared ObjectMeta) and its list kind. Both carry the
 * `x-kubernetes-group-version-kind` extension that kubectl uses to find a kind's schema.
 */
import type { ResourceType } from '../registry/resource-type.js';
import {
  API_VERSION_DESCRIPTION,
  KIND_DESCRIPTION,
  LIST_META_DESCRIPTION,
  OBJECT_META_DESCRIPTION,
  refTo,
  refWith,
  type SchemaObject,
} from './meta-schemas.js';
import { metaName, schemaName } from './names.js';
import { withNamedScalars } from './scalar-schemas.js';

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withDescription(existing: unknown, type: string, description: string): SchemaObject {
  const base: SchemaObject = isObject(existing) ? { ...existing } : { type };
  if (typeof base.description !== 'string' || base.description === '') base.description = description;
  return base;
}

/**
 * kindSchema is the schema of a resource type's kind. The input schema is not modified:
 * only the top level is copied, to replace `apiVersion`, `kind` and `metadata`, and with
 * `namedScalars` (OpenAPI v3) the paths to int-or-string fields, which then reference the
 * shared Quantity or IntOrString schema (scalar-schemas.ts).
 */
export function kindSchema(rt: ResourceType, options: { namedScalars?: boolean } = {}): SchemaObject {
  const source = options.namedScalars ? withNamedScalars(rt.schema) : (rt.schema as SchemaObject);
  const properties: SchemaObject = isObject(source.properties) ? { ...source.properties } : {};
  const metadata = properties.metadata;
  const metaDescription =
    isObject(metadata) && typeof metadata.description === 'string' && metadata.description !== '' ? metadata.description : OBJECT_META_DESCRIPTION;
  properties.apiVersion = withDescription(properties.apiVersion, 'string', API_VERSION_DESCRIPTION);
  properties.kind = withDescription(properties.kind, 'string', KIND_DESCRIPTION);
  properties.metadata = refWith(metaName('ObjectMeta'), metaDescription, { default: {} });
  const sorted: SchemaObject = {};
  for (const key of Object.keys(properties).sort()) sorted[key] = properties[key];
  return {
    ...source,
    description:
      typeof source.description === 'string' && source.description !== ''
        ? source.description
        : `${rt.kind} is served by Conductor as ${rt.group ? `${rt.group}/` : ''}${rt.version}.`,
    type: 'object',
    properties: sorted,
    'x-kubernetes-group-version-kind': [{ group: rt.group, version: rt.version, kind: rt.kind }],
  };
}

/** listSchema is the schema of a resource type's list kind (`MySQLInstanceList`). */
export function listSchema(rt: ResourceType): SchemaObject {
  return {
    description: `${rt.listKind} is a list of ${rt.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
      items: {
        type: 'array',
        description: `The ${rt.kind} objects.`,
        items: refTo(schemaName(rt, rt.kind)),
      },
      kind: { type: 'string', description: KIND_DESCRIPTION },
      metadata: refWith(metaName('ListMeta'), LIST_META_DESCRIPTION, { default: {} }),
    },
    'x-kubernetes-group-version-kind': [{ group: rt.group, version: rt.version, kind: rt.listKind }],
  };
}
