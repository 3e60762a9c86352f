/**
 * Reading and decoding request bodies: a size limit, strict UTF-8, JSON or YAML by
 * content type, a nesting limit checked before any parser recurses, numbers that must be
 * finite, and 4xx errors that say what was wrong with the body.
 */
import type { IncomingMessage } from 'node:http';
import { Lexer, parseDocument } from 'yaml';
import { ApiError, errors } from '../../machinery/errors.js';
import type { PatchType } from '../../client/types.js';
import { decodeProtobufObject, PROTOBUF_CONTENT_TYPE } from '../protobuf/index.js';

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * How much of a refused (413) body is read and thrown away so that the client, still sending
 * it, gets to read the 413: a connection closed with unread bytes is reset by the kernel, and
 * the reset makes the client drop the answer it has not read yet. Past this the connection is
 * closed anyway (nobody makes the server read gigabytes).
 */
export const MAX_DISCARDED_BODY_BYTES = 64 * 1024 * 1024;

/** Reads the rest of a refused body and drops it; closes the connection past MAX_DISCARDED_BODY_BYTES. */
function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BODY_BYTES) req.socket.destroy();
  });
  req.resume();
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (!Number.isNaN(declared) && declared > limit) {
    discardRest(req);
    return Promise.reject(errors.tooLarge(limit));
  }
  // Events, not `for await`: leaving a for-await loop early destroys the request and with it
  // the connection the 413 has to go out on.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      chunks.length = 0;
      discardRest(req);
      reject(errors.tooLarge(limit));
    };
    const onEnd = (): void => {
      stop();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    const onClose = (): void => {
      stop();
      reject(new Error('the client closed the connection before it sent the whole request body'));
    };
    const onError = (err: Error): void => {
      stop();
      reject(err);
    };
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onError);
  });
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
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
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
    // Messages nest only as deep as their types, but FieldsV1 carries JSON of any depth.
    const object = decodeProtobufObject(buf).object;
    checkDecoded(object, MAX_BODY_DEPTH);
    return object;
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
  // Limit nesting before parsing: the YAML composer recurses once per level, and a deep
  // enough document ends the process (a stack overflow can surface as a fatal out-of-memory).
  if (yamlLike) checkYamlNesting(s, MAX_BODY_DEPTH);
  else checkNesting(s, MAX_BODY_DEPTH);
  let value: unknown;
  if (!yamlLike || s.trimStart().startsWith('{') || s.trimStart().startsWith('[')) {
    try {
      value = parseJson(s);
    } catch (err) {
      if (!yamlLike) throw err;
    }
  }
  if (value === undefined) value = parseYaml(s);
  checkDecoded(value, MAX_BODY_DEPTH);
  return value;
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
    throw errors.badRequest(`the request body is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
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
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) throw errors.badRequest(`the request body nests deeper than ${max} levels`);
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
}

/**
 * Rejects YAML text whose collections nest deeper than `max`, from the lexer's tokens, before
 * the document is parsed. Block collections are counted by their indentation: a collection
 * opens at the column of its first `-`, `?` or key, and stays open until a line starts left
 * of that column; `- - - x` opens three. Flow collections count each `[` and `{`, and one
 * more for a sequence entry that is a single-pair mapping (`[a: b]`). The count
 * errs towards too many (it never counts less than the parser nests), and it stops at the
 * first level over the limit, so a hostile body costs little.
 */
export function checkYamlNesting(s: string, max: number): void {
  const tooDeep = () => errors.badRequest(`the request body nests deeper than ${max} levels`);
  // Open block collections, innermost last: their columns, and whether each is a sequence.
  const cols: number[] = [];
  const seq: boolean[] = [];
  // Open flow collections, innermost last: 1 for a sequence, 0 for a mapping, 2 for a
  // sequence whose current entry is a single-pair mapping (`[a: b]` nests two levels).
  const flows: number[] = [];
  let pairs = 0;
  let scalarNext = false;
  let blockScalar = false;
  let col = 0;
  let lineStart = true;
  /** The column where the node being read on this line began (a possible implicit key), or -1. */
  let nodeCol = -1;
  const open = (c: number, isSeq: boolean) => {
    cols.push(c);
    seq.push(isSeq);
    if (cols.length + flows.length + pairs > max) throw tooDeep();
  };
  const openFlow = (isSeq: boolean) => {
    flows.push(isSeq ? 1 : 0);
    if (cols.length + flows.length + pairs > max) throw tooDeep();
  };
  const openMap = (c: number) => {
    const n = cols.length;
    // A sequence written at its parent key's indentation ends at the parent's next key.
    if (n > 0 && cols[n - 1] === c && seq[n - 1] && n > 1 && cols[n - 2] === c && !seq[n - 2]) {
      cols.pop();
      seq.pop();
      return;
    }
    if (n > 0 && cols[n - 1] === c && !seq[n - 1]) return;
    open(c, false);
  };
  for (const tok of new Lexer().lex(s)) {
    // An empty scalar (a block scalar with no content) sits at no column.
    if (tok.length === 0) {
      scalarNext = false;
      blockScalar = false;
      continue;
    }
    const c0 = tok.charCodeAt(0);
    // Zero-width markers: document start, scalar, flow error end, byte order mark.
    if (tok.length === 1 && (c0 === 0x02 || c0 === 0x1f || c0 === 0x18 || c0 === 0xfeff)) {
      scalarNext = c0 === 0x1f;
      if (c0 === 0x18) {
        // The lexer ended unclosed flow collections (a line indented too little): back to block context.
        flows.length = 0;
        pairs = 0;
      }
      if (c0 === 0x02) {
        cols.length = 0;
        seq.length = 0;
        flows.length = 0;
        pairs = 0;
      }
      continue;
    }
    // (A scalar's text may begin with a newline or spaces: a block scalar's content does.)
    if (!scalarNext && (c0 === 0x0a || c0 === 0x0d)) {
      col = 0;
      lineStart = true;
      nodeCol = -1;
      continue;
    }
    if (!scalarNext && (c0 === 0x20 || c0 === 0x09 || c0 === 0x23) /* spaces, # comment */) {
      col += tok.length;
      continue;
    }
    // After the scalar marker comes the scalar's text, which may read `-`, `:` or `...`.
    const indicator = !scalarNext;
    scalarNext = false;
    if (!indicator) {
      // A block scalar's text starts on the line after its `|` or `>` header: no node starts there.
      if (blockScalar) blockScalar = false;
      else if (flows.length === 0) {
        if (lineStart) {
          while (cols.length > 0 && cols[cols.length - 1] > col) {
            cols.pop();
            seq.pop();
          }
          lineStart = false;
        }
        if (nodeCol < 0) nodeCol = col;
      }
    } else if (flows.length > 0) {
      const top = flows.length - 1;
      if (tok === '[' || tok === '{') openFlow(tok === '[');
      else if (tok === ']' || tok === '}') {
        if (flows.pop() === 2) pairs--;
      } else if (tok === ',') {
        if (flows[top] === 2) {
          flows[top] = 1;
          pairs--;
        }
      } else if ((tok === ':' || tok === '?') && flows[top] === 1) {
        flows[top] = 2;
        if (cols.length + flows.length + ++pairs > max) throw tooDeep();
      }
    } else {
      blockScalar = false;
      if (lineStart) {
        while (cols.length > 0 && cols[cols.length - 1] > col) {
          cols.pop();
          seq.pop();
        }
        lineStart = false;
      }
      if (tok === '-') {
        const n = cols.length;
        if (!(n > 0 && cols[n - 1] === col && seq[n - 1])) open(col, true);
        nodeCol = -1;
      } else if (tok === '?') {
        openMap(col);
        nodeCol = -1;
      } else if (tok === ':') {
        if (nodeCol >= 0) openMap(nodeCol);
        else {
          // A value with no key before it on its line (`? k` then `: v`, or `- : v`): the
          // parser may nest one more mapping there, so count one level more.
          openMap(col);
          open(col + 1, false);
        }
        nodeCol = -1;
      } else if ((tok === '---' || tok === '...') && col === 0) {
        cols.length = 0;
        seq.length = 0;
      } else {
        if (nodeCol < 0) nodeCol = col;
        if (tok === '[' || tok === '{') openFlow(tok === '[');
        else if (c0 === 0x7c || c0 === 0x3e) blockScalar = true; // `|` or `>` header
      }
    }
    const nl = tok.lastIndexOf('\n');
    if (nl >= 0) {
      col = tok.length - nl - 1;
      if (nl === tok.length - 1) {
        lineStart = true;
        nodeCol = -1;
      }
    } else col += tok.length;
  }
}

/**
 * Checks a decoded body: no deeper than `max` levels (aliases can build depth the text does
 * not show), and every number finite — a JSON or YAML number too large for a double
 * (`1e400`, `.inf`, `.nan`) would be stored as `null`.
 */
export function checkDecoded(value: unknown, max: number): void {
  interface Entry {
    v: unknown;
    depth: number;
    parent?: Entry;
    key?: string | number;
  }
  const stack: Entry[] = [{ v: value, depth: 0 }];
  while (stack.length) {
    const e = stack.pop()!;
    const v = e.v;
    if (typeof v === 'number' && !Number.isFinite(v)) {
      const field = fieldPath(e);
      const message = `${field || 'the request body'}: Invalid value: ${String(v)}: expected a finite number that fits a 64-bit floating point value`;
      throw new ApiError(422, 'Invalid', `the request body is invalid: ${message}`, {
        causes: [{ reason: 'FieldValueInvalid', message, field: field || undefined }],
      });
    }
    if (v === null || typeof v !== 'object') continue;
    if (e.depth >= max) throw errors.badRequest(`the request body nests deeper than ${max} levels`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], depth: e.depth + 1, parent: e, key: i });
    } else {
      for (const [k, child] of Object.entries(v)) stack.push({ v: child, depth: e.depth + 1, parent: e, key: k });
    }
  }

  function fieldPath(e: Entry): string {
    const parts: string[] = [];
    for (let x: Entry | undefined = e; x?.parent; x = x.parent) {
      parts.push(typeof x.key === 'number' ? `[${x.key}]` : /^[A-Za-z_$][\w$-]*$/.test(x.key!) ? `.${x.key}` : `[${JSON.stringify(x.key)}]`);
    }
    return parts.reverse().join('').replace(/^\./, '');
  }
}
