/**
 * Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`)
 * into the JSON objects the rest of the server works with.
 */
export { decodeProtobufObject, hasProtobufMagic, PROTOBUF_CONTENT_TYPE, PROTOBUF_MAGIC, type DecodedProtobufObject } from './decode-object.js';
export { decodableKinds, messageTypeFor, type DecodableKind } from './kinds.js';
export { ProtoReader, WireType, type Tag } from './wire-reader.js';
export { ProtoWriter } from './wire-writer.js';
