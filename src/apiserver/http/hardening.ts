/**
 * Connection-level limits of the HTTPS listener — how long a client may take to send its
 * request, how long an idle keep-alive connection lives, how big the headers may be — and
 * Status answers for what Node's HTTP/1.1 parser rejects before the dispatcher sees a request
 * (HTTP/2's own limits are in listener.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { ApiError, type StatusReason } from '../../machinery/errors.js';

export const SERVER_TIMEOUTS = {
  /** The request line and headers must arrive within this (slow-loris guard). */
  headersMs: 30_000,
  /** The whole request, body included, must arrive within this. */
  receiveMs: 60_000,
  /** An idle keep-alive connection (an HTTP/2 connection without open streams) is closed after this. */
  keepAliveMs: 65_000,
  /** The request line and headers together may not exceed this. */
  maxHeaderBytes: 32 * 1024,
} as const;

const PHRASES: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The raw HTTP response carrying a Status for a request rejected below the dispatcher. */
export function rawStatusResponse(code: number, reason: StatusReason, message: string): string {
  const body = JSON.stringify(new ApiError(code, reason, message).status);
  return `HTTP/1.1 ${code} ${PHRASES[code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-cache, private\r\nConnection: close\r\n\r\n${body}`;
}

/** What to answer for a parser error (code, reason, message), or undefined to just close. */
export function clientErrorAnswer(err: NodeJS.ErrnoException): [number, StatusReason, string] | undefined {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'BadRequest', `the request line and headers are too large: the limit is ${SERVER_TIMEOUTS.maxHeaderBytes} bytes`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Timeout', `the request was not received within ${SERVER_TIMEOUTS.receiveMs / 1000} s`];
    case 'HPE_INVALID_METHOD':
      return [405, 'MethodNotAllowed', 'the request method is not supported: expected GET, HEAD, POST, PUT, PATCH or DELETE'];
    default:
      return [400, 'BadRequest', `the request is not valid HTTP/1.1 (${err.code ?? err.message})`];
  }
}

/**
 * Answers parser errors, CONNECT and protocol upgrades with a Status instead of dropping the
 * connection. A TLS handshake that failed (reported as a client error too) is only closed.
 */
export function installClientErrorHandler(server: Http2SecureServer): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const answer = clientErrorAnswer(err);
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!answer || !socket.writable || !speaksHttp1(socket) || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(rawStatusResponse(...answer));
  });
  const refuse = (what: string) => (req: IncomingMessage, socketOrResponse: Duplex | ServerResponse) => {
    if (req.httpVersionMajor === 2) {
      // An HTTP/2 CONNECT is one stream, answered on it; the connection goes on.
      const res = socketOrResponse as ServerResponse;
      const body = JSON.stringify(new ApiError(405, 'MethodNotAllowed', `${what} is not supported by this server`).status);
      res.writeHead(405, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache, private' });
      res.end(body);
      return;
    }
    const socket = socketOrResponse as Duplex;
    socket.on('error', () => socket.destroy());
    socket.end(rawStatusResponse(405, 'MethodNotAllowed', `${what} is not supported by this server`));
  };
  server.on('connect', refuse('CONNECT'));
  // Only HTTP/1.1 upgrades (HTTP/2 has none: its extended CONNECT is not enabled).
  server.on('upgrade', refuse('upgrading the connection to another protocol'));
}

/**
 * True for a TLS connection that completed its handshake and speaks HTTP/1.x (ALPN `http/1.1`,
 * or no ALPN at all): only there may an HTTP/1.1 answer be written. False during the handshake
 * (`alpnProtocol` is still null) and for HTTP/2.
 */
function speaksHttp1(socket: Duplex): boolean {
  const alpn = (socket as Partial<TLSSocket>).alpnProtocol;
  return alpn === false || alpn === 'http/1.1';
}
