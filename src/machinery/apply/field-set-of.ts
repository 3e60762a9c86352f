/**
 * Computing the set of fields an object (or an applied configuration) sets, following the
 * schema's list and map semantics.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import { errors } from '../errors.js';
import type { JsonValue } from '../object.js';
import { isPlainObject } from '../object.js';
import type { FieldPath } from './field-path.js';
import { fieldElement, pathToString } from './field-path.js';
import { FieldSet } from './field-set.js';
import { PathFilter } from './path-filter.js';
import type { Schema } from './type-info.js';
import { fieldSchema, isAtomicMap, ListShapeError, listItemElements, listTypeOf, rootSchema } from './type-info.js';

/** A ShapeError reports a value that does not fit its schema's list semantics, at a path. */
export class ShapeError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(path ? `${path}: ${detail}` : detail);
    this.name = 'ShapeError';
  }
}

/** Options of fieldSetOf. */
export interface FieldSetOfOptions {
  /** Path prefixes (lists of field names, e.g. `[['status']]`) to leave out, besides the defaults. */
  ignore?: readonly (readonly string[])[];
}

/**
 * fieldSetOf returns the fields an object sets, the way an applier comes to own them: every
 * leaf, every item of a set or map-list (the item itself and its fields), empty or null
 * values, and the free keys of maps. Type and identity metadata (`apiVersion`, `kind`,
 * `metadata.name`, `metadata.uid`, …) and the `ignore` prefixes are left out. A map-list
 * item without its key, or two items with one key, is a 400 Bad Request.
 */
export function fieldSetOf(obj: JsonValue, schema?: JSONSchemaProps, options: FieldSetOfOptions = {}): FieldSet {
  const filter = PathFilter.of(options.ignore);
  try {
    return filter.apply(collectFields(obj, rootSchema(schema), filter, true));
  } catch (err) {
    if (err instanceof ShapeError) throw errors.badRequest(`failed to compute the fields of the object: ${err.message}`);
    throw err;
  }
}

/**
 * collectFields walks a value. With `strict`, unaddressable list items throw a ShapeError;
 * without it such a list is treated as one atomic value.
 */
export function collectFields(value: JsonValue, schema: Schema, filter: PathFilter | undefined, strict: boolean): FieldSet {
  const set = new FieldSet();
  walk(value, schema, filter, [], set, strict);
  return set;
}

function walk(value: JsonValue, schema: Schema, filter: PathFilter | undefined, path: FieldPath, set: FieldSet, strict: boolean): void {
  if (isPlainObject(value) && !isAtomicMap(schema)) {
    for (const [name, child] of Object.entries(value)) {
      let childFilter: PathFilter | undefined;
      if (filter) {
        const f = filter.enter(name);
        if (f === 'skip') continue;
        childFilter = f;
      }
      const { schema: childSchema, declared } = fieldSchema(schema, name);
      const childPath = [...path, fieldElement(name)];
      walk(child, childSchema, childFilter, childPath, set, strict);
      if (child === null || (isPlainObject(child) && Object.keys(child).length === 0) || !declared) set.insert(childPath);
    }
    return;
  }
  if (Array.isArray(value)) {
    const lt = listTypeOf(schema);
    if (lt.type !== 'atomic') {
      const elements = listItemElements(value, lt, schema?.items);
      if (elements instanceof ListShapeError) {
        if (strict) throw new ShapeError(pathToString(path), elements.message);
      } else {
        elements.forEach((pe, i) => {
          const itemPath = [...path, pe];
          if (lt.type === 'map') walk(value[i], schema?.items, undefined, itemPath, set, strict);
          set.insert(itemPath);
        });
        return;
      }
    }
  }
  if (path.length > 0) set.insert(path);
}
