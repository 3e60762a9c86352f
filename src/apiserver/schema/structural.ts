/**
 * validateStructuralSchema checks a CRD version's openAPIV3Schema the way the Kubernetes API
 * server checks it before accepting a CustomResourceDefinition: the OpenAPI subset CRDs may
 * use, structurality (a type everywhere, nothing but value validations under
 * allOf/anyOf/oneOf/not, metadata restricted to name/generateName), the list/map extensions,
 * defaults (pruned and valid), and that every x-kubernetes-validations rule compiles.
 */
import type { JSONSchemaProps } from '../registry/resource-type.js';
import type { StatusCause } from '../../machinery/errors.js';
import { buildNodeTree, isObject, type SchemaNode } from './node.js';
import { badValue, forbidden, goQuote, invalid, notSupported, required } from './causes.js';
import { compilePattern } from './regex.js';
import {
  compileSchemaRules,
  costErrorMessage,
  estimateCost,
  MAX_REQUEST_BYTES,
  ShapeCache,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type NodeRule,
} from './cel/index.js';
import { finishValidation } from './compile.js';
import { checksFor, toAjvSchema } from './ajv-schema.js';
import { ajvErrorsToCauses } from './openapi-errors.js';
import { Pruner } from './prune.js';

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

type Level = 'root' | 'item' | 'field';

const props = (p: string, k: string): string => `${p}.properties[${k}]`;

