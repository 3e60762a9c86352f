/**
 * A deliberately thin HTTPS client for driving the API server under load: one keep-alive
 * Agent with a fixed socket pool for ordinary requests, and one socket per watch stream.
 * It does no retries and no parsing unless asked, so the client's own cost stays small.
 */
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { LineSplitter } from './line-splitter.js';

/** An Endpoint says where the server is and how to trust and authenticate to it. */
export interface Endpoint {
  host: string;
  port: number;
  /** PEM CA certificate that signed the serving certificate. */
  ca: string;
  /** Bearer token. */
  token: string;
}

/** A RawResponse is a status code and the whole body. */
export interface RawResponse {
  status: number;
  body: Buffer;
  /** performance.now() when the response headers arrived. */
  headersAt: number;
}

/** A WatchStream is an open watch; close() ends it. */
export interface WatchStream {
  close(): void;
  /** Resolves when the server ends the stream or it is closed. */
  readonly ended: Promise<void>;
}

export interface BenchClientOptions {
  /** Sockets in the keep-alive pool (and so the most requests in flight). Default 16. */
  maxSockets?: number;
  /** A request that gets no answer for this long fails. Default 60 s. */
  timeoutMs?: number;
}

/** A BenchClient sends requests over a keep-alive pool and opens watch streams. */
export class BenchClient {
  readonly agent: https.Agent;
  private readonly watchAgent: https.Agent;
  private readonly auth: string;
  private readonly timeoutMs: number;
  private readonly watches = new Set<WatchStream>();

  constructor(
    private readonly endpoint: Endpoint,
    options: BenchClientOptions = {},
  ) {
    const maxSockets = options.maxSockets ?? 16;
    this.agent = new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, ca: endpoint.ca });
    this.watchAgent = new https.Agent({ keepAlive: false, maxSockets: Infinity, ca: endpoint.ca });
    this.auth = `Bearer ${endpoint.token}`;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** request sends one request over the pool and resolves with the status and the raw body. Network errors reject. */
  request(method: string, path: string, body?: string): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { authorization: this.auth, accept: 'application/json' };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = https.request({ agent: this.agent, host: this.endpoint.host, port: this.endpoint.port, method, path, headers }, (res) => {
        const headersAt = performance.now();
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), headersAt }));
        res.on('error', reject);
      });
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** json sends a request and parses the answer; it rejects unless the status is one of `expect`. */
  async json<T>(method: string, path: string, body?: unknown, expect: number[] = [200, 201]): Promise<{ status: number; value: T }> {
    const res = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (!expect.includes(res.status)) throw new Error(`${method} ${path}: got HTTP ${res.status}, expected ${expect.join(' or ')}: ${describeBody(res.body)}`);
    return { status: res.status, value: JSON.parse(res.body.toString('utf8')) as T };
  }

  /**
   * watch opens a watch stream on its own socket and calls onLine for every line (one
   * event each). It resolves once the server answered 200, and rejects otherwise.
   */
  watch(path: string, onLine: (line: string) => void): Promise<WatchStream> {
    return new Promise((resolve, reject) => {
      const req = https.request({
        agent: this.watchAgent,
        host: this.endpoint.host,
        port: this.endpoint.port,
        method: 'GET',
        path,
        headers: { authorization: this.auth, accept: 'application/json' },
      });
      let endedResolve: () => void = () => {};
      const ended = new Promise<void>((r) => (endedResolve = r));
      const stream: WatchStream = {
        close: () => {
          req.destroy();
          endedResolve();
        },
        ended,
      };
      req.on('response', (res: IncomingMessage) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => reject(new Error(`watch ${path}: got HTTP ${res.statusCode}, expected 200: ${describeBody(Buffer.concat(chunks))}`)));
          return;
        }
        this.watches.add(stream);
        const splitter = new LineSplitter();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          for (const line of splitter.push(chunk)) onLine(line);
        });
        res.on('close', () => {
          this.watches.delete(stream);
          endedResolve();
        });
        resolve(stream);
      });
      req.on('error', (err) => {
        endedResolve();
        reject(err);
      });
      req.end();
    });
  }

  /** close ends every watch and every pooled socket. */
  close(): void {
    for (const w of this.watches) w.close();
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}

/** describeBody returns the start of a response body for an error message. */
export function describeBody(body: Buffer): string {
  const text = body.toString('utf8');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
