/**
 * Reading and decoding request bodies: a size limit, strict UTF-8, JSON or YAML by
 * content type, and 4xx errors that say what was wrong with the body.
 */
import type { IncomingMessage } from 'node:http';
import { parseDocument } from 'yaml';
import { ApiError, errors } from '../../machinery/errors.js';
import type { PatchType } from '../../client/types.js';
import { decodeProtobufObject, PROTOBUF_CONTENT_TYPE } from '../protobuf/index.js';

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (!Number.isNaN(declared) && declared > limit) {
    req.resume();
    throw errors.tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw errors.tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(buf: Buffer): string {
  try {
    return utf8.decode(buf);
  } catch {
    throw errors.badRequest('the request body is not valid UTF-8');
  }
}

export type BodyFormat = 'json' | 'yaml';

/** The media type without parameters, lower-cased. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export function patchTypeOf(contentType: string | undefined): PatchType {
  switch (mediaType(contentType)) {
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/json-patch+json':
      return 'json';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+json':
    case 'application/apply-patch+cbor':
      return 'apply';
    default:
      throw errors.unsupportedMediaType(contentType ?? '');
  }
}

/** Decodes a body as JSON (or YAML for YAML media types and apply patches). */
export function decodeBody(buf: Buffer, contentType: string | undefined, { allowEmpty = false } = {}): unknown {
  const mt = mediaType(contentType);
  if (mt === PROTOBUF_CONTENT_TYPE) {
    // kubectl's typed clients (kubectl create configmap/secret/namespace, ...) send protobuf.
    if (buf.length === 0) {
      if (allowEmpty) return undefined;
      throw errors.badRequest('the request body is empty; expected a protobuf object');
    }
    return decodeProtobufObject(buf).object;
  }
  const s = text(buf);
  if (s.trim() === '') {
    if (allowEmpty) return undefined;
    throw errors.badRequest('the request body is empty; expected a JSON or YAML object');
  }
  const yamlLike = mt === 'application/yaml' || mt === 'application/x-yaml' || mt === 'text/yaml' || mt === 'application/apply-patch+yaml';
  if (!yamlLike && mt !== '' && mt !== 'application/json' && !mt.endsWith('+json') && mt !== '*/*') {
    throw errors.unsupportedMediaType(contentType ?? '');
  }
  checkNesting(s, MAX_BODY_DEPTH);
  if (!yamlLike || s.trimStart().startsWith('{') || s.trimStart().startsWith('[')) {
    try {
      return parseJson(s);
    } catch (err) {
      if (!yamlLike) throw err;
    }
  }
  return parseYaml(s);
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw errors.badRequest(`the request body is not valid JSON: ${why}`);
  }
}

function parseYaml(s: string): unknown {
  const doc = parseDocument(s, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw errors.badRequest(`the request body is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw errors.badRequest(`the request body is not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** How deeply a request body may nest objects and lists. */
export const MAX_BODY_DEPTH = 100;

/**
 * Rejects text whose brackets (`{` and `[` outside double-quoted strings) nest deeper than
 * `max`, before any parser recurses into it.
 */
export function checkNesting(s: string, max: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) throw errors.badRequest(`the request body nests deeper than ${max} levels`);
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
}

/** Rejects JSON nested deeper than `max` levels (hostile bodies). */
export function checkDepth(value: unknown, max = 100): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) throw errors.badRequest(`the request body nests deeper than ${max} levels`);
    if (v && typeof v === 'object') {
      for (const child of Object.values(v as object)) if (child && typeof child === 'object') stack.push([child, d + 1]);
    }
  }
}
