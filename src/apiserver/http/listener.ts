/**
 * The API server's listener: one TLS port serving HTTP/2 and HTTP/1.1, the client choosing by
 * ALPN (`h2`; `http/1.1` or no ALPN at all is HTTP/1.1). Both reach the same request handler
 * through Node's HTTP/2 compatibility API (protocol.ts says where the two differ).
 *
 * HTTP/2 carries many requests on one connection: a browser, which opens at most 6 HTTP/1.1
 * connections to a server, can hold the dashboard's watches and still make other requests.
 * What a connection may cost is bounded (HTTP2_LIMITS); a session's errors (a client sending
 * garbage, a connection reset) are logged and end that connection only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, createSecureServer, type Http2SecureServer, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { TLSSocket, TlsOptions } from 'node:tls';
import type { Logger } from 'pino';
import { installClientErrorHandler, SERVER_TIMEOUTS } from './hardening.js';

export const HTTP2_LIMITS = {
  /** Streams (requests, watches) one connection may have open at once, as Go's HTTP/2 server and kube-apiserver allow by default. */
  maxConcurrentStreams: 250,
  /** The request's header fields together (HPACK-decoded, 32 bytes counted per field): as HTTP/1.1's limit. */
  maxHeaderListBytes: SERVER_TIMEOUTS.maxHeaderBytes,
  /** Memory one connection may hold in Node's HTTP/2 layer (frames, headers, queued output), in MB. */
  maxSessionMemoryMb: 32,
} as const;

export interface ApiListener {
  readonly server: Http2SecureServer;
  listen(port: number, host: string): Promise<void>;
  /**
   * Stops accepting connections: every HTTP/2 connection gets a GOAWAY (its open streams go
   * on; it closes once they end) and idle HTTP/1.1 connections close. Resolves once every
   * connection is gone (see destroyAll).
   */
  close(): Promise<void>;
  /** Closes the HTTP/1.1 connections that carry no request and sends GOAWAY to every HTTP/2 connection. */
  closeIdle(): void;
  /** Cuts every connection left, whatever it was doing. */
  destroyAll(): void;
  /** Open connections by protocol (diagnostics, tests). */
  connections(): { http2: number; http1: number };
}

export interface ApiListenerOptions {
  tls: TlsOptions;
  /** Serves every request, whichever protocol it came over. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  logger: Logger;
}

/**
 * What a Http2SecureServer with `allowHTTP1` has of node:http's Server (Node sets or reads them
 * for its HTTP/1.1 connections; @types/node does not declare them).
 */
interface Http1Side {
  maxHeaderSize?: number;
  requireHostHeader?: boolean;
  keepAliveTimeout?: number;
  headersTimeout?: number;
  requestTimeout?: number;
  closeIdleConnections(): void;
}

/** createApiListener makes the HTTP/2 and HTTP/1.1 listener (not yet listening). */
export function createApiListener(o: ApiListenerOptions): ApiListener {
  const server = createSecureServer({
    ...o.tls,
    minVersion: 'TLSv1.2',
    allowHTTP1: true,
    // TCP keep-alive probes on every connection (as node:https's keepAlive).
    keepAlive: true,
    // No Nagle: a watch event (or any small write) goes out at once instead of waiting up to
    // the client's delayed ACK (~40 ms on Linux) behind the previous one. node:http's Server
    // does this by default; net.Server (under tls and http2) does not.
    noDelay: true,
    maxSessionMemory: HTTP2_LIMITS.maxSessionMemoryMb,
    settings: {
      maxConcurrentStreams: HTTP2_LIMITS.maxConcurrentStreams,
      maxHeaderListSize: HTTP2_LIMITS.maxHeaderListBytes,
    },
  });
  // The HTTP/1.1 side reads these as node:http's Server would (createSecureServer takes no
  // such options): receiving a request is bounded, idle keep-alive connections closed.
  const http1 = server as Http2SecureServer & Http1Side;
  http1.maxHeaderSize = SERVER_TIMEOUTS.maxHeaderBytes;
  http1.requireHostHeader = true;
  http1.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveMs;
  http1.headersTimeout = SERVER_TIMEOUTS.headersMs;
  http1.requestTimeout = SERVER_TIMEOUTS.receiveMs;
  // Requests of both protocols; typed as node:http's, which the compatibility objects mimic.
  server.on('request', o.handler as unknown as (req: unknown, res: unknown) => void);
  installClientErrorHandler(server);

  const sessions = new Set<ServerHttp2Session>();
  const http1Sockets = new Set<TLSSocket>();
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') return;
    http1Sockets.add(socket);
    socket.once('close', () => http1Sockets.delete(socket));
  });
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    followStreams(session);
  });
  // A session's error ends that session (Node destroys it); the server goes on.
  server.on('sessionError', (err: NodeJS.ErrnoException, session: ServerHttp2Session) => {
    const quiet = err.code === 'ECONNRESET' || err.code === 'EPIPE';
    o.logger[quiet ? 'debug' : 'warn']({ err, remoteAddress: session.socket?.remoteAddress }, 'an HTTP/2 connection failed; it is closed');
  });

  return {
    server,
    listen: (port, host) =>
      new Promise<void>((resolveListen, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          server.on('error', (err) => o.logger.error({ err }, 'the API listener failed'));
          resolveListen();
        });
      }),
    close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sessions) s.close();
      return closed;
    },
    closeIdle() {
      http1.closeIdleConnections();
      for (const s of sessions) s.close();
    },
    destroyAll() {
      for (const s of sessions) s.destroy();
      for (const socket of http1Sockets) socket.destroy();
    },
    connections: () => ({ http2: sessions.size, http1: http1Sockets.size }),
  };
}

/**
 * followStreams bounds what one HTTP/2 connection may hold without doing anything: a request
 * not fully received in SERVER_TIMEOUTS.receiveMs has its stream reset (as HTTP/1.1's request
 * timeout), and a connection without open streams for SERVER_TIMEOUTS.keepAliveMs is closed
 * (GOAWAY), as an idle HTTP/1.1 keep-alive connection is.
 */
function followStreams(session: ServerHttp2Session): void {
  let open = 0;
  let idle: NodeJS.Timeout | undefined;
  const armIdle = () => {
    idle = setTimeout(() => session.close(), SERVER_TIMEOUTS.keepAliveMs);
    idle.unref();
  };
  armIdle();
  session.once('close', () => clearTimeout(idle));
  session.on('stream', (stream: ServerHttp2Stream) => {
    open++;
    clearTimeout(idle);
    const receiving = setTimeout(() => {
      if (!stream.destroyed && !stream.state.remoteClose) stream.close(constants.NGHTTP2_CANCEL);
    }, SERVER_TIMEOUTS.receiveMs);
    receiving.unref();
    stream.once('close', () => {
      clearTimeout(receiving);
      if (--open === 0 && !session.closed && !session.destroyed) armIdle();
    });
  });
}
