/**
 * Field paths: the addresses server-side apply tracks ownership of. A path is a list of
 * elements, each naming a map field, an item of a map-list (by its key fields), an item of a
 * set (by its value) or a positional list item.
 */
import type { JsonValue } from '../object.js';
import { isPlainObject } from '../object.js';

/** A PathElement names one step into a JSON value. */
export type PathElement =
  | { kind: 'field'; name: string }
  | { kind: 'key'; fields: { [name: string]: JsonValue } }
  | { kind: 'value'; value: JsonValue }
  | { kind: 'index'; index: number };

/** A FieldPath is the route from the object root to one field or list item. */
export type FieldPath = PathElement[];

/** A PathSyntaxError reports text that is not a valid FieldsV1 path element. */
export class PathSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathSyntaxError';
  }
}

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

export function keyElement(fields: { [name: string]: JsonValue }): PathElement {
  return { kind: 'key', fields };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

/** Serialises a JSON value with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Compares strings by UTF-16 code units (stable, locale-free). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Encodes an element the way FieldsV1 keys spell it: `f:name`, `k:{"name":"x"}` (key fields
 * sorted), `v:"x"`, `i:3`. The encoding is canonical: equal elements encode equally.
 */
export function encodeElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:${canonicalJson(pe.fields)}`;
    case 'value':
      return `v:${canonicalJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
    default: {
      const never: never = pe;
      throw new Error(`unknown path element ${JSON.stringify(never)}`);
    }
  }
}

/** How deeply the JSON of a `k:` or `v:` element may nest: it comes from request bodies, and is walked recursively. */
const MAX_ELEMENT_DEPTH = 100;

function parseJson(text: string, what: string): JsonValue {
  if (nestingOf(text) > MAX_ELEMENT_DEPTH) throw new PathSyntaxError(`${what} nests deeper than ${MAX_ELEMENT_DEPTH} levels`);
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new PathSyntaxError(`${what} is not valid JSON: ${JSON.stringify(text)}`);
  }
}

/** The deepest nesting of `[` and `{` outside JSON strings, counted without parsing. */
function nestingOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
  return max;
}

/** Decodes a FieldsV1 key (`f:…`, `k:…`, `v:…`, `i:…`) into an element; throws PathSyntaxError. */
export function decodeElement(text: string): PathElement {
  const prefix = text.slice(0, 2);
  const rest = text.slice(2);
  switch (prefix) {
    case 'f:':
      return fieldElement(rest);
    case 'k:': {
      const fields = parseJson(rest, 'list item key');
      if (!isPlainObject(fields) || Object.keys(fields).length === 0) {
        throw new PathSyntaxError(`list item key must be a non-empty JSON object, got ${JSON.stringify(rest)}`);
      }
      return keyElement(fields);
    }
    case 'v:':
      return valueElement(parseJson(rest, 'set item value'));
    case 'i:': {
      if (!/^(0|[1-9][0-9]*)$/.test(rest)) {
        throw new PathSyntaxError(`list index must be a non-negative integer, got ${JSON.stringify(rest)}`);
      }
      return indexElement(Number(rest));
    }
    default:
      throw new PathSyntaxError(`field path element ${JSON.stringify(text)} must start with "f:", "k:", "v:" or "i:"`);
  }
}

const rank: Record<PathElement['kind'], number> = { field: 0, key: 1, value: 2, index: 3 };

/** Orders elements: fields, then keyed items, then set values, then indexes; each by content. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return rank[a.kind] - rank[b.kind];
  if (a.kind === 'field' && b.kind === 'field') return compareStrings(a.name, b.name);
  if (a.kind === 'index' && b.kind === 'index') return a.index - b.index;
  return compareStrings(encodeElement(a), encodeElement(b));
}

function formatValue(value: JsonValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
}

/** Formats one element as Kubernetes prints it in conflict messages: `.name`, `[name="x"]`, `[="x"]`, `[3]`. */
export function elementToString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key': {
      const names = Object.keys(pe.fields).sort(compareStrings);
      return `[${names.map((n) => `${n}=${formatValue(pe.fields[n])}`).join(',')}]`;
    }
    case 'value':
      return `[=${formatValue(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
    default: {
      const never: never = pe;
      throw new Error(`unknown path element ${JSON.stringify(never)}`);
    }
  }
}

/** Formats a path as Kubernetes prints it: `.spec.containers[name="app"].image`. */
export function pathToString(path: FieldPath): string {
  return path.map(elementToString).join('');
}
