/**
 * UnarySession: gRPC unary calls to one etcd member over one node:http2 session, without
 * @grpc/grpc-js's per-call machinery (interceptors, retrying call, filters, load-balancing and
 * resolving layers, a captured stack per call). etcd's KV and Maintenance calls are unary: one
 * HTTP/2 POST whose body is one length-prefixed message, answered by one message and a
 * `grpc-status` trailer. Under load those layers were the largest single cost of a create in
 * the server (src/store/etcd/README.md has the figures).
 *
 * Failures take grpc-js's `ServiceError` shape (`code`, `details`), with the same wording for
 * "never connected" (`No connection established. Last error: …`), so the client's failover
 * rules read both kinds of call alike. Watch streams stay on grpc-js.
 */
import * as http2 from 'node:http2';
import * as net from 'node:net';
import type { Duplex } from 'node:stream';
import * as tls from 'node:tls';
import * as grpc from '@grpc/grpc-js';

/** A unary method: its path and its message codec (the .proto's, from proto-loader). */
export interface UnaryMethod<Req, Res> {
  path: string;
  serialize: (request: Req) => Buffer;
  deserialize: (bytes: Buffer) => Res;
}

/** TLS material for an https:// member. */
export interface UnaryTls {
  ca?: Buffer | null;
  cert?: Buffer | null;
  key?: Buffer | null;
}

const { HTTP2_HEADER_STATUS, HTTP2_HEADER_CONTENT_TYPE } = http2.constants;

export class UnarySession {
  private session: http2.ClientHttp2Session | undefined;
  /** Sessions that finished their handshake: a call that fails on one may have been sent. */
  private readonly connected = new WeakSet<http2.ClientHttp2Session>();
  private closed = false;

  constructor(
    /** `http://host:port` or `https://host:port`. */
    private readonly origin: string,
    private readonly tls: UnaryTls | undefined,
  ) {}