function invalidRaw(field: string, rendered: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${rendered}: ${detail}`, field };
}

/** Renders a rule the way Go's %#v prints an apiextensions.ValidationRule. */
function ruleRepr(r: Record<string, unknown>): string {
  const s = (x: unknown): string => goQuote(typeof x === 'string' ? x : '');
  const reason = typeof r.reason === 'string' ? `(*apiextensions.FieldValueErrorReason)(${goQuote(r.reason)})` : '(*apiextensions.FieldValueErrorReason)(nil)';
  const oos = typeof r.optionalOldSelf === 'boolean' ? `(*bool)(${String(r.optionalOldSelf)})` : '(*bool)(nil)';
  return `apiextensions.ValidationRule{Rule:${s(r.rule)}, Message:${s(r.message)}, MessageExpression:${s(r.messageExpression)}, Reason:${reason}, FieldPath:${s(r.fieldPath)}, OptionalOldSelf:${oos}}`;
}

interface OpenAPICtx {
  readonly isRoot: boolean;
  readonly insideMeta: boolean;
  readonly defaultsForbidden: string | undefined;
  /** The highest ancestor under which old and new values cannot be correlated. */
  readonly uncorrelatable: string | undefined;
}

/** Static checks of one schema node and its subtree (the OpenAPI subset and the extensions). */
function checkOpenAPI(s: JSONSchemaProps, path: string, ctx: OpenAPICtx, out: StatusCause[], depth = 0): void {
  if (depth > 200) return;
  const declared: unknown = s.type;
  if (typeof declared === 'string' && declared !== '') {
    if (declared === 'null') out.push(forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
    else if (!OPENAPI_TYPES.includes(declared)) out.push(notSupported(`${path}.type`, declared, OPENAPI_TYPES));
  }
  if (s.default !== undefined && ctx.defaultsForbidden !== undefined) {
    out.push(forbidden(`${path}.default`, ctx.defaultsForbidden ? `must not be set ${ctx.defaultsForbidden}` : 'must not be set'));
  }
  const raw = s as Record<string, unknown>;
  for (const [key, what] of [
    ['id', 'id'],
    ['additionalItems', 'additionalItems'],
    ['patternProperties', 'patternProperties'],
    ['definitions', 'definitions'],
    ['dependencies', 'dependencies'],
    ['$ref', '$ref'],
  ] as const) {
    if (raw[key] !== undefined) out.push(forbidden(`${path}.${key}`, `${what} is not supported`));
  }
  if (Array.isArray(raw.items)) out.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (ctx.insideMeta && s['x-kubernetes-embedded-resource'] === true) {
    out.push(forbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }
  if (s.uniqueItems === true) {
    out.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  if (typeof s.pattern === 'string') {
    const re = compilePattern(s.pattern);
    if (re instanceof Error) out.push(invalid(`${path}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${re.message}`));
  }

  const child = (x: unknown, p: string, c: OpenAPICtx): void => {
    if (isObject(x)) checkOpenAPI(x, p, c, out, depth + 1);
  };
  const notRoot = { ...ctx, isRoot: false };
  if (s.additionalProperties !== undefined) {
    const hasProps = isObject(s.properties) && Object.keys(s.properties).length > 0;
    if (hasProps && (s.additionalProperties === false || isObject(s.additionalProperties))) {
      out.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = ctx.insideMeta ? { ...notRoot, defaultsForbidden: 'inside additionalProperties applying to object metadata' } : notRoot;
    child(s.additionalProperties, `${path}.additionalProperties`, sub);
  }
  if (isObject(s.properties)) {
    for (const [k, v] of Object.entries(s.properties)) {
      let sub: OpenAPICtx = notRoot;
      if (s['x-kubernetes-map-type'] === 'atomic' && !sub.uncorrelatable) sub = { ...sub, uncorrelatable: path };
      if ((ctx.isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(k)) {
        sub = { ...sub, insideMeta: true };
        if (ctx.isRoot) sub = { ...sub, defaultsForbidden: `in top-level ${k}` };
      }
      child(v, props(path, k), sub);
    }
  }
  child(s.not, `${path}.not`, notRoot);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) list.forEach((x, i) => child(x, `${path}.${key}[${i}]`, notRoot));
  }
  if (isObject(s.items)) {
    const sub = s['x-kubernetes-list-type'] !== 'map' && !notRoot.uncorrelatable ? { ...notRoot, uncorrelatable: path } : notRoot;
    child(s.items, `${path}.items`, sub);
  }
  checkExtensions(s, path, out);
  checkRuleShapes(s, path, out);
}

function checkExtensions(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    out.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    if (s.type !== 'object') {
      if (!s.type) out.push(required(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
      else out.push(invalid(`${path}.type`, s.type, 'must be object if x-kubernetes-map-type is specified'));
    }
    if (mapType !== 'atomic' && mapType !== 'granular') out.push(notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  const listType = s['x-kubernetes-list-type'];
  const items = isObject(s.items) ? s.items : undefined;
  if (listType !== undefined) {
    if (s.type !== 'array') {
      if (!s.type) out.push(required(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
      else out.push(invalid(`${path}.type`, s.type, 'must be array if x-kubernetes-list-type is specified'));
    } else if (listType === 'set' && items) {
      if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
        out.push(
          invalid(`${path}.items.x-kubernetes-list-type`, items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'),
        );
      }
      if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
        out.push(
          invalid(
            `${path}.items.x-kubernetes-map-type`,
            items['x-kubernetes-map-type'] ?? null,
            'must be atomic as item of a list with x-kubernetes-list-type=set',
          ),
        );
      }
    }
    if (listType !== 'atomic' && listType !== 'set' && listType !== 'map')
      out.push(notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  const keys = s['x-kubernetes-list-map-keys'];
  if (Array.isArray(keys) && keys.length > 0) {
    if (listType === undefined) out.push(required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') out.push(invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (!Array.isArray(keys) || keys.length === 0)
      out.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (!items) out.push(required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    else if (items.type !== 'object')
      out.push(invalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    else if (Array.isArray(keys)) {
      const seen = new Set<string>();
      for (const k of keys) {
        const p = isObject(items.properties) ? items.properties[k] : undefined;
        if (!p) out.push(invalidRaw(`${path}.x-kubernetes-list-map-keys`, badValue(keys), 'entries must all be names of item properties'));
        else {
          if (p.type === 'array' || p.type === 'object') {
            out.push(invalid(`${props(`${path}.items`, k)}.type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
          const isRequired = Array.isArray(items.required) && items.required.includes(k);
          if (!isRequired && p.default === undefined) {
            out.push(
              required(
                `${props(`${path}.items`, k)}.default`,
                'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
              ),
            );
          }
          if (p.nullable === true)
            out.push(forbidden(`${props(`${path}.items`, k)}.nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
        }
        if (seen.has(k)) out.push(invalidRaw(`${path}.x-kubernetes-list-map-keys`, badValue(keys), 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if ((listType === 'set' || listType === 'map') && items?.nullable === true) {
    out.push(forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  }
}

function hasNewlines(s: string): boolean {
  return /[\n\r]/.test(s);
}

function checkRuleShapes(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  const rules = s['x-kubernetes-validations'];
  if (rules === undefined) return;
  if (!Array.isArray(rules)) {
    out.push(invalid(`${path}.x-kubernetes-validations`, rules, 'must be a list of rules'));
    return;
  }
  rules.forEach((r: unknown, i) => {
    const p = `${path}.x-kubernetes-validations[${i}]`;
    if (!isObject(r)) {
      out.push(invalid(p, r, 'must be an object with a rule'));
      return;
    }
    const rule = typeof r.rule === 'string' ? r.rule.trim() : '';
    const message = typeof r.message === 'string' ? r.message : '';
    if (rule === '') out.push(required(`${p}.rule`, 'rule is not specified'));
    else if (message.length > 0 && message.trim() === '') out.push(invalid(`${p}.message`, message, 'message must be non-empty if specified'));
    else if (hasNewlines(message.trim())) out.push(invalid(`${p}.message`, message, 'message must not contain line breaks'));
    else if (hasNewlines(rule) && message.trim() === '') out.push(required(`${p}.message`, 'message must be specified if rule contains line breaks'));
    if (typeof r.messageExpression === 'string' && r.messageExpression.length > 0 && r.messageExpression.trim() === '') {
      out.push(required(`${p}.messageExpression`, 'messageExpression must be non-empty if specified'));
    }
    if (r.reason !== undefined && !REASONS.includes(String(r.reason))) out.push(notSupported(`${p}.reason`, r.reason, REASONS));
    if (typeof r.fieldPath === 'string') {
      if (r.fieldPath.length > 0 && r.fieldPath.trim() === '') out.push(invalid(`${p}.fieldPath`, r.fieldPath, 'fieldPath must be non-empty if specified'));
      if (hasNewlines(r.fieldPath)) out.push(invalid(`${p}.fieldPath`, r.fieldPath, 'fieldPath must not contain line breaks'));
    }
  });
}

function isIntOrStringPair(x: unknown): boolean {
  if (!Array.isArray(x) || x.length !== 2) return false;
  const only = (s: unknown, t: string): boolean => isObject(s) && s.type === t && Object.keys(s).length === 1;
  return only(x[0], 'integer') && only(x[1], 'string');
}

/** Checks structurality of a node reached through properties/additionalProperties/items. */
function checkStructural(s: JSONSchemaProps, path: string, level: Level, out: StatusCause[], depth = 0): void {
  if (depth > 200) return;
  const items = isObject(s.items) ? s.items : undefined;
  if (s.type === 'array' && !items) out.push(required(`${path}.items`, 'must be specified'));
  if (items) checkStructural(items, `${path}.items`, 'item', out, depth + 1);
  if (isObject(s.properties)) {
    for (const [k, v] of Object.entries(s.properties)) if (isObject(v)) checkStructural(v, props(path, k), 'field', out, depth + 1);
  }
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    if (level === 'root') out.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (isObject(s.additionalProperties)) checkStructural(s.additionalProperties, `${path}.additionalProperties`, 'field', out, depth + 1);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) out.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) out.push(invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));

  const skipAnyOf = isIntOrStringPair(s.anyOf);
  const skipFirstAllOfAnyOf = Array.isArray(s.allOf) && isObject(s.allOf[0]) && isIntOrStringPair(s.allOf[0].anyOf);
  checkValueValidation(s, path, skipAnyOf, skipFirstAllOfAnyOf, out, depth);

  const type = typeof s.type === 'string' ? s.type : '';
  if (embedded && type !== 'object') {
    if (!type) out.push(required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else out.push(invalid(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!type && !intOrString && !preserve) {
    const detail =
      level === 'root'
        ? 'must not be empty at the root'
        : level === 'item'
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    out.push(required(`${path}.type`, detail));
  }
  if (embedded && s.additionalProperties !== undefined)
    out.push(forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  if (level === 'root' && type && type !== 'object') out.push(invalid(`${path}.type`, type, 'must be object at the root'));

  const properties = isObject(s.properties) ? s.properties : {};
  const checkMetadata = level === 'root' || embedded;
  if (checkMetadata) {
    for (const k of ['kind', 'apiVersion']) {
      const p = properties[k];
      if (isObject(p) && p.type !== 'string') out.push(invalid(`${props(path, k)}.type`, p.type ?? '', 'must be string'));
    }
    const meta = properties.metadata;
    if (isObject(meta) && meta.type !== 'object') out.push(invalid(`${props(path, 'metadata')}.type`, meta.type ?? '', 'must be object'));
  }
  const meta = properties.metadata;
  if (level === 'root' && isObject(meta)) {
    const allowed = new Set(['type', 'properties', 'default', 'description']);
    const metaProps = isObject(meta.properties) ? Object.keys(meta.properties) : [];
    const extraKeys = Object.keys(meta).filter((k) => !allowed.has(k));
    if (extraKeys.length > 0 || metaProps.some((k) => k !== 'name' && k !== 'generateName')) {
      out.push(forbidden(props(path, 'metadata'), 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  if (embedded && !preserve && Object.keys(properties).length === 0) {
    out.push(required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

function checkValueValidation(s: JSONSchemaProps, path: string, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, out: StatusCause[], depth: number): void {
  if (!skipAnyOf && Array.isArray(s.anyOf)) s.anyOf.forEach((x, i) => checkNested(x, `${path}.anyOf[${i}]`, false, out, depth + 1));
  if (Array.isArray(s.allOf)) s.allOf.forEach((x, i) => checkNested(x, `${path}.allOf[${i}]`, skipFirstAllOfAnyOf && i === 0, out, depth + 1));
  if (Array.isArray(s.oneOf)) s.oneOf.forEach((x, i) => checkNested(x, `${path}.oneOf[${i}]`, false, out, depth + 1));
  if (s.not !== undefined) checkNested(s.not, `${path}.not`, false, out, depth + 1);
}

/** A schema under a logical junctor may only carry value validations. */
function checkNested(x: unknown, path: string, skipAnyOf: boolean, out: StatusCause[], depth: number): void {
  if (!isObject(x) || depth > 200) return;
  const s = x as JSONSchemaProps;
  checkValueValidation(s, path, skipAnyOf, false, out, depth);
  if (isObject(s.items)) checkNested(s.items, `${path}.items`, false, out, depth + 1);
  if (isObject(s.properties)) for (const [k, v] of Object.entries(s.properties)) checkNested(v, props(path, k), false, out, depth + 1);
  const declared: unknown = s.type;
  if (declared !== undefined && declared !== '') out.push(forbidden(`${path}.type`, 'must be empty to be structural'));
  if (s.additionalProperties !== undefined) out.push(forbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  if (s.default !== undefined) out.push(forbidden(`${path}.default`, 'must be undefined to be structural'));
  if (s.title) out.push(forbidden(`${path}.title`, 'must be empty to be structural'));
  if (s.description) out.push(forbidden(`${path}.description`, 'must be empty to be structural'));
  if (s.nullable === true) out.push(forbidden(`${path}.nullable`, 'must be false to be structural'));
  if (s['x-kubernetes-preserve-unknown-fields'] === true) out.push(forbidden(`${path}.x-kubernetes-preserve-unknown-fields`, 'must be false to be structural'));
  if (s['x-kubernetes-embedded-resource'] === true) out.push(forbidden(`${path}.x-kubernetes-embedded-resource`, 'must be false to be structural'));
  if (s['x-kubernetes-int-or-string'] === true) out.push(forbidden(`${path}.x-kubernetes-int-or-string`, 'must be false to be structural'));
  if (Array.isArray(s['x-kubernetes-list-map-keys']) && s['x-kubernetes-list-map-keys'].length > 0) {
    out.push(forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty to be structural'));
  }
  if (s['x-kubernetes-list-type'] !== undefined) out.push(forbidden(`${path}.x-kubernetes-list-type`, 'must be undefined to be structural'));
  if (isObject(s.properties) && 'metadata' in s.properties) out.push(forbidden(props(path, 'metadata'), 'must not be specified in a nested context'));
}

/** Every field or item named under a junctor must also be specified outside of it. */
function checkCompleteness(s: JSONSchemaProps, path: string, out: StatusCause[], depth = 0): void {
  if (depth > 200) return;
  const nested = (x: unknown, vPath: string): void => completeNested(x, s, path, vPath, out, depth + 1);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) list.forEach((x, i) => nested(x, `${path}.${key}[${i}]`));
  }
  if (s.not !== undefined) nested(s.not, `${path}.not`);
  if (isObject(s.items)) checkCompleteness(s.items, `${path}.items`, out, depth + 1);
  if (isObject(s.properties)) for (const [k, v] of Object.entries(s.properties)) if (isObject(v)) checkCompleteness(v, props(path, k), out, depth + 1);
  if (isObject(s.additionalProperties)) checkCompleteness(s.additionalProperties, `${path}.additionalProperties`, out, depth + 1);
}

function completeNested(x: unknown, s: JSONSchemaProps | undefined, sPath: string, vPath: string, out: StatusCause[], depth: number): void {
  if (!isObject(x) || depth > 200) return;
  if (!s) {
    out.push(required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  const v = x as JSONSchemaProps;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = v[key];
    if (Array.isArray(list)) list.forEach((y, i) => completeNested(y, s, sPath, `${vPath}.${key}[${i}]`, out, depth + 1));
  }
  if (v.not !== undefined) completeNested(v.not, s, sPath, `${vPath}.not`, out, depth + 1);
  if (isObject(v.items)) completeNested(v.items, isObject(s.items) ? s.items : undefined, `${sPath}.items`, `${vPath}.items`, out, depth + 1);
  if (isObject(v.properties)) {
    for (const [k, sub] of Object.entries(v.properties)) {
      const sProps = isObject(s.properties) ? s.properties : {};
      const target = sProps[k] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
      if (!target) out.push(required(props(sPath, k), `because it is defined in ${props(vPath, k)}`));
      else completeNested(sub, target, props(sPath, k), props(vPath, k), out, depth + 1);
    }
  }
}

/** Visits the nodes of the tree with their schema paths (properties, items; additionalProperties when asked). */
function eachNode(node: SchemaNode, path: string, withAdditional: boolean, visit: (node: SchemaNode, path: string) => void, depth = 0): void {
  if (depth > 200) return;
  visit(node, path);
  if (node.items) eachNode(node.items, `${path}.items`, withAdditional, visit, depth + 1);
  for (const [k, c] of node.properties ?? []) eachNode(c, props(path, k), withAdditional, visit, depth + 1);
  if (withAdditional && node.additional) eachNode(node.additional, `${path}.additionalProperties`, withAdditional, visit, depth + 1);
}

function joinDefaultPath(base: string, field: string | undefined): string | undefined {
  if (!field) return base;
  return field.startsWith('[') ? `${base}${field}` : `${base}.${field}`;
}

/**
 * Defaults must be pruned and valid against their own schema (not followed into
 * additionalProperties). The defaults' schemas are compiled together, and each distinct one
 * once per process (ajv-schema.ts checksFor): a schema with hundreds of defaults compiles once,
 * and the CRDs Conductor installs at its first start share most of theirs.
 */
function checkDefaults(root: SchemaNode, path: string, out: StatusCause[]): void {
  const entries: { node: SchemaNode; path: string }[] = [];
  const visit = (node: SchemaNode, p: string, insideMeta: boolean, depth: number): void => {
    if (depth > 200) return;
    if (node.hasDefault && !insideMeta) {
      const pruner = new Pruner(false);
      pruner.prune(node, structuredClone(node.default), '');
      if (pruner.removed.length > 0) out.push(invalid(`${p}.default`, node.default, 'must not have unknown fields'));
      else entries.push({ node, path: `${p}.default` });
    }
    if (node.items) visit(node.items, `${p}.items`, insideMeta, depth + 1);
    for (const [k, c] of node.properties ?? []) visit(c, props(p, k), insideMeta || (node.resourceRoot && META_FIELDS.has(k)), depth + 1);
  };
  visit(root, path, false, 0);
  if (entries.length === 0) return;
  const checks = checksFor(entries.map((e) => toAjvSchema(e.node.schema, { depth: 0, isRoot: false })));
  const values = entries.map((e) => structuredClone(e.node.default));
  entries.forEach((entry, i) => {
    const causes = ajvErrorsToCauses(checks[i](values[i]), values[i], entry.node);
    const rules = compileSchemaRules(entry.node);
    for (const c of finishValidation(entry.node, rules, causes, values[i], values[i], true)) {
      out.push({ ...c, field: joinDefaultPath(entry.path, c.field) });
    }
  });
}

/** Reports rules that do not compile, misuse oldSelf, or name an invalid fieldPath. */
function checkRules(root: SchemaNode, path: string, out: StatusCause[]): void {
  const compiled = compileSchemaRules(root);
  if (compiled.size === 0) return;
  const uncorrelatable = new Map<SchemaNode, string>();
  const mark = (node: SchemaNode, p: string, under: string | undefined, depth: number): void => {
    if (depth > 200) return;
    if (under) uncorrelatable.set(node, under);
    const forChildren = under ?? (node.mapAtomic ? p : undefined);
    for (const [k, c] of node.properties ?? []) mark(c, props(p, k), forChildren, depth + 1);
    if (node.additional) mark(node.additional, `${p}.additionalProperties`, forChildren, depth + 1);
    if (node.items) mark(node.items, `${p}.items`, under ?? (node.listType !== 'map' ? p : undefined), depth + 1);
  };
  mark(root, path, undefined, 0);
  eachNode(root, path, true, (node, p) => {
    const rules: readonly NodeRule[] | undefined = compiled.get(node);
    if (!rules) return;
    for (const r of rules) {
      const rp = `${p}.x-kubernetes-validations[${r.index}]`;
      const repr = ruleRepr(r.rule as unknown as Record<string, unknown>);
      if (r.ruleError && r.ruleError !== 'rule is not specified') out.push(invalidRaw(`${rp}.rule`, repr, r.ruleError));
      if (r.messageError) out.push(invalidRaw(`${rp}.messageExpression`, repr, r.messageError));
      const under = uncorrelatable.get(node);
      if (r.usesOldSelf && under !== undefined) {
        out.push(invalid(`${rp}.rule`, r.rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${under}`));
      } else if (!r.usesOldSelf && typeof r.rule.optionalOldSelf === 'boolean' && r.program) {
        out.push(invalid(`${rp}.optionalOldSelf`, r.rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
      }
      if (r.fieldPathInvalid) out.push(invalid(`${rp}.fieldPath`, r.rule.fieldPath, 'fieldPath must be a valid path'));
    }
  });
  checkRuleCosts(root, compiled, path, out);
}

