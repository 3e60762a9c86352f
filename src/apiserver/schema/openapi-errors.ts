/**
 * Turns ajv errors into the StatusCauses Kubernetes produces for OpenAPI validation
 * failures: same reasons, same messages (`spec.replicas in body must be of type integer:
 * "string"`), field paths in Kubernetes' notation. For a failed anyOf/oneOf only the errors
 * of the closest branch are kept, as kube-openapi reports its "best failure".
 */
import type { ErrorObject } from 'ajv';
import type { StatusCause } from '../../machinery/errors.js';
import { isObject, type SchemaNode } from './node.js';
import { childPath, goFloat, goNumber, goQuote, indexPath, invalid, keyPath, notSupported, required, tooLong, tooMany, typeInvalid } from './causes.js';

function unescapePointer(seg: string): string {
  return seg.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Converts an ajv instancePath (JSON pointer) to a Kubernetes field path, following the data and the schema. */
export function pointerToPath(pointer: string, root: unknown, rootNode: SchemaNode): string {
  if (pointer === '') return '';
  let path = '';
  let data: unknown = root;
  let node: SchemaNode | undefined = rootNode;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = unescapePointer(raw);
    if (Array.isArray(data)) {
      const i = Number(seg);
      path = indexPath(path, i);
      data = data[i];
      node = node?.items;
    } else {
      const prop: SchemaNode | undefined = node?.properties?.get(seg);
      if (prop) {
        path = childPath(path, seg);
        node = prop;
      } else if (node?.additional) {
        path = keyPath(path, seg);
        node = node.additional;
      } else {
        path = childPath(path, seg);
        node = undefined;
      }
      data = isObject(data) ? data[seg] : undefined;
    }
  }
  return path;
}

/** The JSON type name kube-openapi reports for a value. */
function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

/** The Go format name kube-openapi infers from a decoded JSON value. */
function dataFormat(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return '';
}

function declaredTypes(schema: Record<string, unknown> | undefined): string {
  const t = schema?.type;
  const list = Array.isArray(t) ? t : typeof t === 'string' ? [t] : [];
  return list.filter((x) => x !== 'null').join(',');
}

function inBody(name: string, rest: string): string {
  return name ? `${name} in body ${rest}` : `in body ${rest}`;
}

function limit(value: unknown, bound: unknown): string {
  if (typeof bound !== 'number') return String(bound);
  return typeof value === 'number' && Number.isInteger(value) && Number.isInteger(bound) ? goNumber(bound) : goFloat(bound);
}

function enumValues(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  return values.filter((v) => v !== null).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}

/** Removes the errors of anyOf/oneOf branches other than the best failing branch. */
function keepBestBranches(errors: ErrorObject[]): ErrorObject[] {
  const drop = new Set<ErrorObject>();
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const prefix = `${e.schemaPath}/`;
    const byBranch = new Map<string, ErrorObject[]>();
    for (const b of errors) {
      if (!b.schemaPath.startsWith(prefix)) continue;
      const branch = b.schemaPath.slice(prefix.length).split('/')[0];
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), b]);
    }
    let best: string | undefined;
    for (const [branch, list] of byBranch) if (best === undefined || list.length < (byBranch.get(best)?.length ?? 0)) best = branch;
    for (const [branch, list] of byBranch) if (branch !== best) for (const b of list) drop.add(b);
  }
  return errors.filter((e) => !drop.has(e));
}

/** Maps the errors of one ajv run over `root` to Kubernetes causes. */
export function ajvErrorsToCauses(errors: readonly ErrorObject[], root: unknown, rootNode: SchemaNode): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  for (const e of keepBestBranches([...errors])) {
    const path = pointerToPath(e.instancePath, root, rootNode);
    const c = toCause(e, path);
    if (!c) continue;
    const key = `${c.field ?? ''}\u0000${c.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    causes.push(c);
  }
  return causes;
}

function toCause(e: ErrorObject, path: string): StatusCause | undefined {
  const data: unknown = e.data;
  const params = e.params as Record<string, unknown>;
  const parent = e.parentSchema;
  switch (e.keyword) {
    case 'type': {
      const format = typeof parent?.['x-k8s-format'] === 'string' ? parent['x-k8s-format'] : '';
      if (format && data !== null && typeof data !== 'string' && !Array.isArray(data) && dataFormat(data) !== format) {
        const df = dataFormat(data);
        return typeInvalid(path, df, inBody(path, `must be of type ${format}: ${goQuote(df)}`));
      }
      const actual = jsonType(data);
      return typeInvalid(path, actual, inBody(path, `must be of type ${declaredTypes(parent)}: ${goQuote(actual)}`));
    }
    case 'required': {
      const missing = String(params.missingProperty ?? '');
      return required(childPath(path, missing));
    }
    case 'enum':
      return notSupported(path, data, enumValues(params.allowedValues));
    case 'format':
      return typeInvalid(path, data, inBody(path, `must be of type ${String(params.format)}: ${goQuote(String(data))}`));
    case 'minimum':
      return invalid(path, data, inBody(path, `should be greater than or equal to ${limit(data, params.limit)}`));
    case 'exclusiveMinimum':
      return invalid(path, data, inBody(path, `should be greater than ${limit(data, params.limit)}`));
    case 'maximum':
      return invalid(path, data, inBody(path, `should be less than or equal to ${limit(data, params.limit)}`));
    case 'exclusiveMaximum':
      return invalid(path, data, inBody(path, `should be less than ${limit(data, params.limit)}`));
    case 'multipleOf':
      return invalid(path, data, inBody(path, `should be a multiple of ${limit(data, params.multipleOf)}`));
    case 'minLength':
      return invalid(path, data, inBody(path, `should be at least ${String(params.limit)} chars long`));
    case 'maxLength':
      return tooLong(path, Number(params.limit));
    case 'pattern':
      return invalid(path, data, inBody(path, `should match '${String(params.pattern)}'`));
    case 'minItems':
      return invalid(path, Array.isArray(data) ? data.length : 0, inBody(path, `should have at least ${String(params.limit)} items`));
    case 'maxItems':
      return tooMany(path, Array.isArray(data) ? data.length : -1, Number(params.limit));
    case 'minProperties':
      return invalid(path, isObject(data) ? Object.keys(data).length : 0, inBody(path, `should have at least ${String(params.limit)} properties`));
    case 'maxProperties':
      return tooMany(path, isObject(data) ? Object.keys(data).length : -1, Number(params.limit));
    case 'uniqueItems':
      return invalid(path, '', inBody(path, "shouldn't contain duplicates"));
    case 'anyOf':
      return invalid(path, '', `${goQuote(path)} must validate at least one schema (anyOf)`);
    case 'oneOf': {
      const passing = params.passingSchemas;
      const detail = Array.isArray(passing) ? `Found ${passing.length} valid alternatives` : 'Found none valid';
      return invalid(path, '', `${goQuote(path)} must validate one and only one schema (oneOf). ${detail}`);
    }
    case 'not':
      return invalid(path, '', `${goQuote(path)} must not validate the schema (not)`);
    case 'if':
    case 'additionalProperties':
      return undefined;
    default:
      return invalid(path, data, inBody(path, e.message ?? `failed ${e.keyword}`));
  }
}
