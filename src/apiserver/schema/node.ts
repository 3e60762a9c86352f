/**
 * A SchemaNode is the engine's normalised view of one structural schema node: the parts of a
 * JSONSchemaProps that pruning, defaulting, list-type checks and CEL rules need, read once
 * and checked for shape, so the per-object walkers never look at raw (possibly garbage)
 * schema JSON again.
 */
import type { JSONSchemaProps, ValidationRule } from '../registry/resource-type.js';

export type ListType = 'atomic' | 'set' | 'map';

export interface SchemaNode {
  readonly schema: JSONSchemaProps;
  /** The declared type, or '' when the node has none (int-or-string, preserve-unknown). */
  readonly type: string;
  readonly format: string;
  /** Declared properties (object nodes with `properties`). */
  readonly properties: ReadonlyMap<string, SchemaNode> | undefined;
  /** The schema of map values (`additionalProperties: {...}`). */
  readonly additional: SchemaNode | undefined;
  /** `additionalProperties: true`: any keys, kept as they are. */
  readonly additionalAny: boolean;
  readonly items: SchemaNode | undefined;
  readonly preserveUnknown: boolean;
  readonly embedded: boolean;
  readonly intOrString: boolean;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  readonly default: unknown;
  readonly listType: ListType;
  readonly listMapKeys: readonly string[];
  readonly mapAtomic: boolean;
  readonly rules: readonly ValidationRule[];
  /** True for the object root and for embedded resources: apiVersion/kind/metadata are special. */
  readonly resourceRoot: boolean;
  /** True only for the top-level object root. */
  readonly isRoot: boolean;
  /** This subtree has something the post-ajv walker must check (list types, embedded, rules). */
  readonly needsWalk: boolean;
  /** This subtree declares at least one default. */
  readonly hasDefaults: boolean;
}

/** A plain JSON object (not an array, not null). */
export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function asSchema(x: unknown): JSONSchemaProps | undefined {
  return isObject(x) ? x : undefined;
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

function rulesOf(s: JSONSchemaProps): ValidationRule[] {
  const raw = s['x-kubernetes-validations'];
  if (!Array.isArray(raw)) return [];
  return raw.filter((r): r is ValidationRule => isObject(r) && typeof r.rule === 'string');
}

/** Builds the node tree for a root schema. Never throws: malformed parts are ignored. */
export function buildNodeTree(root: JSONSchemaProps): SchemaNode {
  return build(asSchema(root) ?? {}, { isRoot: true, depth: 0 });
}

const MAX_DEPTH = 200;

function build(s: JSONSchemaProps, ctx: { isRoot: boolean; depth: number }): SchemaNode {
  const depth = ctx.depth + 1;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const resourceRoot = ctx.isRoot || embedded;
  let properties: Map<string, SchemaNode> | undefined;
  let additional: SchemaNode | undefined;
  let additionalAny = false;
  let items: SchemaNode | undefined;
  if (depth < MAX_DEPTH) {
    const props = asSchema(s.properties);
    if (props) {
      properties = new Map();
      for (const [k, v] of Object.entries(props)) {
        const child = asSchema(v);
        if (child) properties.set(k, build(child, { isRoot: false, depth }));
      }
    }
    const ap = s.additionalProperties;
    if (ap === true) additionalAny = true;
    else if (asSchema(ap)) additional = build(ap as JSONSchemaProps, { isRoot: false, depth });
    const it = asSchema(s.items);
    if (it) items = build(it, { isRoot: false, depth });
  }
  const lt = s['x-kubernetes-list-type'];
  const listType: ListType = lt === 'set' || lt === 'map' ? lt : 'atomic';
  const keys = s['x-kubernetes-list-map-keys'];
  const listMapKeys = Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
  const rules = rulesOf(s);
  const children: SchemaNode[] = [...(properties?.values() ?? []), ...(additional ? [additional] : []), ...(items ? [items] : [])];
  const hasDefault = s.default !== undefined;
  const node: SchemaNode = {
    schema: s,
    type: str(s.type),
    format: str(s.format),
    properties,
    additional,
    additionalAny,
    items,
    preserveUnknown: s['x-kubernetes-preserve-unknown-fields'] === true,
    embedded,
    intOrString: s['x-kubernetes-int-or-string'] === true,
    nullable: s.nullable === true,
    hasDefault,
    default: s.default,
    listType,
    listMapKeys,
    mapAtomic: s['x-kubernetes-map-type'] === 'atomic',
    rules,
    resourceRoot,
    isRoot: ctx.isRoot,
    needsWalk: embedded || listType !== 'atomic' || rules.length > 0 || children.some((c) => c.needsWalk),
    hasDefaults: hasDefault || children.some((c) => c.hasDefaults),
  };
  return node;
}

/** The schema node that applies to the value under `key` of an object node, if any. */
export function childNode(node: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (!node) return undefined;
  return node.properties?.get(key) ?? node.additional;
}