/**
 * Refuses rules whose estimated cost, times how often they may run, exceeds Kubernetes'
 * per-rule budget, and a schema whose rules together exceed the per-CRD budget (cel/cost.ts).
 * How often a rule runs: the product of the maxItems and maxProperties of the lists and maps
 * above it; under one without a bound, as many of its node's values as fit in one request.
 */
function checkRuleCosts(root: SchemaNode, compiled: Map<SchemaNode, readonly NodeRule[]>, path: string, out: StatusCause[]): void {
  const shapes = new ShapeCache();
  const costs: { field: string; cost: number }[] = [];
  let total = 0;
  const visit = (node: SchemaNode, p: string, cardinality: number | undefined, depth: number): void => {
    if (depth > 200) return;
    const rules = compiled.get(node);
    if (rules) {
      const typed = shapes.of(node);
      const vars = new Map([
        ['self', typed.shape],
        ['oldSelf', typed.shape],
      ]);
      const times = cardinality ?? Math.floor(MAX_REQUEST_BYTES / (typed.minSize + 1));
      for (const r of rules) {
        const rp = `${p}.x-kubernetes-validations[${r.index}]`;
        if (r.program && !r.ruleError) {
          const cost = Math.min(Number.MAX_SAFE_INTEGER, estimateCost(r.program, vars) * times);
          if (cost > STATIC_ESTIMATED_COST_LIMIT) out.push(forbidden(`${rp}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
          costs.push({ field: `${rp}.rule`, cost });
          total += cost;
        }
        if (r.messageProgram && !r.messageError) {
          const cost = estimateCost(r.messageProgram, vars);
          if (cost > STATIC_ESTIMATED_COST_LIMIT) {
            out.push(forbidden(`${rp}.messageExpression`, costErrorMessage('estimated messageExpression cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
          }
          costs.push({ field: `${rp}.messageExpression`, cost });
          total += cost;
        }
      }
    }
    const bound = (n: unknown) =>
      cardinality !== undefined && typeof n === 'number' && Number.isFinite(n) && n >= 0 ? cardinality * Math.floor(n) : undefined;
    for (const [k, c] of node.properties ?? []) visit(c, props(p, k), cardinality, depth + 1);
    if (node.items) visit(node.items, `${p}.items`, bound(node.schema.maxItems), depth + 1);
    if (node.additional) visit(node.additional, `${p}.additionalProperties`, bound(node.schema.maxProperties), depth + 1);
  };
  visit(root, path, 1, 0);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    // The rules that weigh (over 1% of the budget), the most expensive first, as Kubernetes lists them.
    for (const c of costs.filter((x) => x.cost > STATIC_ESTIMATED_CRD_COST_LIMIT / 100).sort((a, b) => b.cost - a.cost)) {
      out.push(forbidden(c.field, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    }
    out.push(
      forbidden(
        path,
        costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
}

/**
 * Checks that a CRD version schema is structural and its CEL rules compile. Causes name
 * fields under fieldPath, e.g. `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`.
 */
export function validateStructuralSchema(schema: JSONSchemaProps, fieldPath: string): StatusCause[] {
  try {
    if (!isObject(schema)) return [required(fieldPath, 'must be a schema object')];
    const out: StatusCause[] = [];
    if (schema.nullable === true) out.push(forbidden(`${fieldPath}.nullable`, 'nullable cannot be true at the root'));
    checkOpenAPI(schema, fieldPath, { isRoot: true, insideMeta: false, defaultsForbidden: undefined, uncorrelatable: undefined }, out);
    const structural: StatusCause[] = [];
    checkStructural(schema, fieldPath, 'root', structural);
    checkCompleteness(schema, fieldPath, structural);
    structural.sort((a, b) => `${a.field}: ${a.message}`.localeCompare(`${b.field}: ${b.message}`));
    out.push(...structural);
    if (out.length > 0) return out;
    const root = buildNodeTree(schema);
    checkDefaults(root, fieldPath, out);
    if (out.length > 0) return out;
    checkRules(root, fieldPath, out);
    return out;
  } catch (err) {
    return [invalid(fieldPath, '', `the schema could not be checked: ${err instanceof Error ? err.message : String(err)}`)];
  }
}
