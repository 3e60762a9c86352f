/**
 * Decodes one protobuf message into the JSON object Kubernetes' JSON encoding would give,
 * guided by a MessageType table. Unknown fields are skipped; a known field with the wrong
 * wire type, bad UTF-8, an out-of-range time or a FieldsV1 that is not a JSON object is a
 * 400 BadRequest naming the field path.
 */
import type { JsonObject, JsonValue } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { FieldSpec, MessageType, ValueType } from './message-type.js';
import { formatMicroTime, formatTime, timestampProblem, type Timestamp } from './timestamps.js';
import type { ProtoReader } from './wire-reader.js';
import { WireType, wireTypeName, type Tag } from './wire-reader.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Sets an own enumerable property, so keys such as "__proto__" stay ordinary keys. */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function expectedWireType(type: ValueType): number {
  switch (type) {
    case 'bool':
    case 'int32':
    case 'int64':
      return WireType.varint;
    default:
      return WireType.lengthDelimited;
  }
}

function checkWireType(reader: ProtoReader, tag: Tag, want: number, path: string): void {
  if (tag.wireType !== want) {
    throw reader.malformed(`${path} (field ${tag.field}) has wire type ${wireTypeName(tag.wireType)}; expected ${wireTypeName(want)}`);
  }
}

/** Reads a meta/v1 Time or MicroTime message; undefined for the zero time (an empty message). */
function readTimestamp(reader: ProtoReader, path: string, micro: boolean): string | undefined {
  const at = reader.offset;
  const inner = reader.readMessage(path);
  if (inner.done) return undefined;
  const ts: Timestamp = { seconds: 0, nanos: 0 };
  while (!inner.done) {
    const tag = inner.readTag();
    if (tag.field === 1) {
      checkWireType(inner, tag, WireType.varint, `${path}.seconds`);
      ts.seconds = inner.readInt64(`${path}.seconds`);
    } else if (tag.field === 2) {
      checkWireType(inner, tag, WireType.varint, `${path}.nanos`);
      ts.nanos = inner.readInt32();
    } else {
      inner.skip(tag);
    }
  }
  const problem = timestampProblem(ts, micro);
  if (problem) throw reader.malformed(`${path} is not a valid time: ${problem}`, at);
  return micro ? formatMicroTime(ts) : formatTime(ts);
}

/** Reads a meta/v1 FieldsV1 message: its raw bytes (field 1) must be a JSON object. */
function readFieldsV1(reader: ProtoReader, path: string): JsonObject | undefined {
  const inner = reader.readMessage(path);
  let raw: Uint8Array | undefined;
  while (!inner.done) {
    const tag = inner.readTag();
    if (tag.field === 1) {
      checkWireType(inner, tag, WireType.lengthDelimited, `${path}.Raw`);
      raw = inner.readBytes(path);
    } else {
      inner.skip(tag);
    }
  }
  if (raw === undefined || raw.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(raw));
  } catch (err) {
    throw reader.malformed(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw reader.malformed(`${path} must hold a JSON object`);
  return parsed as JsonObject;
}

/** Whether a decoded scalar is its type's zero value. */
function isZero(value: JsonValue): boolean {
  return value === '' || value === 0 || value === false;
}

/**
 * Reads one value of `type` (the tag has been read and checked). Returns undefined for a
 * value JSON would not show at all (the zero time, an empty FieldsV1). A nested message is
 * decoded into `into` when given, which is how repeated occurrences of a singular message
 * field merge.
 */
function readValue(reader: ProtoReader, type: ValueType, path: string, into?: JsonObject): JsonValue | undefined {
  switch (type) {
    case 'string':
      return reader.readString(path);
    case 'bytes':
      return Buffer.from(reader.readBytes(path)).toString('base64');
    case 'bool':
      return reader.readBool();
    case 'int32':
      return reader.readInt32();
    case 'int64':
      return reader.readInt64(path);
    case 'time':
      return readTimestamp(reader, path, false);
    case 'microTime':
      return readTimestamp(reader, path, true);
    case 'fieldsV1':
      return readFieldsV1(reader, path);
    default: {
      const decoded = decodeMessage(reader.readMessage(path), type, path, into);
      if (type.unwrap !== undefined) return decoded[type.unwrap] ?? [];
      return decoded;
    }
  }
}

function zeroOf(type: ValueType): JsonValue {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
      return 0;
    default:
      return type === 'time' || type === 'microTime' || type === 'fieldsV1' ? null : type.unwrap !== undefined ? [] : {};
  }
}

/** Reads one entry of a map field: key (field 1, a string) and value (field 2). */
function readMapEntry(reader: ProtoReader, spec: FieldSpec, path: string): [string, JsonValue] {
  const entry = reader.readMessage(path);
  let key = '';
  let value: JsonValue | undefined;
  while (!entry.done) {
    const tag = entry.readTag();
    if (tag.field === 1) {
      checkWireType(entry, tag, WireType.lengthDelimited, `${path} key`);
      key = entry.readString(`${path} key`);
    } else if (tag.field === 2) {
      const valuePath = `${path}[${JSON.stringify(key)}]`;
      checkWireType(entry, tag, expectedWireType(spec.type), valuePath);
      const v = readValue(entry, spec.type, valuePath);
      value = v === undefined ? null : v;
    } else {
      entry.skip(tag);
    }
  }
  return [key, value === undefined ? zeroOf(spec.type) : value];
}

/**
 * Decodes the message under `reader` into a JSON object, following `type`. `path` names
 * the message in error messages (e.g. `ConfigMap.metadata`). Pass `out` to merge into an
 * object decoded earlier (protobuf merges repeated occurrences of a message field).
 */
export function decodeMessage(reader: ProtoReader, type: MessageType, path: string, out: JsonObject = {}): JsonObject {
  while (!reader.done) {
    const tag = reader.readTag();
    const spec = type.fields.get(tag.field);
    if (spec === undefined) {
      reader.skip(tag);
      continue;
    }
    const fieldPath = `${path}.${spec.json}`;
    switch (spec.cardinality) {
      case 'map': {
        checkWireType(reader, tag, WireType.lengthDelimited, fieldPath);
        const [key, value] = readMapEntry(reader, spec, fieldPath);
        let map = out[spec.json];
        if (!isPlainObject(map)) {
          map = {};
          out[spec.json] = map;
        }
        setOwn(map, key, value);
        break;
      }
      case 'repeated': {
        const index = Array.isArray(out[spec.json]) ? (out[spec.json] as JsonValue[]).length : 0;
        const elementPath = `${fieldPath}[${index}]`;
        checkWireType(reader, tag, expectedWireType(spec.type), elementPath);
        const value = readValue(reader, spec.type, elementPath);
        if (value === undefined) break;
        if (index === 0) out[spec.json] = [value];
        else (out[spec.json] as JsonValue[]).push(value);
        break;
      }
      case 'single': {
        checkWireType(reader, tag, expectedWireType(spec.type), fieldPath);
        const previous = out[spec.json];
        const mergeInto = typeof spec.type === 'object' && spec.type.unwrap === undefined && isPlainObject(previous) ? previous : undefined;
        const value = readValue(reader, spec.type, fieldPath, mergeInto);
        if (value === undefined || (!spec.keep && isZero(value))) delete out[spec.json];
        else out[spec.json] = value;
        break;
      }
    }
  }
  return out;
}
