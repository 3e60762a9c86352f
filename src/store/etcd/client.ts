/**
 * A small etcd v3 client: one gRPC channel per endpoint, calls on the endpoint that last
 * answered, failover to the next endpoint when one cannot be reached.
 */
import * as grpc from '@grpc/grpc-js';
import { StoreError } from '../types.js';
import {
  etcdServices,
  etcdUnaryMethods,
  type EtcdUnaryMethods,
  type StatusRequest,
  type StatusResponse,
  type WatchClient,
  type WatchRequest,
  type WatchResponse,
} from './rpc.js';
import type { EtcdTlsOptions } from './options.js';
import { UnarySession, type UnaryMethod } from './unary-session.js';

/**
 * An Endpoint is one etcd member's client URL and its two connections: the watch streams on a
 * grpc-js channel, the unary calls (KV, Status) on an HTTP/2 session of their own.
 */
export interface Endpoint {
  readonly url: string;
  readonly watch: WatchClient;
  readonly unary: UnarySession;
}

/** One member's answer to Status, or why it gave none. */
export type MemberStatus = { url: string; status: StatusResponse } | { url: string; error: string };

/**
 * Whether a failed call may be sent again to another endpoint: reads may always; a write only
 * when it surely never reached etcd (no connection was established for it).
 */
export type RetryPolicy = 'idempotent' | 'write';

/** The unary methods of the KV service. */
type KvMethod = 'Range' | 'Txn' | 'Compact';

/**
 * parseEndpoint checks one client URL (`http://host:port` or `https://host:port`) and returns
 * the gRPC target and whether it uses TLS.
 */
export function parseEndpoint(url: string): { target: string; tls: boolean } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`etcd endpoint ${JSON.stringify(url)} is not a URL: expected http://host:port or https://host:port`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`etcd endpoint ${JSON.stringify(url)} has scheme ${parsed.protocol}: expected http:// or https://`);
  }
  if (!parsed.port) throw new TypeError(`etcd endpoint ${JSON.stringify(url)} has no port: expected http://host:port or https://host:port`);
  if (parsed.pathname !== '/' && parsed.pathname !== '') {
    throw new TypeError(`etcd endpoint ${JSON.stringify(url)} has a path: expected only http://host:port or https://host:port`);
  }
  return { target: `${parsed.hostname}:${parsed.port}`, tls: parsed.protocol === 'https:' };
}

/** An EtcdClient holds the endpoints and makes calls with failover. */
export class EtcdClient {
  private readonly endpoints: Endpoint[];
  /** The endpoint calls go to first: the last one that answered. */
  private active = 0;
  private readonly methods: EtcdUnaryMethods;

  constructor(
    urls: readonly string[],
    tls: EtcdTlsOptions | undefined,
    /** How long one unary call may take before it fails as unavailable. */
    private readonly callTimeoutMs: number,
  ) {
    if (urls.length === 0) throw new TypeError('no etcd endpoints given: expected at least one http://host:port or https://host:port');
    const { Watch } = etcdServices();
    this.methods = etcdUnaryMethods();
    this.endpoints = urls.map((url) => {
      const { target, tls: secure } = parseEndpoint(url);
      if (!secure && (tls?.cert || tls?.key || tls?.ca)) {
        throw new TypeError(`etcd endpoint ${url} is http:// but TLS files were given: use https:// for every endpoint`);
      }
      if (Boolean(tls?.cert) !== Boolean(tls?.key)) {
        throw new TypeError('an etcd client certificate needs both the certificate and its key');
      }
      const credentials = secure ? grpc.credentials.createSsl(tls?.ca ?? null, tls?.key ?? null, tls?.cert ?? null) : grpc.credentials.createInsecure();
      // Watch events can be large (a burst of big values): no gRPC message limit.
      const watch = new Watch(target, credentials, { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 });
      // The unary calls without grpc-js's per-call layers (unary-session.ts); no message limit either.
      const unary = new UnarySession(`${secure ? 'https' : 'http'}://${target}`, secure ? { ca: tls?.ca, cert: tls?.cert, key: tls?.key } : undefined);
      return { url, watch, unary };
    });
  }

  /** urls lists the endpoints, for messages. */
  get urls(): string {
    return this.endpoints.map((e) => e.url).join(',');
  }

