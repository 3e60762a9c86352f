/**
 * Decodes a Kubernetes protobuf request body (`application/vnd.kubernetes.protobuf`):
 * the 4-byte prefix `k8s\0`, then a runtime.Unknown envelope (typeMeta = 1 {apiVersion = 1,
 * kind = 2}, raw = 2, contentEncoding = 3, contentType = 4) whose raw bytes are the object.
 */
import { ApiError, errors } from '../../machinery/errors.js';
import { decodableKinds, messageTypeFor } from './kinds.js';
import { decodeMessage } from './message-decoder.js';
import { ProtoReader, WireType, wireTypeName, type Tag } from './wire-reader.js';

/** The media type of Kubernetes protobuf bodies. */
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** The prefix of every Kubernetes protobuf body: "k8s" and a zero byte. */
export const PROTOBUF_MAGIC: readonly number[] = [0x6b, 0x38, 0x73, 0x00];

/** A decoded body: the envelope's apiVersion and kind, and the object as Kubernetes JSON. */
export interface DecodedProtobufObject {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw?: { start: number; end: number };
  contentEncoding: string;
  contentType: string;
}

function expectWire(reader: ProtoReader, tag: Tag, what: string): void {
  if (tag.wireType !== WireType.lengthDelimited) {
    throw reader.malformed(`${what} (field ${tag.field}) has wire type ${wireTypeName(tag.wireType)}; expected ${wireTypeName(WireType.lengthDelimited)}`);
  }
}

function readEnvelope(body: Uint8Array): Envelope {
  const env: Envelope = { apiVersion: '', kind: '', contentEncoding: '', contentType: '' };
  const reader = new ProtoReader(body, PROTOBUF_MAGIC.length);
  while (!reader.done) {
    const tag = reader.readTag();
    switch (tag.field) {
      case 1: {
        expectWire(reader, tag, 'Unknown.typeMeta');
        const typeMeta = reader.readMessage('Unknown.typeMeta');
        while (!typeMeta.done) {
          const t = typeMeta.readTag();
          if (t.field === 1 || t.field === 2) {
            const name = t.field === 1 ? 'apiVersion' : 'kind';
            expectWire(typeMeta, t, `Unknown.typeMeta.${name}`);
            env[name] = typeMeta.readString(`Unknown.typeMeta.${name}`);
          } else {
            typeMeta.skip(t);
          }
        }
        break;
      }
      case 2:
        expectWire(reader, tag, 'Unknown.raw');
        env.raw = reader.readLengthDelimited('Unknown.raw');
        break;
      case 3:
        expectWire(reader, tag, 'Unknown.contentEncoding');
        env.contentEncoding = reader.readString('Unknown.contentEncoding');
        break;
      case 4:
        expectWire(reader, tag, 'Unknown.contentType');
        env.contentType = reader.readString('Unknown.contentType');
        break;
      default:
        reader.skip(tag);
    }
  }
  return env;
}

function unsupported(message: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', message);
}

/** Whether a body starts with the `k8s\0` prefix of Kubernetes protobuf. */
export function hasProtobufMagic(body: Uint8Array): boolean {
  return body.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((b, i) => body[i] === b);
}

/**
 * Decodes a protobuf request body into the object Kubernetes' JSON would give (with
 * `apiVersion` and `kind` set from the envelope). Throws ApiError 400 for malformed bytes
 * and 415 UnsupportedMediaType, naming the kind, for kinds it has no decoder for.
 */
export function decodeProtobufObject(body: Uint8Array): DecodedProtobufObject {
  if (!hasProtobufMagic(body)) {
    throw errors.badRequest(`the request body is not a Kubernetes protobuf object: ${PROTOBUF_CONTENT_TYPE} bodies start with the 4 bytes "k8s\\0"`);
  }
  const env = readEnvelope(body);
  if (env.contentEncoding !== '') {
    throw unsupported(`the protobuf request body uses content encoding ${JSON.stringify(env.contentEncoding)}; only unencoded objects are supported`);
  }
  if (env.contentType !== '' && env.contentType !== PROTOBUF_CONTENT_TYPE) {
    throw unsupported(`the protobuf envelope holds an object of type ${JSON.stringify(env.contentType)}; expected ${PROTOBUF_CONTENT_TYPE}`);
  }
  if (env.kind === '') {
    throw errors.badRequest('the protobuf request body names no kind: its runtime.Unknown envelope needs typeMeta.kind (and apiVersion)');
  }
  const type = messageTypeFor(env.apiVersion, env.kind);
  if (type === undefined) {
    const known = decodableKinds.map((k) => (k.apiVersion === '*' ? k.kind : `${k.kind} (${k.apiVersion})`)).join(', ');
    throw unsupported(
      `the server cannot decode kind ${JSON.stringify(env.kind)} of apiVersion ${JSON.stringify(env.apiVersion)} from ${PROTOBUF_CONTENT_TYPE}; ` +
        `send it as application/json (protobuf is decoded for ${known})`,
    );
  }
  if (env.raw === undefined) {
    throw errors.badRequest(`the protobuf request body for kind ${JSON.stringify(env.kind)} has no object: the envelope's raw field is missing`);
  }
  const fields = decodeMessage(new ProtoReader(body, env.raw.start, env.raw.end), type, env.kind);
  const object: Record<string, unknown> = { ...(env.apiVersion ? { apiVersion: env.apiVersion } : {}), kind: env.kind, ...fields };
  return { apiVersion: env.apiVersion, kind: env.kind, object };
}
