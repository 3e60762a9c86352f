/**
 * A small schema builder: each call returns a Field that carries both an OpenAPI v3 schema
 * (the structural, Kubernetes-flavoured kind a CRD needs) and, at the type level, the
 * TypeScript type of the values that schema accepts. A kind is written once with these
 * builders; its CRD schema and its TypeScript type are both read off that one definition.
 *
 *   const spec = s.object({ size: s.integer(), color: s.enumOf(['red', 'blue']).optional() });
 *   type Spec = Infer<typeof spec>;        // { size: number; color?: 'red' | 'blue' }
 *   spec.schema                            // { type: 'object', required: ['size'], ... }
 */
import type { JsonObject } from '../../machinery/object.js';
import { NON_NEGATIVE_QUANTITY_PATTERN, type JSONSchemaProps, type ValidationRule } from '../../machinery/schema-types.js';

/**
 * A Field does two jobs: `schema` is the OpenAPI schema of a value, and its type parameter
 * `T` is the TypeScript type of that value. `O` records whether the field may be left out
 * of the object that holds it (optional, or filled by a schema default).
 */
export interface Field<T, O extends boolean = false> {
  readonly schema: JSONSchemaProps;
  readonly isOptional: O;
  /** Never set; carries `T` for `Infer`. */
  readonly __type?: T;
  /** The same field, optional in the object that holds it. */
  optional(): Field<T, true>;
  /** The same field with a description (shown by `kubectl explain`). */
  describe(description: string): Field<T, O>;
  /**
   * The same field with a schema default. The schema no longer requires it (the server
   * fills it in), but its TypeScript type stays as it was: objects read back from the
   * server always have it. Chain `.optional()` to let writers leave it out too.
   */
  withDefault(value: T): Field<T, O>;
  /** The same field with CEL rules (`x-kubernetes-validations`) checked against it. */
  rules(...rules: ValidationRule[]): Field<T, O>;
  /** The same field with further schema keywords merged in (escape hatch). */
  extend(extra: JSONSchemaProps): Field<T, O>;
}

/** The TypeScript type of the values a Field accepts. */
export type Infer<F> = F extends Field<infer T, boolean> ? T : never;

/** The fields of an object, by property name. */
export type Shape = { readonly [key: string]: Field<unknown, boolean> };

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K]['isOptional'] extends true ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K]['isOptional'] extends true ? K : never }[keyof S];

/** The TypeScript object type a Shape describes: optional fields become optional properties. */
export type InferShape<S extends Shape> = Simplify<{ -readonly [K in RequiredKeys<S>]: Infer<S[K]> } & { -readonly [K in OptionalKeys<S>]?: Infer<S[K]> }>;

class FieldImpl<T, O extends boolean> implements Field<T, O> {
  declare readonly __type?: T;
  constructor(
    readonly schema: JSONSchemaProps,
    readonly isOptional: O,
  ) {}

  optional(): Field<T, true> {
    return new FieldImpl<T, true>(this.schema, true);
  }

  describe(description: string): Field<T, O> {
    return new FieldImpl<T, O>({ ...this.schema, description }, this.isOptional);
  }

  withDefault(value: T): Field<T, O> {
    return new FieldImpl<T, O>({ ...this.schema, default: value }, this.isOptional);
  }

  rules(...rules: ValidationRule[]): Field<T, O> {
    const existing = this.schema['x-kubernetes-validations'] ?? [];
    return new FieldImpl<T, O>({ ...this.schema, 'x-kubernetes-validations': [...existing, ...rules] }, this.isOptional);
  }

  extend(extra: JSONSchemaProps): Field<T, O> {
    return new FieldImpl<T, O>({ ...this.schema, ...extra }, this.isOptional);
  }
}

function field<T>(schema: JSONSchemaProps): Field<T> {
  return new FieldImpl<T, false>(schema, false);
}

/** Keywords a string field may carry. */
export interface StringOptions {
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  format?: string;
}

/** Keywords a number field may carry. */
export interface NumberOptions {
  minimum?: number;
  maximum?: number;
  format?: string;
}

/** Keywords an array field may carry. */
export interface ArrayOptions {
  minItems?: number;
  maxItems?: number;
  /** `set` items are unique scalars; `map` items are objects keyed by `mapKeys`. */
  listType?: 'atomic' | 'set' | 'map';
  mapKeys?: string[];
}

/** Keywords an object field may carry. */
export interface ObjectOptions {
  /** `atomic` objects are replaced whole by server-side apply and merge patches. */
  mapType?: 'atomic' | 'granular';
  minProperties?: number;
}

function clean<T extends object>(o: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

export { NON_NEGATIVE_QUANTITY_PATTERN };

/** The builders. */
export const s = {
  string(opts: StringOptions = {}): Field<string> {
    return field<string>(clean({ type: 'string' as const, ...opts }));
  },

  /** A string limited to `values` (a CRD `enum`); its type is the union of the values. */
  enumOf<const V extends readonly [string, ...string[]]>(values: V): Field<V[number]> {
    return field<V[number]>({ type: 'string', enum: [...values] });
  },

  /** An RFC 3339 timestamp. */
  dateTime(): Field<string> {
    return field<string>({ type: 'string', format: 'date-time' });
  },

  integer(opts: NumberOptions = {}): Field<number> {
    return field<number>(clean({ type: 'integer' as const, ...opts }));
  },

  number(opts: NumberOptions = {}): Field<number> {
    return field<number>(clean({ type: 'number' as const, ...opts }));
  },

  boolean(): Field<boolean> {
    return field<boolean>({ type: 'boolean' });
  },

  /** A non-negative Kubernetes quantity: a string such as `25Gi` or a JSON integer. */
  quantity(): Field<string | number> {
    return field<string | number>({
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: NON_NEGATIVE_QUANTITY_PATTERN,
      minimum: 0,
    });
  },

  array<T>(items: Field<T, boolean>, opts: ArrayOptions = {}): Field<T[]> {
    const { listType, mapKeys, ...rest } = opts;
    return field<T[]>(
      clean({
        type: 'array' as const,
        items: items.schema,
        ...rest,
        'x-kubernetes-list-type': listType,
        'x-kubernetes-list-map-keys': mapKeys,
      }),
    );
  },

  /** An object with arbitrary keys whose values all have the same schema. */
  map<T>(values: Field<T, boolean>): Field<Record<string, T>> {
    return field<Record<string, T>>({ type: 'object', additionalProperties: values.schema });
  },

  /** An object with the given properties; those neither optional nor defaulted are `required`. */
  object<S extends Shape>(shape: S, opts: ObjectOptions = {}): Field<InferShape<S>> {
    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    for (const [name, f] of Object.entries(shape)) {
      properties[name] = f.schema;
      if (!f.isOptional && f.schema.default === undefined) required.push(name);
    }
    return field<InferShape<S>>(
      clean({
        type: 'object' as const,
        properties,
        required: required.length > 0 ? required : undefined,
        minProperties: opts.minProperties,
        'x-kubernetes-map-type': opts.mapType,
      }),
    );
  },

  /** An object whose contents are kept as sent (`x-kubernetes-preserve-unknown-fields`). */
  freeform(): Field<JsonObject> {
    return field<JsonObject>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  },
};
