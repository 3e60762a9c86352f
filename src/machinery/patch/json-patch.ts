/**
 * JSON patch (RFC 6902, `application/json-patch+json`), applied with fast-json-patch after
 * a strict check of each operation against the current document.
 *
 * Status codes (as the Kubernetes API server answers):
 *  - 400 BadRequest: the body is not a list of well-formed operations (not an array, an
 *    unknown `op`, a `path`/`from` that is not a JSON pointer, a missing `value`);
 *  - 413 RequestEntityTooLarge: more than 10,000 operations;
 *  - 422 Invalid: a well-formed operation does not apply (missing path, index out of
 *    range, failed `test`), message `the server rejected our request due to an error in
 *    our request: <what failed>`.
 */
import jsonpatch from 'fast-json-patch';
import { ApiError } from '../errors.js';
import { deepCopy, deepEqual, type JsonValue } from '../object.js';
import { asPatchError, describeJsonType, malformedPatch, shortJson, unprocessablePatch } from './errors.js';
import { hasOwn, isJsonObject } from './json-access.js';

/** The most operations one JSON patch may carry. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

export type JsonPatchOp = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

/** A JsonPatchOperation is one validated RFC 6902 operation. */
export type JsonPatchOperation =
  { op: 'add' | 'replace' | 'test'; path: string; value: JsonValue } | { op: 'remove'; path: string } | { op: 'move' | 'copy'; from: string; path: string };

const OPS: ReadonlySet<string> = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** The reference tokens of a JSON pointer (`/a~1b/0` gives `['a/b', '0']`), or undefined if malformed. */
export function parseJsonPointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return undefined;
    tokens.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return tokens;
}

/**
 * parseJsonPatch checks the shape of a JSON patch body and returns its operations. It
 * throws 400 for anything that is not a list of RFC 6902 operations and 413 for too many.
 */
