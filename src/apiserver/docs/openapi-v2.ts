/**
 * The OpenAPI v2 (Swagger 2.0) document served at `/openapi/v2`: every group-version in one
 * document, with `definitions` instead of `components.schemas`. Schemas are converted to
 * what Swagger 2.0 can say: `nullable`, `oneOf`, `anyOf` and `not` do not exist there, so
 * they are dropped (a nullable value becomes untyped, as Kubernetes publishes it).
 */
import { kindSchema, listSchema } from './kind-schemas.js';
import { META_SCHEMAS, type SchemaObject } from './meta-schemas.js';
import { schemaName } from './names.js';
import { pathsOf, type OperationSpec } from './operations.js';
import { QUERY, type ParamSpec, type QueryName } from './parameters.js';
import type { ServedSet } from './served-set.js';

const V3_REF_PREFIX = '#/components/schemas/';
const V2_REF_PREFIX = '#/definitions/';

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * toV2Schema converts a v3 schema to its Swagger 2.0 form. The input is not changed;
 * subtrees that need no change are shared with it rather than copied.
 */
export function toV2Schema(schema: SchemaObject): SchemaObject {
  let changed = false;
  const out: SchemaObject = {};
  const convert = (value: unknown): unknown => (isObject(value) ? toV2Schema(value) : value);
  for (const [key, value] of Object.entries(schema)) {
    let next: unknown = value;
    switch (key) {
      case '$ref':
        if (typeof value === 'string' && value.startsWith(V3_REF_PREFIX)) {
          next = V2_REF_PREFIX + value.slice(V3_REF_PREFIX.length);
        }
        break;
      case 'nullable':
      case 'oneOf':
      case 'anyOf':
      case 'not':
        changed = true;
        continue;
      case 'properties':
        if (isObject(value)) {
          let propsChanged = false;
          const props: SchemaObject = {};
          for (const [name, sub] of Object.entries(value)) {
            props[name] = convert(sub);
            if (props[name] !== sub) propsChanged = true;
          }
          if (propsChanged) next = props;
        }
        break;
      case 'items':
      case 'additionalProperties':
        next = convert(value);
        break;
      case 'allOf':
        if (Array.isArray(value)) {
          const list = value.map(convert);
          if (list.some((s, i) => s !== value[i])) next = list;
        }
        break;
    }
    if (next !== value) changed = true;
    out[key] = next;
  }
  if (schema.nullable === true) {
    // An untyped schema is the only way Swagger 2.0 admits null.
    delete out.type;
    delete out.items;
    delete out.properties;
    delete out.additionalProperties;
  }
  return changed ? out : schema;
}

/**
 * Query parameters other than fieldValidation are shared through the top-level
 * `parameters` section (as Kubernetes does), which keeps the document small;
 * fieldValidation stays inline because kubectl's check for server-side field validation
 * reads inline parameters.
 */
function sharedParamRef(p: ParamSpec): SchemaObject | undefined {
  if (p.in !== 'query' || p.name === 'fieldValidation') return undefined;
  return { $ref: `#/parameters/${p.name}` };
}

function parameterV2(p: ParamSpec): SchemaObject {
  const out: SchemaObject = { type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) out.required = true;
  return out;
}

function operationV2(op: OperationSpec): SchemaObject {
  const params: SchemaObject[] = [];
  if (op.body) {
    params.push({ name: 'body', in: 'body', required: true, schema: { $ref: V2_REF_PREFIX + op.body.schema } });
  }
  for (const p of op.query) params.push(sharedParamRef(p) ?? parameterV2(p));
  const responses: SchemaObject = {};
  for (const [code, r] of Object.entries(op.responses)) {
    responses[code] = r.schema ? { description: r.description, schema: { $ref: V2_REF_PREFIX + r.schema } } : { description: r.description };
  }
  const out: SchemaObject = {
    description: op.description,
    consumes: op.body ? op.body.contentTypes : ['*/*'],
    produces: ['application/json', 'application/yaml'],
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
  };
  if (params.length > 0) out.parameters = params;
  out.responses = responses;
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { ...op.gvk };
  return out;
}

function sharedParameters(): SchemaObject {
  const out: SchemaObject = {};
  for (const name of Object.keys(QUERY).sort()) {
    const p = QUERY[name as QueryName];
    if (sharedParamRef(p)) out[name] = parameterV2(p);
  }
  return out;
}

function sortKeys(obj: SchemaObject): SchemaObject {
  const out: SchemaObject = {};
  for (const key of Object.keys(obj).sort()) out[key] = obj[key];
  return out;
}

/** buildOpenApiV2 builds the Swagger 2.0 document of everything served. */
export function buildOpenApiV2(set: ServedSet, infoVersion: string): SchemaObject {
  const paths: SchemaObject = {};
  const definitions: SchemaObject = {};
  for (const [name, schema] of META_SCHEMAS) definitions[name] = toV2Schema(schema);
  for (const gv of set.byGroupVersion.values()) {
    for (const rt of gv.resources) {
      for (const spec of pathsOf(rt)) {
        const item: SchemaObject = {};
        for (const op of spec.operations) item[op.method] = operationV2(op);
        item.parameters = spec.params.map((p) => sharedParamRef(p) ?? parameterV2(p));
        paths[spec.path] = item;
      }
      definitions[schemaName(rt, rt.kind)] = toV2Schema(kindSchema(rt));
      definitions[schemaName(rt, rt.listKind)] = toV2Schema(listSchema(rt));
    }
  }
  return {
    swagger: '2.0',
    info: { title: 'Conductor', version: infoVersion },
    paths: sortKeys(paths),
    definitions: sortKeys(definitions),
    parameters: sharedParameters(),
    securityDefinitions: {
      BearerToken: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer token authentication' },
    },
    security: [{ BearerToken: [] }],
  };
}
