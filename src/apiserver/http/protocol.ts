/**
 * Where a request that came over HTTP/2 differs from one over HTTP/1.1. Both reach the
 * dispatcher as node:http's IncomingMessage and ServerResponse; over HTTP/2 they are Node's
 * compatibility objects (Http2ServerRequest, Http2ServerResponse), which behave the same for
 * what the handlers use except: there is no `headersDistinct`, connection-specific headers
 * (Connection, Keep-Alive, Transfer-Encoding) are forbidden, and the bytes of one response go
 * to its own stream, not to the connection (`req.socket` stands for the connection shared by
 * every stream: its TLS peer certificate and address are right, its buffer is not this
 * response's).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, Http2ServerResponse, type ServerHttp2Stream } from 'node:http2';
import type { Duplex } from 'node:stream';

/** The HTTP/2 stream a response is written to, or undefined over HTTP/1.x. */
export function http2Stream(res: ServerResponse): ServerHttp2Stream | undefined {
  const r: unknown = res;
  return r instanceof Http2ServerResponse ? r.stream : undefined;
}

/**
 * The request's headers with every value of each (lower-case names), as node:http's
 * `req.headersDistinct` gives them; over HTTP/2 built from the raw header list (pseudo-headers
 * such as `:path` left out).
 */
export function headersDistinct(req: IncomingMessage): Record<string, string[]> {
  if (req.httpVersionMajor !== 2 && req.headersDistinct) return req.headersDistinct as Record<string, string[]>;
  const out: Record<string, string[]> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name.startsWith(':')) continue;
    (out[name] ??= []).push(raw[i + 1]);
  }
  return out;
}

/**
 * Whether the request carries any `Impersonate-*` header (any case), read from the raw header
 * list without building `headersDistinct`: the question every request asks, and almost every
 * one answers no.
 */
export function asksImpersonation(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    if (name.length >= 12 && (name.charCodeAt(0) | 0x20) === 0x69 && name.slice(0, 12).toLowerCase() === 'impersonate-') return true;
  }
  return false;
}

/**
 * The headers that ask the client to close the connection after this response: `Connection:
 * close` over HTTP/1.x, nothing over HTTP/2 (the header is forbidden there; one stream's trouble
 * is no reason to end the others).
 */
export function closeConnectionHeaders(req: IncomingMessage): Record<string, string> {
  return req.httpVersionMajor === 2 ? {} : { Connection: 'close' };
}

/** The headers that make a response of unknown length stream: chunked over HTTP/1.1; HTTP/2 frames need none. */
export function streamingHeaders(req: IncomingMessage): Record<string, string> {
  return req.httpVersionMajor === 2 ? {} : { 'Transfer-Encoding': 'chunked' };
}

/** What holds the bytes of one response until the client takes them. */
export interface ResponseTransport {
  /** The connection's socket over HTTP/1.x, the response's own stream over HTTP/2. */
  readonly bytes: Duplex;
  /** Drops the response: over HTTP/1.x its connection is destroyed, over HTTP/2 only its stream is reset (CANCEL), the connection's other streams go on. */
  cut(): void;
}

/** The response's transport, or undefined once it is gone. */
export function responseTransport(res: ServerResponse): ResponseTransport | undefined {
  const stream = http2Stream(res);
  if (stream) {
    return {
      bytes: stream,
      cut: () => {
        if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
      },
    };
  }
  const socket = res.socket;
  return socket ? { bytes: socket, cut: () => socket.destroy() } : undefined;
}

/** True while the response holds more unsent bytes than its high-water mark (wait for 'drain'). */
export function needsDrain(res: ServerResponse): boolean {
  const stream = http2Stream(res);
  return stream ? stream.writableNeedDrain : res.writableNeedDrain;
}

/**
 * Ends, once its response went out, the connection a response came over: over HTTP/1.x the
 * socket is ended; over HTTP/2 nothing (the connection carries other streams: the listener sends
 * its GOAWAY when the server stops).
 */
export function endConnectionAfter(res: ServerResponse): void {
  if (http2Stream(res)) return;
  const socket = res.socket;
  if (socket && !socket.destroyed) socket.end();
}
