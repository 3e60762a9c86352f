/**
 * The OpenAPI v2 document in protobuf: gnostic's `openapi.v2.Document` message, which is
 * what client-go asks `/openapi/v2` for (kubectl 1.27 and 1.28 need it for `apply`).
 *
 * The encoder walks the JSON document with one table per message (JSON key → field number
 * and value kind; the numbers are those of gnostic's public OpenAPIv2.proto) and writes
 * what the document says, with proto3's rules: empty strings, `false` and `0` are not
 * written, a present object always is (an empty `properties: {}` stays distinguishable from
 * none). Keys starting with `x-` become `vendor_extension` entries (NamedAny) whose value
 * is the YAML text of the JSON value, as gnostic writes them; `default`, `example` and
 * `enum` values are Any messages with YAML text too. Keys no message can hold are reported
 * in `unrepresented` rather than silently lost, so tests can check the document fits.
 */
import { ProtoWriter } from '../protobuf/index.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The result of encoding: the message bytes, and the JSON paths of keys it could not hold. */
export interface EncodedOpenApiV2 {
  bytes: Uint8Array;
  unrepresented: string[];
}

/** What the value of one JSON key becomes in the message. */
type FieldKind =
  | 'string'
  | 'bool'
  | 'int64'
  | 'double'
  | 'strings'
  /** An `Any` holding the YAML text of the value. */
  | 'any'
  /** A `repeated Any`, one per element of a JSON array. */
  | 'anys'
  | { message: MessageSpec }
  | { repeated: MessageSpec }
  /** A message the writer builds from the value itself (oneofs, maps). */
  | { custom: FieldWriter };

/** Writes `value` as field `n` of the message `w` is building. */
type FieldWriter = (w: ProtoWriter, n: number, value: Json, path: string, ctx: Context) => void;

interface MessageSpec {
  fields: Record<string, [number, FieldKind]>;
  /** The field number of `repeated NamedAny vendor_extension`, when the message has one. */
  extensions?: number;
}

