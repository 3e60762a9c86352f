/**
 * OpenAPI v3 documents, one per group-version, as served at `/openapi/v3/api/v1` and
 * `/openapi/v3/apis/<group>/<version>`.
 *
 * What kubectl relies on:
 * - `kubectl explain` finds the GVK on an operation of the resource's collection or item
 *   path (`x-kubernetes-group-version-kind` as an object), then the schema in
 *   `components.schemas` whose `x-kubernetes-group-version-kind` list contains it.
 * - kubectl decides whether the server validates fields itself by finding, for the GVK, a
 *   PATCH operation whose inline parameters include `fieldValidation` in the query.
 * - client-side apply computes a strategic merge patch from the document only when the
 *   PATCH request body lists `application/strategic-merge-patch+json` (built-ins), else it
 *   sends a JSON merge patch.
 */
import type { ResourceType } from '../registry/resource-type.js';
import { kindSchema, listSchema } from './kind-schemas.js';
import { META_SCHEMAS, refTo, type SchemaObject } from './meta-schemas.js';
import { schemaName } from './names.js';
import { SCALAR_SCHEMAS } from './scalar-schemas.js';
import { pathsOf, type OperationSpec, type PathSpec } from './operations.js';
import type { ParamSpec } from './parameters.js';
import type { ServedVersion } from './served-set.js';

const RESPONSE_TYPES = ['application/json', 'application/yaml'];

function parameterV3(p: ParamSpec): SchemaObject {
  const out: SchemaObject = { name: p.name, in: p.in, description: p.description };
  if (p.required) out.required = true;
  out.schema = { type: p.type };
  return out;
}

function operationV3(op: OperationSpec): SchemaObject {
  const out: SchemaObject = { tags: [op.tag], description: op.description, operationId: op.operationId };
  if (op.query.length > 0) out.parameters = op.query.map(parameterV3);
  if (op.body) {
    const content: SchemaObject = {};
    for (const type of op.body.contentTypes) content[type] = { schema: refTo(op.body.schema) };
    out.requestBody = { content, required: true };
  }
  const responses: SchemaObject = {};
  for (const [code, r] of Object.entries(op.responses)) {
    const response: SchemaObject = { description: r.description };
    if (r.schema) {
      const content: SchemaObject = {};
      for (const type of RESPONSE_TYPES) content[type] = { schema: refTo(r.schema) };
      response.content = content;
    }
    responses[code] = response;
  }
  out.responses = responses;
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { ...op.gvk };
  return out;
}

/** renderPathsV3 renders path specs as an OpenAPI v3 `paths` object (into `into`). */
export function renderPathsV3(specs: PathSpec[], into: SchemaObject): void {
  for (const spec of specs) {
    const item: SchemaObject = {};
    for (const op of spec.operations) item[op.method] = operationV3(op);
    item.parameters = spec.params.map(parameterV3);
    into[spec.path] = item;
  }
}

/** kindSchemasOf adds the kind and list schemas of each resource type to `into`. */
export function kindSchemasOf(types: readonly ResourceType[], into: SchemaObject): void {
  for (const rt of types) {
    into[schemaName(rt, rt.kind)] = kindSchema(rt, { namedScalars: true });
    into[schemaName(rt, rt.listKind)] = listSchema(rt);
  }
}

function sortKeys(obj: SchemaObject): SchemaObject {
  const out: SchemaObject = {};
  for (const key of Object.keys(obj).sort()) out[key] = obj[key];
  return out;
}

/** buildOpenApiV3 builds the OpenAPI v3 document of one group-version. */
export function buildOpenApiV3(gv: ServedVersion, infoVersion: string): SchemaObject {
  const paths: SchemaObject = {};
  for (const rt of gv.resources) renderPathsV3(pathsOf(rt), paths);
  const schemas: SchemaObject = {};
  for (const [name, schema] of META_SCHEMAS) schemas[name] = schema;
  for (const [name, schema] of SCALAR_SCHEMAS) schemas[name] = schema;
  kindSchemasOf(gv.resources, schemas);
  return {
    openapi: '3.0.0',
    info: { title: 'Conductor', version: infoVersion },
    paths: sortKeys(paths),
    components: {
      schemas: sortKeys(schemas),
      securitySchemes: {
        BearerToken: { type: 'apiKey', description: 'Bearer token authentication', name: 'authorization', in: 'header' },
      },
    },
  };
}

/** openApiV3PathOf is the index key of a group-version: `api/v1` or `apis/<group>/<version>`. */
export function openApiV3PathOf(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}
