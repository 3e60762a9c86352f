/**
 * Translates a Kubernetes structural schema into the JSON Schema ajv validates: nullable
 * becomes a `null` type, int-or-string the type pair (dropping the anyOf idiom that spells
 * it), boolean exclusive bounds numeric ones, unknown formats are dropped, and at the object
 * root only the constraints on metadata.name/generateName survive (the server validates
 * ObjectMeta itself). An ajv instance, renewed every hundred compilations, compiles every schema.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { FORMATS } from './formats.js';
import { compilePattern } from './regex.js';
import { isObject } from './node.js';

type AjvSchema = Record<string, unknown>;

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

let shared: Ajv | undefined;
let compilations = 0;
/** ajv keeps every compiled schema's values in its instance scope; a fresh instance bounds that. */
const COMPILATIONS_PER_INSTANCE = 100;

/** The regular-expression engine ajv uses for `pattern`: RE2 syntax, translated. */
function re2(pattern: string): RegExp {
  const re = compilePattern(pattern);
  if (re instanceof RegExp) return re;
  throw re;
}

function ajv(): Ajv {
  if (shared && compilations++ < COMPILATIONS_PER_INSTANCE) return shared;
  compilations = 1;
  const instance = new Ajv({
    allErrors: true,
    strict: false,
    verbose: true,
    validateSchema: false,
    addUsedSchema: false,
    code: { regExp: Object.assign(re2, { code: 'compilePattern' }) },
  });
  for (const [name, check] of FORMATS) instance.addFormat(name, { type: 'string', validate: check });
  shared = instance;
  return instance;
}

function isIntOrStringPair(x: unknown): boolean {
  if (!Array.isArray(x) || x.length !== 2) return false;
  const [a, b] = x as unknown[];
  const only = (s: unknown, t: string): boolean => isObject(s) && s.type === t && Object.keys(s).length === 1;
  return only(a, 'integer') && only(b, 'string');
}