  /**
   * call makes one unary call, on the active endpoint first, then on each other one while the
   * failure says the endpoint could not be reached (and the policy allows a retry).
   */
  async call<Req, Res>(method: KvMethod, request: Req, policy: RetryPolicy, what: string, timeoutMs = this.callTimeoutMs): Promise<Res> {
    const deadline = Date.now() + timeoutMs;
    const errors = new Map<string, grpc.ServiceError>();
    for (let round = 0; ; round++) {
      for (let attempt = 0; attempt < this.endpoints.length; attempt++) {
        const index = (this.active + attempt) % this.endpoints.length;
        const endpoint = this.endpoints[index];
        try {
          const response = await this.unary<Req, Res>(endpoint, method, request, deadline);
          this.active = index;
          return response;
        } catch (err) {
          const e = err as grpc.ServiceError;
          if (!isUnreachable(e)) throw translate(e, what);
          errors.set(endpoint.url, e);
          if (policy === 'write' && !neverSent(e)) {
            const happened = /^etcdserver: /.test(e.details ?? '')
              ? `etcd at ${endpoint.url} did not confirm the write (${reason(e)})`
              : `the connection to etcd at ${endpoint.url} failed during the write (${reason(e)})`;
            throw new StoreError('unavailable', `cannot ${what}: ${happened}; the write may or may not have been applied — read the key to find out`);
          }
        }
      }
      // Every member failed. When none could even be connected to, etcd is not there: say so
      // at once. Otherwise the cluster is between leaders (an election takes about a second):
      // try again, with a growing pause, until the call's time is up.
      const connected = [...errors.values()].some((e) => !/No connection established/.test(e.details ?? ''));
      if (!connected || Date.now() + pauseMs(round) >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs(round)));
    }
    const why = [...errors].map(([url, e]) => `${url}: ${reason(e)}`).join('; ');
    throw new StoreError(
      'unavailable',
      `cannot ${what}: etcd is unreachable at ${this.urls} (${why}); check that etcd is running and that the endpoints are right`,
    );
  }

  private unary<Req, Res>(endpoint: Endpoint, method: KvMethod, request: Req, deadline: number): Promise<Res> {
    return endpoint.unary.call(this.methods[method] as unknown as UnaryMethod<Req, Res>, request, deadline);
  }

  /** openWatch opens a Watch stream on the active endpoint, or the one after `failed`. */
  openWatch(failed?: Endpoint): { endpoint: Endpoint; stream: grpc.ClientDuplexStream<WatchRequest, WatchResponse> } {
    if (failed && this.endpoints[this.active] === failed) this.active = (this.active + 1) % this.endpoints.length;
    const endpoint = this.endpoints[this.active];
    return { endpoint, stream: endpoint.watch.Watch() };
  }

  /** statuses asks every member for its Status (one call each, no failover: each member speaks for itself). */
  statuses(timeoutMs: number): Promise<MemberStatus[]> {
    const status = this.methods.Status as unknown as UnaryMethod<StatusRequest, StatusResponse>;
    return Promise.all(
      this.endpoints.map((endpoint) =>
        endpoint.unary.call(status, {}, Date.now() + timeoutMs).then(
          (res): MemberStatus => ({ url: endpoint.url, status: res }),
          (err: grpc.ServiceError): MemberStatus => ({ url: endpoint.url, error: reason(err) }),
        ),
      ),
    );
  }

  /**
   * flush sends the unary calls made so far in this turn of the event loop now, instead of at
   * the end of the turn with the others (`UnarySession.flush`).
   */
  flush(): void {
    for (const e of this.endpoints) e.unary.flush();
  }

  close(): void {
    for (const e of this.endpoints) {
      e.unary.close();
      e.watch.close();
    }
  }
}

/** pauseMs is the pause before the next round of a call in which every member failed. */
function pauseMs(round: number): number {
  return Math.min(1000, 50 * 2 ** round);
}

/** isUnreachable tells the failures of the connection (not of the request) apart. */
export function isUnreachable(err: grpc.ServiceError): boolean {
  return err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED;
}

/** neverSent is true when gRPC failed the call before it had a connection to send it on. */
function neverSent(err: grpc.ServiceError): boolean {
  return err.code === grpc.status.UNAVAILABLE && /No connection established|etcdserver: no leader/.test(err.details ?? '');
}

/** reason shortens gRPC's account of a connection failure to its cause. */
export function reason(err: grpc.ServiceError): string {
  return (err.details || err.message)
    .replace(/^No connection established\. Last error: (Error: )?/, '')
    .replace(/\. Resolution note: .*$/, '')
    .replace(/\.$/, '');
}

/** translate turns etcd's answer into the Store's errors where the contract names them. */
export function translate(err: grpc.ServiceError, what: string): Error {
  const details = err.details ?? err.message;
  if (/required revision has been compacted/.test(details)) return new StoreError('compacted', `cannot ${what}: ${details}`);
  if (/required revision is a future revision/.test(details)) return new StoreError('future-revision', `cannot ${what}: ${details}`);
  if (isUnreachable(err)) return new StoreError('unavailable', `cannot ${what}: etcd did not answer (${reason(err)})`);
  return new Error(`cannot ${what}: etcd answered ${grpc.status[err.code] ?? err.code}: ${details}`, { cause: err });
}