interface Context {
  unrepresented: string[];
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ------------------------------------------------------------------ YAML text of values

/**
 * yamlText writes a JSON value as YAML flow text: JSON with a space after every `:` and
 * `,`, which YAML 1.1 parsers (go-yaml v2, what kube-openapi's proto models use) read as
 * the same value. Strings keep JSON's double-quoted escapes, which YAML shares.
 */
export function yamlText(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(yamlText).join(', ')}]`;
  if (isObject(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${yamlText(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

function writeAny(w: ProtoWriter, field: number, value: Json): void {
  // Any { google.protobuf.Any value = 1; string yaml = 2; }
  w.message(field, (a) => a.string(2, yamlText(value)));
}

function writeExtensions(w: ProtoWriter, field: number, entries: [string, Json][]): void {
  // NamedAny { string name = 1; Any value = 2; }
  for (const [name, value] of entries) {
    w.message(field, (n) => {
      n.string(1, name);
      writeAny(n, 2, value);
    });
  }
}

// ------------------------------------------------------------------ the generic walker

function unrepresentable(ctx: Context, path: string, why: string): void {
  ctx.unrepresented.push(`${path}: ${why}`);
}

function writeField(w: ProtoWriter, n: number, kind: FieldKind, value: Json, path: string, ctx: Context): void {
  if (typeof kind === 'object') {
    if ('custom' in kind) return kind.custom(w, n, value, path, ctx);
    if ('message' in kind) {
      if (!isObject(value)) return unrepresentable(ctx, path, 'expected an object');
      w.message(n, (m) => writeMessage(m, kind.message, value, path, ctx));
      return;
    }
    if (!Array.isArray(value)) return unrepresentable(ctx, path, 'expected an array');
    value.forEach((item, i) => {
      if (!isObject(item)) return unrepresentable(ctx, `${path}[${i}]`, 'expected an object');
      w.message(n, (m) => writeMessage(m, kind.repeated, item, `${path}[${i}]`, ctx));
    });
    return;
  }
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') return unrepresentable(ctx, path, 'expected a string');
      if (value !== '') w.string(n, value);
      return;
    case 'bool':
      if (typeof value !== 'boolean') return unrepresentable(ctx, path, 'expected a boolean');
      if (value) w.bool(n, true);
      return;
    case 'int64':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return unrepresentable(ctx, path, 'expected an integer');
      if (value !== 0) w.varint(n, value);
      return;
    case 'double':
      if (typeof value !== 'number') return unrepresentable(ctx, path, 'expected a number');
      if (value !== 0) w.double(n, value);
      return;
    case 'strings':
      if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) return unrepresentable(ctx, path, 'expected an array of strings');
      for (const s of value) w.string(n, s);
      return;
    case 'any':
      writeAny(w, n, value);
      return;
    case 'anys':
      if (!Array.isArray(value)) return unrepresentable(ctx, path, 'expected an array');
      for (const item of value) writeAny(w, n, item);
      return;
    default: {
      const never: never = kind;
      throw new Error(`unknown field kind ${String(never)}`);
    }
  }
}

/** writeMessage writes `obj` by `spec`, fields in field-number order, then its extensions. */
function writeMessage(w: ProtoWriter, spec: MessageSpec, obj: JsonObject, path: string, ctx: Context): void {
  const present: [number, FieldKind, Json, string][] = [];
  const extensions: [string, Json][] = [];
  for (const [key, value] of Object.entries(obj)) {
    const field = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    if (field) present.push([field[0], field[1], value, `${path}.${key}`]);
    else if (key.startsWith('x-') && spec.extensions !== undefined) extensions.push([key, value]);
    else unrepresentable(ctx, `${path}.${key}`, 'no field of the message holds it');
  }
  present.sort((a, b) => a[0] - b[0]);
  let extensionsWritten = false;
  for (const [n, kind, value, at] of present) {
    if (!extensionsWritten && spec.extensions !== undefined && n > spec.extensions) {
      writeExtensions(w, spec.extensions, extensions);
      extensionsWritten = true;
    }
    writeField(w, n, kind, value, at, ctx);
  }
  if (!extensionsWritten && spec.extensions !== undefined) writeExtensions(w, spec.extensions, extensions);
}

/** A FieldWriter for a field whose type is the message `spec`. */
function messageOf(spec: MessageSpec): FieldWriter {
  return (w, n, value, path, ctx) => writeField(w, n, { message: spec }, value, path, ctx);
}

/**
 * A map-like message: `repeated Named<X> <entryField>`, each entry `{ string name = 1;
 * X value = 2; }`, in the JSON object's order. Keys starting with `x-` go to the message's
 * `vendor_extension` field when it has one (`extensions`).
 */
function namedMap(entryField: number, writeValue: FieldWriter, extensions?: number): FieldKind {
  return {
    custom: (w, n, value, path, ctx) => {
      if (!isObject(value)) return unrepresentable(ctx, path, 'expected an object');
      w.message(n, (m) => {
        const ext: [string, Json][] = [];
        for (const [name, v] of Object.entries(value)) {
          if (extensions !== undefined && name.startsWith('x-')) {
            ext.push([name, v]);
            continue;
          }
          m.message(entryField, (e) => {
            e.string(1, name);
            writeValue(e, 2, v, `${path}[${JSON.stringify(name)}]`, ctx);
          });
        }
        if (extensions !== undefined) writeExtensions(m, extensions, ext);
      });
    },
  };
}

/** A oneof wrapper message: `choose` picks the field number and spec of the value's case. */
function oneof(choose: (value: JsonObject) => [number, FieldKind]): FieldKind {
  return {
    custom: (w, n, value, path, ctx) => {
      if (!isObject(value)) return unrepresentable(ctx, path, 'expected an object');
      const [field, kind] = choose(value);
      w.message(n, (m) => writeField(m, field, kind, value, path, ctx));
    },
  };
}

// ------------------------------------------------------------------ the messages (OpenAPIv2.proto)

const externalDocs: MessageSpec = { fields: { description: [1, 'string'], url: [2, 'string'] }, extensions: 3 };

/** JsonReference { string _ref = 1; string description = 2; } */
const jsonReference: MessageSpec = { fields: { $ref: [1, 'string'], description: [2, 'string'] } };

/** PrimitivesItems (the `items` of a non-body parameter or header). */
const primitivesItems: MessageSpec = { fields: {}, extensions: 18 };
Object.assign(primitivesItems.fields, {
  type: [1, 'string'],
  format: [2, 'string'],
  items: [3, { message: primitivesItems }],
  collectionFormat: [4, 'string'],
  default: [5, 'any'],
  maximum: [6, 'double'],
  exclusiveMaximum: [7, 'bool'],
  minimum: [8, 'double'],
  exclusiveMinimum: [9, 'bool'],
  maxLength: [10, 'int64'],
  minLength: [11, 'int64'],
  pattern: [12, 'string'],
  maxItems: [13, 'int64'],
  minItems: [14, 'int64'],
  uniqueItems: [15, 'bool'],
  enum: [16, 'anys'],
  multipleOf: [17, 'double'],
} satisfies MessageSpec['fields']);

/** Header (of a response): the PrimitivesItems layout, then description = 18. */
const header: MessageSpec = {
  fields: { ...primitivesItems.fields, items: [3, { message: primitivesItems }], description: [18, 'string'] },
  extensions: 19,
};

/**
 * The header and path parameter sub-schemas share one layout; the query and formData ones
 * insert allow_empty_value = 5 and shift the rest by one.
 */
function parameterSubSchema(allowEmptyValue: boolean): MessageSpec {
  const s = allowEmptyValue ? 1 : 0;
  const fields: MessageSpec['fields'] = {
    required: [1, 'bool'],
    in: [2, 'string'],
    description: [3, 'string'],
    name: [4, 'string'],
    type: [5 + s, 'string'],
    format: [6 + s, 'string'],
    items: [7 + s, { message: primitivesItems }],
    collectionFormat: [8 + s, 'string'],
    default: [9 + s, 'any'],
    maximum: [10 + s, 'double'],
    exclusiveMaximum: [11 + s, 'bool'],
    minimum: [12 + s, 'double'],
    exclusiveMinimum: [13 + s, 'bool'],
    maxLength: [14 + s, 'int64'],
    minLength: [15 + s, 'int64'],
    pattern: [16 + s, 'string'],
    maxItems: [17 + s, 'int64'],
    minItems: [18 + s, 'int64'],
    uniqueItems: [19 + s, 'bool'],
    enum: [20 + s, 'anys'],
    multipleOf: [21 + s, 'double'],
  };
  if (allowEmptyValue) fields.allowEmptyValue = [5, 'bool'];
  return { fields, extensions: 22 + s };
}
const headerOrPathParameter = parameterSubSchema(false);
const queryOrFormDataParameter = parameterSubSchema(true);

/** Schema, the JSON Schema subset of Swagger 2.0. */
const schema: MessageSpec = { fields: {}, extensions: 31 };

/** Schema.type is a TypeItem { repeated string value = 1; }: one type or a list of them. */
const typeItem: FieldKind = {
  custom: (w, n, value, path, ctx) => {
    const types = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(types) || !types.every((t) => typeof t === 'string')) return unrepresentable(ctx, path, 'expected a type name or a list of them');
    w.message(n, (m) => {
      for (const t of types) m.string(1, t);
    });
  },
};

/** Schema.items is an ItemsItem { repeated Schema schema = 1; }: one schema or a list. */
const itemsItem: FieldKind = {
  custom: (w, n, value, path, ctx) => {
    const list = Array.isArray(value) ? value : [value];
    w.message(n, (m) => writeField(m, 1, { repeated: schema }, list, path, ctx));
  },
};

/** AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2; } } */
const additionalPropertiesItem: FieldKind = {
  custom: (w, n, value, path, ctx) => {
    if (typeof value === 'boolean') {
      // A oneof case is written even when it holds the zero value.
      w.message(n, (m) => m.varint(2, value));
      return;
    }
    w.message(n, (m) => writeField(m, 1, { message: schema }, value, path, ctx));
  },
};

const xml: MessageSpec = {
  fields: { name: [1, 'string'], namespace: [2, 'string'], prefix: [3, 'string'], attribute: [4, 'bool'], wrapped: [5, 'bool'] },
  extensions: 6,
};

Object.assign(schema.fields, {
  $ref: [1, 'string'],
  format: [2, 'string'],
  title: [3, 'string'],
  description: [4, 'string'],
  default: [5, 'any'],
  multipleOf: [6, 'double'],
  maximum: [7, 'double'],
  exclusiveMaximum: [8, 'bool'],
  minimum: [9, 'double'],
  exclusiveMinimum: [10, 'bool'],
  maxLength: [11, 'int64'],
  minLength: [12, 'int64'],
  pattern: [13, 'string'],
  maxItems: [14, 'int64'],
  minItems: [15, 'int64'],
  uniqueItems: [16, 'bool'],
  maxProperties: [17, 'int64'],
  minProperties: [18, 'int64'],
  required: [19, 'strings'],
  enum: [20, 'anys'],
  additionalProperties: [21, additionalPropertiesItem],
  type: [22, typeItem],
  items: [23, itemsItem],
  allOf: [24, { repeated: schema }],
  // Properties { repeated NamedSchema additional_properties = 1; }
  properties: [25, namedMap(1, messageOf(schema))],
  discriminator: [26, 'string'],
  readOnly: [27, 'bool'],
  xml: [28, { message: xml }],
  externalDocs: [29, { message: externalDocs }],
  example: [30, 'any'],
} satisfies MessageSpec['fields']);

/** BodyParameter: `in: body`, with a schema. */
const bodyParameter: MessageSpec = {
  fields: { description: [1, 'string'], name: [2, 'string'], in: [3, 'string'], required: [4, 'bool'], schema: [5, { message: schema }] },
  extensions: 6,
};

/**
 * Parameter { oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } },
 * NonBodyParameter { oneof { header = 1; formData = 2; query = 3; path = 4 } }, chosen by `in`.
 */
const parameter: FieldKind = oneof((p) => {
  switch (p.in) {
    case 'body':
      return [1, { message: bodyParameter }];
    case 'header':
      return [2, oneof(() => [1, { message: headerOrPathParameter }])];
    case 'formData':
      return [2, oneof(() => [2, { message: queryOrFormDataParameter }])];
    case 'path':
      return [2, oneof(() => [4, { message: headerOrPathParameter }])];
    default:
      return [2, oneof(() => [3, { message: queryOrFormDataParameter }])];
  }
});

/** ParametersItem { oneof { Parameter parameter = 1; JsonReference json_reference = 2; } } */
const parametersItem: FieldKind = oneof((p) => (typeof p.$ref === 'string' ? [2, { message: jsonReference }] : [1, parameter]));

function repeatedOf(kind: FieldKind): FieldKind {
  return {
    custom: (w, n, value, path, ctx) => {
      if (!Array.isArray(value)) return unrepresentable(ctx, path, 'expected an array');
      value.forEach((item, i) => writeField(w, n, kind, item, `${path}[${i}]`, ctx));
    },
  };
}

/** Response { description = 1; SchemaItem schema = 2; Headers headers = 3; Examples examples = 4; } */
const response: MessageSpec = {
  fields: {
    description: [1, 'string'],
    // SchemaItem { oneof { Schema schema = 1; FileSchema file_schema = 2; } }; a Schema can say `type: file` too.
    schema: [2, oneof(() => [1, { message: schema }])],
    headers: [3, namedMap(1, messageOf(header))],
    examples: [4, namedMap(1, (w, n, v) => writeAny(w, n, v))],
  },
  extensions: 5,
};

/** ResponseValue { oneof { Response response = 1; JsonReference json_reference = 2; } } */
const responseValue: FieldKind = oneof((r) => (typeof r.$ref === 'string' ? [2, { message: jsonReference }] : [1, { message: response }]));

/** SecurityRequirement { repeated NamedStringArray additional_properties = 1; }, StringArray { repeated string value = 1; } */
const securityRequirement: FieldKind = namedMap(1, (w, n, value, path, ctx) => {
  w.message(n, (m) => writeField(m, 1, 'strings', value, path, ctx));
});

const operation: MessageSpec = {
  fields: {
    tags: [1, 'strings'],
    summary: [2, 'string'],
    description: [3, 'string'],
    externalDocs: [4, { message: externalDocs }],
    operationId: [5, 'string'],
    produces: [6, 'strings'],
    consumes: [7, 'strings'],
    parameters: [8, repeatedOf(parametersItem)],
    // Responses { repeated NamedResponseValue response_code = 1; vendor_extension = 2; }
    responses: [9, namedMap(1, (w, n, v, path, ctx) => writeField(w, n, responseValue, v, path, ctx), 2)],
    schemes: [10, 'strings'],
    deprecated: [11, 'bool'],
    security: [12, repeatedOf(securityRequirement)],
  },
  extensions: 13,
};

const pathItem: MessageSpec = {
  fields: {
    $ref: [1, 'string'],
    get: [2, { message: operation }],
    put: [3, { message: operation }],
    post: [4, { message: operation }],
    delete: [5, { message: operation }],
    options: [6, { message: operation }],
    head: [7, { message: operation }],
    patch: [8, { message: operation }],
    parameters: [9, repeatedOf(parametersItem)],
  },
  extensions: 10,
};

/** Oauth2Scopes { repeated NamedString additional_properties = 1; } */
const oauth2Scopes: FieldKind = namedMap(1, (w, n, v, path, ctx) => writeField(w, n, 'string', v, path, ctx));

/** SecurityDefinitionsItem: one case per `type` (and `flow` for oauth2). */
const securityDefinitionsItem: FieldKind = oneof((d) => {
  if (d.type === 'basic') return [1, { message: { fields: { type: [1, 'string'], description: [2, 'string'] }, extensions: 3 } }];
  if (d.type === 'apiKey') {
    return [2, { message: { fields: { type: [1, 'string'], name: [2, 'string'], in: [3, 'string'], description: [4, 'string'] }, extensions: 5 } }];
  }
  const base: MessageSpec['fields'] = { type: [1, 'string'], flow: [2, 'string'], scopes: [3, oauth2Scopes] };
  switch (d.flow) {
    case 'implicit':
      return [3, { message: { fields: { ...base, authorizationUrl: [4, 'string'], description: [5, 'string'] }, extensions: 6 } }];
    case 'password':
      return [4, { message: { fields: { ...base, tokenUrl: [4, 'string'], description: [5, 'string'] }, extensions: 6 } }];
    case 'application':
      return [5, { message: { fields: { ...base, tokenUrl: [4, 'string'], description: [5, 'string'] }, extensions: 6 } }];
    default:
      return [6, { message: { fields: { ...base, authorizationUrl: [4, 'string'], tokenUrl: [5, 'string'], description: [6, 'string'] }, extensions: 7 } }];
  }
});

const info: MessageSpec = {
  fields: {
    title: [1, 'string'],
    version: [2, 'string'],
    description: [3, 'string'],
    termsOfService: [4, 'string'],
    contact: [5, { message: { fields: { name: [1, 'string'], url: [2, 'string'], email: [3, 'string'] }, extensions: 4 } }],
    license: [6, { message: { fields: { name: [1, 'string'], url: [2, 'string'] }, extensions: 3 } }],
  },
  extensions: 7,
};

const tag: MessageSpec = { fields: { name: [1, 'string'], description: [2, 'string'], externalDocs: [3, { message: externalDocs }] }, extensions: 4 };

const document: MessageSpec = {
  fields: {
    swagger: [1, 'string'],
    info: [2, { message: info }],
    host: [3, 'string'],
    basePath: [4, 'string'],
    schemes: [5, 'strings'],
    consumes: [6, 'strings'],
    produces: [7, 'strings'],
    // Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
    paths: [8, namedMap(2, messageOf(pathItem), 1)],
    definitions: [9, namedMap(1, messageOf(schema))],
    parameters: [10, namedMap(1, (w, n, v, path, ctx) => writeField(w, n, parameter, v, path, ctx))],
    responses: [11, namedMap(1, messageOf(response))],
    security: [12, repeatedOf(securityRequirement)],
    securityDefinitions: [13, namedMap(1, (w, n, v, path, ctx) => writeField(w, n, securityDefinitionsItem, v, path, ctx))],
    tags: [14, { repeated: tag }],
    externalDocs: [15, { message: externalDocs }],
  },
  extensions: 16,
};

/**
 * encodeOpenApiV2 encodes a Swagger 2.0 document (as `/openapi/v2` serves it in JSON) as a
 * gnostic `openapi.v2.Document` message.
 */
export function encodeOpenApiV2(doc: Record<string, unknown>): EncodedOpenApiV2 {
  const ctx: Context = { unrepresented: [] };
  const w = new ProtoWriter();
  writeMessage(w, document, doc as JsonObject, '$', ctx);
  return { bytes: w.finish(), unrepresented: ctx.unrepresented };
}