function num(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

function count(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : undefined;
}

interface Ctx {
  readonly depth: number;
  readonly isRoot: boolean;
}

/** Translates one schema node (and its subtree) into ajv JSON Schema. */
export function toAjvSchema(s: JSONSchemaProps, ctx: Ctx = { depth: 0, isRoot: true }): AjvSchema {
  const out: AjvSchema = {};
  if (ctx.depth > 200) return out;
  const sub = (x: unknown): AjvSchema | undefined => (isObject(x) ? toAjvSchema(x, { depth: ctx.depth + 1, isRoot: false }) : undefined);
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const nullable = s.nullable === true;

  const types: string[] = intOrString ? ['integer', 'string'] : typeof s.type === 'string' && TYPES.has(s.type) ? [s.type] : [];
  if (types.length > 0) out.type = nullable ? [...types, 'null'] : types.length === 1 ? types[0] : types;
  if (Array.isArray(s.enum)) out.enum = nullable && !s.enum.includes(null) ? [...s.enum, null] : s.enum;
  if (typeof s.format === 'string' && FORMATS.has(s.format)) out.format = s.format;
  // kept for error messages: kube-openapi names the format in some type errors
  if (typeof s.format === 'string' && s.format) out['x-k8s-format'] = s.format;

  const min = num(s.minimum);
  if (min !== undefined) out[s.exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = min;
  const max = num(s.maximum);
  if (max !== undefined) out[s.exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = max;
  const multipleOf = num(s.multipleOf);
  if (multipleOf !== undefined && multipleOf > 0) out.multipleOf = multipleOf;
  for (const k of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
    const n = count(s[k]);
    if (n !== undefined) out[k] = n;
  }
  if (typeof s.pattern === 'string' && compilePattern(s.pattern) instanceof RegExp) out.pattern = s.pattern;
  if (s.uniqueItems === true) out.uniqueItems = true;
  if (Array.isArray(s.required)) out.required = s.required.filter((r) => typeof r === 'string');

  if (isObject(s.properties)) {
    const props: Record<string, AjvSchema> = {};
    for (const [k, v] of Object.entries(s.properties)) {
      if (ctx.isRoot && (k === 'apiVersion' || k === 'kind')) continue;
      if (ctx.isRoot && k === 'metadata') {
        props.metadata = rootMetadata(v);
        continue;
      }
      const t = sub(v);
      if (t) props[k] = t;
    }
    out.properties = props;
  }
  const ap = sub(s.additionalProperties);
  if (ap) out.additionalProperties = ap;
  const items = sub(s.items);
  if (items) out.items = items;

  const junctor = (key: 'allOf' | 'anyOf' | 'oneOf', list: unknown): void => {
    if (!Array.isArray(list) || list.length === 0) return;
    const translated = list.map(sub).filter((x): x is AjvSchema => x !== undefined);
    if (translated.length > 0) out[key] = translated;
  };
  junctor('anyOf', intOrString && isIntOrStringPair(s.anyOf) ? undefined : s.anyOf);
  if (intOrString && Array.isArray(s.allOf) && isObject(s.allOf[0]) && isIntOrStringPair(s.allOf[0].anyOf)) {
    const [first, ...rest] = s.allOf;
    const { anyOf: _drop, ...firstWithoutAnyOf } = first;
    junctor('allOf', [firstWithoutAnyOf, ...rest]);
  } else junctor('allOf', s.allOf);
  junctor('oneOf', s.oneOf);
  const not = sub(s.not);
  if (not) out.not = not;
  return out;
}

/** At the root only the value validations of metadata.name and metadata.generateName apply. */
function rootMetadata(meta: unknown): AjvSchema {
  const out: AjvSchema = {};
  if (!isObject(meta) || !isObject(meta.properties)) return out;
  const props: Record<string, AjvSchema> = {};
  for (const k of ['name', 'generateName']) {
    const p = meta.properties[k];
    if (isObject(p)) props[k] = toAjvSchema({ ...(p as JSONSchemaProps), type: 'string' }, { depth: 1, isRoot: false });
  }
  out.properties = props;
  return out;
}

/** Compiles a translated schema; never throws (an uncompilable schema accepts everything). */
export function compileAjv(schema: AjvSchema): ValidateFunction {
  const instance = ajv();
  try {
    return instance.compile(schema);
  } catch {
    return instance.compile({});
  } finally {
    instance.removeSchema(schema);
  }
}

/** Checks one value against one schema; ajv's errors, instancePath relative to the value. */
export type ValueCheck = (value: unknown) => ErrorObject[];

const MAX_SHARED_CHECKS = 2000;
const sharedChecks = new Map<string, { validate: ValidateFunction; property: string }>();
let propertyCount = 0;

/**
 * checksFor returns a check for each translated schema. Identical schemas share one check for
 * the life of the process, and those not seen before are compiled together, as the properties
 * of one object schema: at most one ajv compilation per call, however many schemas, and none
 * when every schema was seen before. (The defaults of Conductor's own CRDs are 134 schemas, 44
 * of them distinct; compiled per CRD they cost ~95 ms of a first start.)
 */
export function checksFor(schemas: readonly AjvSchema[]): ValueCheck[] {
  const keys = schemas.map((s) => JSON.stringify(s));
  if (sharedChecks.size + keys.length > MAX_SHARED_CHECKS) sharedChecks.clear();
  const missing = new Map<string, AjvSchema>();
  keys.forEach((k, i) => {
    if (!sharedChecks.has(k)) missing.set(k, schemas[i]);
  });
  if (missing.size > 0) {
    const properties: Record<string, AjvSchema> = {};
    const named: [string, string][] = [];
    for (const [k, schema] of missing) {
      const property = `v${propertyCount++}`;
      properties[property] = schema;
      named.push([k, property]);
    }
    const validate = compileAjv({ type: 'object', properties });
    for (const [k, property] of named) sharedChecks.set(k, { validate, property });
  }
  return keys.map((k) => {
    const { validate, property } = sharedChecks.get(k)!;
    const prefix = `/${property}`;
    return (value) => {
      if (validate({ [property]: value })) return [];
      return (validate.errors ?? []).map((e) => ({ ...e, instancePath: e.instancePath.slice(prefix.length) }));
    };
  });
}