  /** call sends `request` and resolves to the answer, or rejects with a ServiceError-shaped error. */
  call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, deadline: number): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      if (this.closed) return reject(serviceError(grpc.status.CANCELLED, 'the client is closed'));
      let message: Buffer;
      try {
        message = frame(method.serialize(request));
      } catch (err) {
        return reject(serviceError(grpc.status.INTERNAL, `cannot encode the request: ${(err as Error).message}`));
      }
      const timeoutMs = Math.max(1, deadline - Date.now());
      const session = this.open();
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request({
          ':method': 'POST',
          ':path': method.path,
          'content-type': 'application/grpc',
          te: 'trailers',
          'grpc-timeout': `${timeoutMs}m`,
        });
      } catch (err) {
        this.forget(session);
        session.destroy();
        return reject(unreachable(err as Error, this.connected.has(session)));
      }
      const chunks: Buffer[] = [];
      let status: http2.IncomingHttpHeaders | undefined;
      let done = false;
      const finish = (err: grpc.ServiceError | undefined, res?: Res) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(res as Res);
      };
      const timer = setTimeout(() => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        finish(serviceError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
      }, timeoutMs);
      stream.on('response', (headers) => {
        const http = Number(headers[HTTP2_HEADER_STATUS]);
        if (http !== 200) {
          finish(serviceError(http === 502 || http === 503 || http === 504 ? grpc.status.UNAVAILABLE : grpc.status.UNKNOWN, `etcd answered HTTP ${http}`));
          stream.close(http2.constants.NGHTTP2_CANCEL);
          return;
        }
        if (!String(headers[HTTP2_HEADER_CONTENT_TYPE] ?? '').startsWith('application/grpc')) {
          finish(serviceError(grpc.status.UNKNOWN, `etcd answered with content type ${String(headers[HTTP2_HEADER_CONTENT_TYPE])}`));
          stream.close(http2.constants.NGHTTP2_CANCEL);
          return;
        }
        // A trailers-only answer (an error) carries its status in the headers.
        if (headers['grpc-status'] !== undefined) status = headers;
      });
      stream.on('trailers', (trailers: http2.IncomingHttpHeaders) => {
        status = trailers;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (done) return;
        // No status: the stream was cut (its close says how).
        if (!status) return;
        const code: number = Number(status['grpc-status']);
        if (code !== (grpc.status.OK as number)) {
          const details = status['grpc-message'] === undefined ? '' : decodeMessage(String(status['grpc-message']));
          return finish(serviceError(Number.isInteger(code) ? code : grpc.status.UNKNOWN, details));
        }
        try {
          finish(undefined, method.deserialize(unframe(chunks)));
        } catch (err) {
          finish(serviceError(grpc.status.INTERNAL, `cannot decode etcd's answer: ${(err as Error).message}`));
        }
      });
      stream.on('error', (err: Error) => finish(unreachable(err, this.connected.has(session))));
      stream.on('close', () => {
        if (done) return;
        const code = stream.rstCode ?? http2.constants.NGHTTP2_NO_ERROR;
        // The connection ended under the call, or etcd refused the stream before reading it: unreachable.
        if (session.destroyed || session.closed || code === http2.constants.NGHTTP2_REFUSED_STREAM || code === http2.constants.NGHTTP2_NO_ERROR) {
          return finish(unreachable(new Error(`the stream closed without a status (HTTP/2 code ${code})`), this.connected.has(session)));
        }
        finish(serviceError(grpc.status.INTERNAL, `etcd reset the call (HTTP/2 code ${code})`));
      });
      stream.end(message);
    });
  }

  /** close ends the session; calls on their way fail. */
  close(): void {
    this.closed = true;
    this.session?.destroy();
    this.session = undefined;
  }

  /** open returns the session, connecting a new one when there is none or it ended. */
  private open(): http2.ClientHttp2Session {
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    // No session memory limit (as grpc-js): node degrades badly when it is reached.
    const session = http2.connect(this.origin, { createConnection: () => this.socket(), maxSessionMemory: Number.MAX_SAFE_INTEGER });
    this.session = session;
    session.on('connect', () => {
      this.connected.add(session);
    });
    // Errors reach the calls through their streams; the session's own only ends it.
    session.on('error', () => this.forget(session));
    session.on('close', () => this.forget(session));
    // etcd going away (a graceful stop): no new calls on it; those on their way finish.
    session.on('goaway', () => {
      this.forget(session);
      if (!session.closed) session.close();
    });
    // Idle sessions do not keep the process alive (the calls' timers do while they wait).
    session.unref();
    return session;
  }

  /**
   * socket opens the connection, without Nagle's delay (a small write waiting for the ACK of
   * the one before could wait for the peer's delayed ACK, tens of milliseconds).
   */
  private socket(): Duplex {
    const { hostname, port } = new URL(this.origin);
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    const socket = this.tls
      ? tls.connect({
          host,
          port: Number(port),
          ...(net.isIP(host) ? {} : { servername: host }),
          ALPNProtocols: ['h2'],
          ca: this.tls.ca ?? undefined,
          cert: this.tls.cert ?? undefined,
          key: this.tls.key ?? undefined,
        })
      : net.connect({ host, port: Number(port) });
    socket.setNoDelay(true);
    return socket;
  }

  /** forget stops using `session` for new calls. */
  private forget(session: http2.ClientHttp2Session): void {
    if (this.session === session) this.session = undefined;
  }
}

/** frame prefixes a message with gRPC's flag byte (not compressed) and its length. */
function frame(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/** unframe reads the one message of a unary answer. */
function unframe(chunks: Buffer[]): Buffer {
  const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  if (body.length < 5) throw new Error(`the answer has ${body.length} bytes, less than a message header`);
  if (body[0] !== 0) throw new Error('the answer is compressed, which was not asked for');
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) throw new Error(`the answer has ${body.length - 5} bytes of message where its header says ${length}`);
  return body.subarray(5);
}

/** decodeMessage undoes grpc-message's percent-encoding. */
function decodeMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** unreachable is the failure of the connection: before it was established, in grpc-js's words. */
function unreachable(err: Error, connected: boolean): grpc.ServiceError {
  return serviceError(grpc.status.UNAVAILABLE, connected ? `Connection dropped: ${err.message}` : `No connection established. Last error: ${err.message}`);
}

function serviceError(code: grpc.status, details: string): grpc.ServiceError {
  const err = new Error(`${code} ${grpc.status[code] ?? ''}: ${details}`) as grpc.ServiceError;
  err.code = code;
  err.details = details;
  err.metadata = new grpc.Metadata();
  return err;
}
