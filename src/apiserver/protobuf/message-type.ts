/**
 * Message types: tables that map a protobuf message's field numbers to JSON field names and
 * value types. The decoder walks the wire data with one of these; the tables for each API
 * group live in their own file (meta-v1.ts, core-v1.ts, ...).
 */

/**
 * The value types a field can hold:
 * - `string`, `bool`, `int32`, `int64`: scalars, as in JSON;
 * - `bytes`: base64 text, as Kubernetes writes `[]byte` in JSON;
 * - `time`: meta/v1 Time, an RFC 3339 string with whole seconds;
 * - `microTime`: meta/v1 MicroTime, an RFC 3339 string with six fractional digits;
 * - `fieldsV1`: meta/v1 FieldsV1, whose raw bytes are a JSON object;
 * - a MessageType: a nested object.
 */
export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'time' | 'microTime' | 'fieldsV1';
export type ValueType = ScalarType | MessageType;

/**
 * How a field repeats: `single` (last value wins; nested messages merge), `repeated` (a JSON
 * array) or `map` (a JSON object; the wire holds entries with key 1 and value 2, keys are
 * strings).
 */
export type Cardinality = 'single' | 'repeated' | 'map';

/** A FieldSpec says how one field number becomes one JSON field. */
export interface FieldSpec {
  readonly json: string;
  readonly type: ValueType;
  readonly cardinality: Cardinality;
  /**
   * Emit the value even when it is the zero value. Set for pointer fields (their presence
   * on the wire is meaningful: `immutable: false`, `gracePeriodSeconds: 0`) and for fields
   * Kubernetes always writes in JSON (`ownerReferences[].uid`, `roleRef.kind`). Other zero
   * scalars ("" / 0 / false, which Go's protobuf encoder writes for every plain field) are
   * left out, as Kubernetes' JSON leaves them out.
   */
  readonly keep: boolean;
}

/** A MessageType is the field table of one protobuf message. */
export interface MessageType {
  readonly name: string;
  readonly fields: ReadonlyMap<number, FieldSpec>;
  /**
   * For wrapper messages that JSON shows as their one repeated field (authentication's
   * ExtraValue is `repeated string items = 1` on the wire and a plain array in JSON): the
   * JSON name of that field.
   */
  readonly unwrap?: string;
}

/** Options for a field: `keep` zero values (see FieldSpec.keep). */
export interface FieldOptions {
  keep?: boolean;
}

/** A field holding one value. */
export function one(json: string, type: ValueType, options: FieldOptions = {}): FieldSpec {
  return { json, type, cardinality: 'single', keep: options.keep ?? false };
}

/** A repeated field: a JSON array. */
export function many(json: string, type: ValueType): FieldSpec {
  return { json, type, cardinality: 'repeated', keep: false };
}

/** A `map<string, T>` field: a JSON object. */
export function dict(json: string, type: ValueType): FieldSpec {
  return { json, type, cardinality: 'map', keep: false };
}

/** Defines a message type from its fields, keyed by field number. */
export function message(name: string, fields: Record<number, FieldSpec>, options: { unwrap?: string } = {}): MessageType {
  const table = new Map<number, FieldSpec>();
  for (const [number, spec] of Object.entries(fields)) table.set(Number(number), spec);
  return options.unwrap === undefined ? { name, fields: table } : { name, fields: table, unwrap: options.unwrap };
}
