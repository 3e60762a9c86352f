/**
 * Quantities and int-or-strings by name. A CRD can only spell an int-or-string field as
 * `x-kubernetes-int-or-string: true` (with the `anyOf: [integer, string]` idiom), which
 * `kubectl explain` shows as a bare `<Object>`. Kubernetes' own kinds reference the shared
 * schemas `io.k8s.apimachinery.pkg.api.resource.Quantity` and `…intstr.IntOrString`, which
 * kubectl shows by name (`limits <map[string]Quantity>`). The documents served here do the
 * same: an int-or-string node whose pattern is the quantity grammar references Quantity, any
 * other int-or-string references IntOrString, keeping the node's description and validations.
 * Only the published documents change; the schema the server validates with is untouched.
 */
import { NON_NEGATIVE_QUANTITY_PATTERN } from '../../machinery/schema-types.js';
import { refTo, type SchemaObject } from './meta-schemas.js';

export const QUANTITY_SCHEMA = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING_SCHEMA = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

/** The two shared schemas, in the OpenAPI v3 form (a type kubectl cannot name, so it shows the schema's name). */
export const SCALAR_SCHEMAS: ReadonlyArray<[string, SchemaObject]> = [
  [
    QUANTITY_SCHEMA,
    // No description: kubectl explain prints a referenced schema's description after the
    // field's own, and each quantity field already says what a quantity is.
    {
      oneOf: [{ type: 'string' }, { type: 'number' }],
    },
  ],
  [
    INT_OR_STRING_SCHEMA,
    {
      description: 'An integer or a string, e.g. 8080 or "http".',
      oneOf: [{ type: 'integer' }, { type: 'string' }],
    },
  ],
];

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The name of the shared schema an int-or-string node stands for, or undefined for any other node. */
function scalarName(node: SchemaObject): string | undefined {
  if (node['x-kubernetes-int-or-string'] !== true) return undefined;
  return node.pattern === NON_NEGATIVE_QUANTITY_PATTERN ? QUANTITY_SCHEMA : INT_OR_STRING_SCHEMA;
}

const NESTED_MAPS = ['properties', 'patternProperties', 'definitions'] as const;
const NESTED_SCHEMAS = ['items', 'additionalProperties', 'not'] as const;
const NESTED_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * withNamedScalars returns `schema` with every int-or-string node referencing its shared
 * schema (through `allOf`, so the node keeps its description). The input is not changed;
 * subtrees without such a node are shared rather than copied.
 */
export function withNamedScalars(schema: SchemaObject): SchemaObject {
  const name = scalarName(schema);
  if (name !== undefined) {
    const { anyOf: _anyOf, ...rest } = schema;
    return { ...rest, allOf: [refTo(name)] };
  }
  let out: SchemaObject | undefined;
  const set = (key: string, value: unknown) => {
    out ??= { ...schema };
    out[key] = value;
  };
  for (const key of NESTED_MAPS) {
    const map = schema[key];
    if (!isObject(map)) continue;
    let changed: SchemaObject | undefined;
    for (const [k, sub] of Object.entries(map)) {
      if (!isObject(sub)) continue;
      const next = withNamedScalars(sub);
      if (next !== sub) (changed ??= { ...map })[k] = next;
    }
    if (changed) set(key, changed);
  }
  for (const key of NESTED_SCHEMAS) {
    const sub = schema[key];
    if (!isObject(sub)) continue;
    const next = withNamedScalars(sub);
    if (next !== sub) set(key, next);
  }
  for (const key of NESTED_LISTS) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const next = list.map((sub: unknown) => (isObject(sub) ? withNamedScalars(sub) : sub));
    if (next.some((s, i) => s !== list[i])) set(key, next);
  }
  return out ?? schema;
}