export function parseJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) {
    throw malformedPatch(`a JSON patch must be a JSON array of operations, got ${describeJsonType(patch)}`);
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(413, 'RequestEntityTooLarge', `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  return patch.map((raw: unknown, i): JsonPatchOperation => {
    if (!isJsonObject(raw)) throw malformedPatch(`JSON patch operation ${i} must be an object, got ${describeJsonType(raw)}`);
    const op = raw['op'];
    if (typeof op !== 'string' || !OPS.has(op)) {
      throw malformedPatch(`JSON patch operation ${i} has op ${shortJson(op ?? null)}; expected one of "add", "remove", "replace", "move", "copy", "test"`);
    }
    const pointer = (field: 'path' | 'from'): string => {
      const value = raw[field];
      if (typeof value !== 'string' || parseJsonPointer(value) === undefined) {
        throw malformedPatch(
          `JSON patch operation ${i} (${op}) needs "${field}" to be a JSON pointer such as "/metadata/labels/app", got ${shortJson(value ?? null)}`,
        );
      }
      return value;
    };
    const path = pointer('path');
    switch (op) {
      case 'add':
      case 'replace':
      case 'test':
        if (!hasOwn(raw, 'value')) throw malformedPatch(`JSON patch operation ${i} (${op} ${path}) needs a "value"`);
        return { op, path, value: deepCopy(raw['value']!) };
      case 'remove':
        return { op, path };
      default:
        return { op: op as 'move' | 'copy', from: pointer('from'), path };
    }
  });
}

type Container = JsonValue[] | { [key: string]: JsonValue };

/** Where a pointer lands: its parent container and the key or index inside it. */
interface Location {
  parent: Container;
  /** The key (objects) or the index (arrays; `length` for `-`). */
  key: string | number;
  exists: boolean;
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;
const BANNED_KEYS = new Set(['__proto__']);

class NotApplicable extends Error {}

/** Resolves the parent of `pointer` in `doc`; throws NotApplicable saying why it cannot. */
function locate(doc: JsonValue, pointer: string, forAdd: boolean): Location {
  const tokens = parseJsonPointer(pointer)!;
  let node: JsonValue = doc;
  let prefix = '';
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t];
    const at = t === 0 ? 'the document root' : JSON.stringify(prefix);
    const next = `${prefix}/${token.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (BANNED_KEYS.has(token)) throw new NotApplicable(`the key "${token}" is not supported`);
    const last = t === tokens.length - 1;
    if (Array.isArray(node)) {
      let index: number;
      if (token === '-' && last && forAdd) index = node.length;
      else if (ARRAY_INDEX.test(token)) index = Number(token);
      else throw new NotApplicable(`${at} is an array and "${token}" is not an array index`);
      const limit = last && forAdd ? node.length : node.length - 1;
      if (index > limit) throw new NotApplicable(`index ${index} is out of range for the array at ${at} (length ${node.length})`);
      if (last) return { parent: node, key: index, exists: index < node.length };
      node = node[index]!;
    } else if (isJsonObject(node)) {
      const exists = hasOwn(node, token);
      if (last) return { parent: node, key: token, exists };
      if (!exists) throw new NotApplicable(`${JSON.stringify(next)} does not exist`);
      node = node[token]!;
    } else {
      throw new NotApplicable(`${at} is ${describeJsonType(node)}, not an object or an array`);
    }
    prefix = next;
  }
  throw new NotApplicable('the document root has no parent');
}

function valueAt(doc: JsonValue, pointer: string): JsonValue {
  if (pointer === '') return doc;
  const loc = locate(doc, pointer, false);
  if (!loc.exists) throw new NotApplicable(`${JSON.stringify(pointer)} does not exist`);
  return Array.isArray(loc.parent) ? loc.parent[loc.key as number]! : loc.parent[loc.key as string]!;
}

/** Checks that `op` applies to `doc` as RFC 6902 requires; throws NotApplicable otherwise. */
function checkApplies(doc: JsonValue, op: JsonPatchOperation): void {
  switch (op.op) {
    case 'add':
      if (op.path !== '') locate(doc, op.path, true);
      return;
    case 'remove':
      if (op.path === '') throw new NotApplicable('the document root cannot be removed');
      valueAt(doc, op.path);
      return;
    case 'replace':
      valueAt(doc, op.path);
      return;
    case 'test': {
      const actual = valueAt(doc, op.path);
      if (!deepEqual(actual, op.value)) {
        throw new NotApplicable(`the value is ${shortJson(actual)}, expected ${shortJson(op.value)}`);
      }
      return;
    }
    case 'move':
      if (op.path !== op.from && op.path.startsWith(`${op.from}/`)) {
        throw new NotApplicable(`a value cannot be moved into one of its own children`);
      }
      valueAt(doc, op.from);
      if (op.path !== '') locate(doc, op.path, true);
      return;
    case 'copy':
      valueAt(doc, op.from);
      if (op.path !== '') locate(doc, op.path, true);
      return;
    default: {
      const never: never = op;
      throw new NotApplicable(`unknown operation ${shortJson(never)}`);
    }
  }
}

function describeOp(op: JsonPatchOperation, i: number): string {
  return op.op === 'move' || op.op === 'copy'
    ? `JSON patch operation ${i} (${op.op} from ${op.from} to ${op.path})`
    : `JSON patch operation ${i} (${op.op} ${op.path})`;
}

/**
 * applyJsonPatch applies an RFC 6902 patch to a copy of `original` and returns it; the
 * operations apply in order and all or nothing. Errors are ApiErrors as described above.
 */
export function applyJsonPatch(original: JsonValue, patch: JsonValue): JsonValue {
  try {
    const ops = parseJsonPatch(patch);
    let doc: JsonValue = deepCopy(original);
    ops.forEach((op, i) => {
      try {
        checkApplies(doc, op);
        doc = jsonpatch.applyOperation(doc, op, false, true, true, i).newDocument;
      } catch (err) {
        if (err instanceof NotApplicable) throw unprocessablePatch(`${describeOp(op, i)} failed: ${err.message}`);
        throw err;
      }
    });
    return doc;
  } catch (err) {
    throw asPatchError(err, 'JSON patch');
  }
}
