/**
 * Test support (never shipped): the HTTP plumbing the fakes of Google's REST APIs share — a
 * server on a free 127.0.0.1 port, JSON bodies, Google's error body
 * (`{"error": {"code", "message", "status", "errors": [{"reason"}]}}`), injected faults
 * ("the next request matching X answers 429 RESOURCE_EXHAUSTED") and a log of the requests
 * (method, path, body) so tests can say what was asked and that no request carried a token.
 * A throttling fault may say when to come back as Google does: a `Retry-After` header and a
 * `google.rpc.RetryInfo` detail in the error body.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A request as the fake saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  authorization?: string;
}

/** A fault to answer instead of the real handling. */
export interface Fault {
  method: string;
  /** Matched against the path (without the query). */
  path: RegExp;
  status: number;
  grpcStatus: string;
  message: string;
  reason?: string;
  /** How many matching requests answer the fault (default 1). */
  times?: number;
  /** When to come back: sent as `Retry-After: <seconds>` and as a google.rpc.RetryInfo detail (`retryDelay: "<seconds>s"`). */
  retryAfterSeconds?: number;
}

/** A Reply is what a route answers. */
export interface Reply {
  status: number;
  body?: unknown;
  /** A raw body (downloads), sent as it is. */
  raw?: Buffer;
  headers?: Record<string, string>;
}

export const json = (body: unknown, status = 200): Reply => ({ status, body });

/** googleError is Google's error body for `status` (HTTP) and `grpcStatus` (e.g. ALREADY_EXISTS). */
export const googleError = (status: number, grpcStatus: string, message: string, reason?: string, retryAfterSeconds?: number): Reply => ({
  status,
  body: {
    error: {
      code: status,
      message,
      status: grpcStatus,
      errors: [{ message, domain: 'global', reason: reason ?? grpcStatus.toLowerCase() }],
      ...(retryAfterSeconds !== undefined ? { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` }] } : {}),
    },
  },
  ...(retryAfterSeconds !== undefined ? { headers: { 'retry-after': String(retryAfterSeconds) } } : {}),
});

export type Route = (req: SeenRequest) => Reply | undefined;

/** A FakeHttpApi is a running fake. */
export class FakeHttpApi {
  readonly requests: SeenRequest[] = [];
  private readonly faults: Fault[] = [];
  private server?: Server;
  port = 0;

  constructor(private readonly route: Route) {}

  /** endpoint is how a gcp Provider's Secret names the fake: `http://127.0.0.1:<port>`. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** fail makes the next matching request(s) answer an error instead. */
  fail(fault: Fault): void {
    this.faults.push({ ...fault, times: fault.times ?? 1 });
  }

  /** clearFaults drops every fault not yet answered. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      path: decodeURIComponent(url.pathname),
      query: url.searchParams,
      body: Buffer.concat(chunks).toString('utf8'),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    };
    this.requests.push(seen);
    let reply: Reply | undefined;
    const fault = this.faults.find((f) => f.method === seen.method && f.path.test(seen.path) && (f.times ?? 0) > 0);
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      reply = googleError(fault.status, fault.grpcStatus, fault.message, fault.reason, fault.retryAfterSeconds);
    } else {
      try {
        reply = this.route(seen) ?? googleError(404, 'NOT_FOUND', `the fake has no route for ${seen.method} ${seen.path}`);
      } catch (err) {
        reply = googleError(400, 'INVALID_ARGUMENT', `Invalid request: ${(err as Error).message}`, 'invalid');
      }
    }
    if (reply.raw) {
      res.writeHead(reply.status, { 'content-type': 'application/octet-stream', ...reply.headers });
      res.end(reply.raw);
      return;
    }
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  }
}

/** parsed reads a JSON request body (an empty one as {}). */
export function parsed(req: SeenRequest): Record<string, any> {
  return req.body === '' ? {} : (JSON.parse(req.body) as Record<string, any>);
}

/** The regions the fakes know (a few of Google's): any other is refused as Google refuses an unknown one. */
export const FAKE_REGIONS = new Set(['us-central1', 'us-east1', 'europe-west1', 'europe-west4', 'asia-east1']);
