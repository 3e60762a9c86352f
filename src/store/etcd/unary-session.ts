/**
 * UnarySession: gRPC unary calls to one etcd member over one HTTP/2 connection of our own
 * (`h2/`), without @grpc/grpc-js's per-call machinery (interceptors, retrying call, filters,
 * load-balancing and resolving layers, a captured stack per call) nor node:http2's (an
 * AsyncResource bound per request, header objects validated and copied, a stream object with
 * its events). etcd's KV and Maintenance calls are unary: one HTTP/2 POST whose body is one
 * length-prefixed message, answered by one message and a `grpc-status` trailer. Under load
 * those layers were the largest single cost of a create in the server (src/store/etcd/README.md
 * has the figures).
 *
 * Failures take grpc-js's `ServiceError` shape (`code`, `details`), with the same wording for
 * "never connected" (`No connection established. Last error: …`), so the client's failover
 * rules read both kinds of call alike. Watch streams stay on grpc-js.
 */
import * as grpc from '@grpc/grpc-js';
import { H2Connection, type StreamHandler } from './h2/connection.js';
import { encodeHeaders, type HeaderField } from './h2/hpack.js';
import { ErrorCode } from './h2/frames.js';

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

export class UnarySession {
  private connection: H2Connection | undefined;
  private closed = false;
  /** Each method's request headers but the timeout, HPACK-encoded once. */
  private readonly headerBlocks = new Map<string, Buffer>();
  private readonly authority: string;

  constructor(
    /** `http://host:port` or `https://host:port`. */
    private readonly origin: string,
    private readonly tls: UnaryTls | undefined,
  ) {
    this.authority = new URL(origin).host;
  }

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
      const connection = this.open();
      const chunks: Buffer[] = [];
      let status: HeaderField[] | undefined;
      let done = false;
      const finish = (err: grpc.ServiceError | undefined, res?: Res) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(res as Res);
      };
      const handler: StreamHandler = {
        headers: (fields, endStream) => {
          if (status === undefined && !endStream && header(fields, ':status') !== undefined) {
            const http = Number(header(fields, ':status'));
            if (http !== 200) {
              finish(serviceError(http === 502 || http === 503 || http === 504 ? grpc.status.UNAVAILABLE : grpc.status.UNKNOWN, `etcd answered HTTP ${http}`));
              handle.cancel();
              return;
            }
            const contentType = header(fields, 'content-type');
            if (!(contentType ?? '').startsWith('application/grpc')) {
              finish(serviceError(grpc.status.UNKNOWN, `etcd answered with content type ${String(contentType)}`));
              handle.cancel();
              return;
            }
          }
          // The trailers, or a trailers-only answer (an error) with its status in the headers.
          if (header(fields, 'grpc-status') !== undefined) status = fields;
        },
        data: (chunk) => chunks.push(chunk),
        end: () => {
          if (done) return;
          // No status: the stream ended without one.
          if (!status) return finish(unreachable(new Error('the stream closed without a status (HTTP/2 code 0)'), true));
          const code = Number(header(status, 'grpc-status'));
          if (code !== (grpc.status.OK as number)) {
            const message = header(status, 'grpc-message');
            const details = message === undefined ? '' : decodeMessage(message);
            return finish(serviceError(Number.isInteger(code) ? code : grpc.status.UNKNOWN, details));
          }
          try {
            finish(undefined, method.deserialize(unframe(chunks)));
          } catch (err) {
            finish(serviceError(grpc.status.INTERNAL, `cannot decode etcd's answer: ${(err as Error).message}`));
          }
        },
        reset: (code) => {
          // etcd refused the stream before reading it (or went away first): unreachable.
          if (code === ErrorCode.refusedStream || code === ErrorCode.noError) {
            return finish(unreachable(new Error(`the stream closed without a status (HTTP/2 code ${code})`), true));
          }
          finish(serviceError(grpc.status.INTERNAL, `etcd reset the call (HTTP/2 code ${code})`));
        },
        failed: (err, connected) => finish(unreachable(err, connected)),
      };
      const handle = connection.request(this.headerBlock(method.path, timeoutMs), message, handler);
      const timer = setTimeout(() => {
        handle.cancel();
        finish(serviceError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
      }, timeoutMs);
    });
  }

  /**
   * flush sends the calls made so far in this turn of the event loop now: by default a call's
   * bytes go out at the end of the turn, with the other calls made in it.
   */
  flush(): void {
    this.connection?.flush();
  }

  /** close ends the connection; calls on their way fail. */
  close(): void {
    this.closed = true;
    this.connection?.close();
    this.connection = undefined;
  }

  /** open returns the connection, making a new one when there is none or it can take no more calls. */
  private open(): H2Connection {
    const current = this.connection;
    if (current?.usable) return current;
    const connection: H2Connection = new H2Connection(this.origin, this.tls, () => {
      if (this.connection === connection) this.connection = undefined;
    });
    this.connection = connection;
    return connection;
  }

  /** headerBlock is a call's request headers: the method's, encoded once, and its timeout. */
  private headerBlock(path: string, timeoutMs: number): Buffer {
    let fixed = this.headerBlocks.get(path);
    if (!fixed) {
      fixed = encodeHeaders([
        [':method', 'POST'],
        [':scheme', this.tls ? 'https' : 'http'],
        [':path', path],
        [':authority', this.authority],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
      ]);
      this.headerBlocks.set(path, fixed);
    }
    return Buffer.concat([fixed, encodeHeaders([['grpc-timeout', `${timeoutMs}m`]])]);
  }
}

/** header finds a field's value by its (lower-case) name. */
function header(fields: HeaderField[], name: string): string | undefined {
  for (const [n, v] of fields) if (n === name) return v;
  return undefined;
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
