/**
 * A TargetClient talks to one target cluster's API server over HTTPS with Node's `https`:
 * the server is verified against the credentials' CA (or the system roots) — a TLS error is
 * reported, never worked around — and every request takes an AbortSignal. It knows the few
 * calls the provider makes: /version, discovery (which resource serves a kind, and its
 * scope), get, server-side apply and delete, and the list and watch a target watch makes
 * (on connections of their own, so a long-running watch never holds one the calls need).
 */
import { Agent, request } from 'node:https';
import type { JsonObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { TargetCluster } from './credentials.js';
import { requestThread } from './target-thread.js';
import type { ThreadAnswer } from './target-thread-protocol.js';

/** Why a request to the target failed, in the Provider's CamelCase reasons. */
export type TargetFailure = 'Unreachable' | 'UntrustedServerCertificate' | 'Unauthorized' | 'Forbidden' | 'RequestFailed';

/** A TargetError is a failed request to the target cluster, with its reason and, for HTTP errors, the status code. */
export class TargetError extends Error {
  constructor(
    readonly reason: TargetFailure,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TargetError';
  }
}

/**
 * An UnresolvableObjectError says an object cannot exist in the target as the manifest names
 * it: the target serves no such kind, or the manifest puts a cluster-scoped kind in a namespace.
 */
export class UnresolvableObjectError extends TargetError {
  constructor(
    message: string,
    status?: number,
    /** True when the target serves no such kind (an operator bundle may install it); false for a scope mismatch. */
    readonly kindNotServed = false,
  ) {
    super('RequestFailed', message, status);
    this.name = 'UnresolvableObjectError';
  }
}

/** Node's codes for a server certificate that cannot be verified. */
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE']);

/** A TargetResponse is a response's status code and parsed JSON body (undefined when it is not JSON). */
export interface TargetResponse {
  status: number;
  body: unknown;
}

/** An ApiResource is what discovery says of a kind: its plural resource and whether it is namespaced. */
export interface ApiResource {
  plural: string;
  namespaced: boolean;
}

/** An ObjectKey identifies one object in the target. */
export interface ObjectKey {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** A WatchEvent is one event of a watch stream: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (its object a Status). */
export interface WatchEvent {
  type: string;
  object: JsonObject;
}

/**
 * The most a target may send as one answer's body or one watch event's line: far above any
 * object Kubernetes stores (~1.5 MiB), so only a broken or hostile server reaches it, and it
 * cannot grow the process's memory without bound (a watch line is counted in characters).
 */
export const TARGET_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The field manager of Conductor's server-side applies. */
export const FIELD_MANAGER = 'conductor';

/** ApplyOptions choose an apply's field manager (default `conductor`) and whether it forces conflicts (default true). */
export interface ApplyOptions {
  fieldManager?: string;
  force?: boolean;
}

function statusMessage(body: unknown): string | undefined {
  return isPlainObject(body) && typeof body.message === 'string' ? body.message : undefined;
}

/** A TargetClient is an HTTPS client of one target cluster; `close` releases its connections. */
export class TargetClient {
  /** This client's number on the request thread, which keeps its connections for calls (up to 8). */
  private readonly threadClient: number;
  /** Watches' connections, on this thread: each holds one for as long as it runs. */
  private readonly watchAgent: Agent;
  private readonly base: URL;
  private readonly discovery = new Map<string, Map<string, ApiResource>>();

  constructor(readonly cluster: TargetCluster) {
    this.base = new URL(cluster.server);
    // The CA given, or the system roots; rejectUnauthorized is Node's default (true) and stays so.
    const tls = {
      ...(cluster.ca ? { ca: cluster.ca } : {}),
      ...(cluster.clientCert && cluster.clientKey ? { cert: cluster.clientCert, key: cluster.clientKey } : {}),
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
    };
    this.threadClient = requestThread.open(tls, 8);
    this.watchAgent = new Agent({ keepAlive: false, ...tls });
  }

  /** The server, for messages. */
  get server(): string {
    return this.cluster.server;
  }

  close(): void {
    requestThread.close(this.threadClient);
    this.watchAgent.destroy();
  }

  private authorization(): string | undefined {
    if (this.cluster.token) return `Bearer ${this.cluster.token}`;
    if (this.cluster.username !== undefined) return `Basic ${Buffer.from(`${this.cluster.username}:${this.cluster.password ?? ''}`).toString('base64')}`;
    return undefined;
  }

  /**
   * request sends one request; it resolves with any HTTP status (the caller decides) and
   * rejects with a TargetError when the server cannot be reached or its certificate is not
   * trusted, or with `signal.reason` when aborted.
   */
  request(
    method: string,
    path: string,
    opts: { body?: unknown; contentType?: string; signal?: AbortSignal | undefined; agent?: Agent } = {},
  ): Promise<TargetResponse> {
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const url = targetUrl(this.base, path);
    const auth = this.authorization();
    const headers = {
      Accept: 'application/json',
      ...(auth ? { Authorization: auth } : {}),
      ...(payload !== undefined ? { 'Content-Type': opts.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
    };
    if (!opts.agent) return this.requestOnThread(method, path, url.href, headers, payload, signal);
    const agent = opts.agent;
    return new Promise<TargetResponse>((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let bytes = 0;
          res.on('data', (d: Buffer) => {
            bytes += d.length;
            if (bytes <= TARGET_MAX_BODY_BYTES) chunks.push(d);
            else {
              signal?.removeEventListener('abort', onAbort);
              req.destroy();
              reject(this.tooLarge(`${method} ${path}`));
            }
          });
          res.on('error', (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(this.failure(err));
          });
          res.on('end', () => {
            signal?.removeEventListener('abort', onAbort);
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown;
            try {
              body = text === '' ? undefined : JSON.parse(text);
            } catch {
              body = undefined;
            }
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      const onAbort = () => {
        req.destroy();
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(signal.reason as Error);
        else reject(this.failure(err));
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /**
   * requestOnThread sends a call's request on the request thread (target-thread.ts), which
   * holds this client's connections: the same request, answer, errors and abort as on this
   * thread, without its TLS and HTTP work here.
   */
  private requestOnThread(
    method: string,
    path: string,
    url: string,
    headers: Record<string, string | number>,
    payload: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<TargetResponse> {
    return new Promise<TargetResponse>((resolve, reject) => {
      const onAbort = () => {
        requestThread.cancel(id);
        reject(signal!.reason as Error);
      };
      const id = requestThread.request(this.threadClient, { method, url, headers, body: payload, maxBytes: TARGET_MAX_BODY_BYTES }, (a: ThreadAnswer) => {
        signal?.removeEventListener('abort', onAbort);
        if (a.error) {
          const err: Error & { code?: string } = new Error(a.error.message);
          if (a.error.code !== undefined) err.code = a.error.code;
          reject(this.failure(err));
        } else if (a.tooLarge) reject(this.tooLarge(`${method} ${path}`));
        else {
          let body: unknown;
          try {
            body = a.text === '' ? undefined : JSON.parse(a.text);
          } catch {
            body = undefined;
          }
          resolve({ status: a.status, body });
        }
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** tooLarge is the error of an answer (or a watch event) over TARGET_MAX_BODY_BYTES. */
  private tooLarge(what: string): TargetError {
    return new TargetError(
      'RequestFailed',
      `${this.server} sent more than ${TARGET_MAX_BODY_BYTES / (1024 * 1024)} MiB for ${what} (in one answer or one watch event); the connection was closed`,
    );
  }

  private failure(err: Error & { code?: string }): TargetError {
    const code = err.code ?? '';
    if (TLS_VERIFY_CODES.has(code)) {
      return new TargetError(
        'UntrustedServerCertificate',
        `the certificate of ${this.server} cannot be verified (${code}: ${err.message}): give the cluster's CA (clusterCA, or certificate-authority-data in the kubeconfig); verification is never skipped`,
        undefined,
        { cause: err },
      );
    }
    if (UNREACHABLE_CODES.has(code)) return new TargetError('Unreachable', `cannot reach ${this.server}: ${code} (${err.message})`, undefined, { cause: err });
    return new TargetError('Unreachable', `cannot talk to ${this.server}: ${err.message}`, undefined, { cause: err });
  }

  /** ok checks a response's status: 401 and 403 become TargetErrors with those reasons, other failures a RequestFailed one. */
  private ok(res: TargetResponse, what: string, allowed: readonly number[] = []): TargetResponse {
    if ((res.status >= 200 && res.status < 300) || allowed.includes(res.status)) return res;
    const detail = statusMessage(res.body) ?? `HTTP ${res.status}`;
    if (res.status === 401) return fail('Unauthorized', `${this.server} refused the credentials (401 Unauthorized) for ${what}: ${detail}`, res.status);
    if (res.status === 403) return fail('Forbidden', `the credentials may not ${what} on ${this.server} (403 Forbidden): ${detail}`, res.status);
    return fail('RequestFailed', `cannot ${what} on ${this.server}: ${res.status} ${detail}`, res.status);
  }

  /** version reads `/version` (gitVersion, e.g. v1.31.0). */
  async version(signal?: AbortSignal): Promise<JsonObject> {
    const res = this.ok(await this.request('GET', '/version', { signal }), 'read /version');
    if (!isPlainObject(res.body)) throw new TargetError('RequestFailed', `${this.server}/version answered no JSON object`);
    return res.body as JsonObject;
  }

  /**
   * resourceFor finds the resource serving `apiVersion`/`kind` through discovery (cached;
   * looked up again once when the kind is not in the cached list, e.g. a CRD installed since).
   */
  async resourceFor(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ApiResource> {
    const cached = this.discovery.get(apiVersion)?.get(kind);
    if (cached) return cached;
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const res = await this.request('GET', path, { signal });
    if (res.status === 404) {
      throw new UnresolvableObjectError(`${this.server} serves no ${apiVersion}: install the CRD (or operator) that defines ${kind}`, 404, true);
    }
    this.ok(res, `discover ${apiVersion}`);
    const resources = isPlainObject(res.body) && Array.isArray(res.body.resources) ? res.body.resources : [];
    const byKind = new Map<string, ApiResource>();
    for (const r of resources) {
      if (!isPlainObject(r) || typeof r.name !== 'string' || r.name.includes('/') || typeof r.kind !== 'string') continue;
      byKind.set(r.kind, { plural: r.name, namespaced: r.namespaced === true });
    }
    this.discovery.set(apiVersion, byKind);
    const found = byKind.get(kind);
    if (!found) throw new UnresolvableObjectError(`${this.server} serves ${apiVersion} but no kind ${kind} in it: check the manifest's kind`, 404, true);
    return found;
  }

  /** pathOf is the URL path of one object (namespace checked against the kind's scope). */
  async pathOf(key: ObjectKey, signal?: AbortSignal): Promise<{ path: string; namespace?: string }> {
    const r = await this.resourceFor(key.apiVersion, key.kind, signal);
    const prefix = key.apiVersion.includes('/') ? `/apis/${key.apiVersion}` : `/api/${key.apiVersion}`;
    const name = encodeURIComponent(key.name);
    if (!r.namespaced) {
      if (key.namespace) {
        throw new UnresolvableObjectError(
          `${key.kind} is cluster-scoped in the target, but the manifest names namespace "${key.namespace}": remove metadata.namespace`,
        );
      }
      return { path: `${prefix}/${r.plural}/${name}` };
    }
    const namespace = key.namespace ?? 'default';
    return { path: `${prefix}/namespaces/${encodeURIComponent(namespace)}/${r.plural}/${name}`, namespace };
  }

  /** collectionPathOf is the URL path of a kind's objects: in `namespace` for a namespaced kind, else cluster-wide. */
  async collectionPathOf(apiVersion: string, kind: string, namespace: string | undefined, signal?: AbortSignal): Promise<string> {
    const r = await this.resourceFor(apiVersion, kind, signal);
    const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return r.namespaced ? `${prefix}/namespaces/${encodeURIComponent(namespace ?? 'default')}/${r.plural}` : `${prefix}/${r.plural}`;
  }

  /**
   * listVersion lists a collection for its resourceVersion only — the point a watch starts
   * from — asking for one item, since the watch keeps no copy of the objects.
   */
  async listVersion(path: string, signal?: AbortSignal): Promise<string> {
    const res = this.ok(await this.request('GET', `${path}?limit=1`, { signal, agent: this.watchAgent }), `list ${path}`);
    const meta = isPlainObject(res.body) && isPlainObject(res.body.metadata) ? res.body.metadata : {};
    if (typeof meta.resourceVersion !== 'string' || meta.resourceVersion === '') {
      throw new TargetError('RequestFailed', `${this.server} answered the list of ${path} without a resourceVersion`);
    }
    return meta.resourceVersion;
  }

  /**
   * watch streams the events of a collection after `resourceVersion` to `onEvent`, one JSON
   * object a line, and resolves when the server ends the stream (its timeout); an HTTP
   * failure rejects with a TargetError (403 Forbidden, 410 Expired …), an abort with
   * `signal.reason`. When `onEvent` returns an Error the stream is closed and the watch
   * rejects with it.
   */
  watch(path: string, resourceVersion: string, onEvent: (event: WatchEvent) => Error | undefined, signal: AbortSignal, timeoutSeconds = 300): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const query = `?watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(resourceVersion)}&timeoutSeconds=${timeoutSeconds}`;
    const auth = this.authorization();
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (err?: unknown) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (err === undefined) resolve();
        else reject(err instanceof Error ? err : new Error(String(err)));
      };
      const req = request(
        targetUrl(this.base, path + query),
        { method: 'GET', agent: this.watchAgent, headers: { Accept: 'application/json', ...(auth ? { Authorization: auth } : {}) } },
        (res) => {
          const status = res.statusCode ?? 0;
          // Decoded as a stream, so a character split between two chunks stays whole.
          res.setEncoding('utf8');
          // The partial line (or, on failure, the body) so far, in pieces: a chunk is searched
          // for line ends once, and a long line is joined once, not at every chunk.
          let pieces: string[] = [];
          let pendingLength = 0;
          /** handleLine gives one complete line to onEvent; false once the watch is over. */
          const handleLine = (raw: string): boolean => {
            const line = raw.trim();
            if (line === '') return true;
            let event: unknown;
            try {
              event = JSON.parse(line);
            } catch {
              req.destroy();
              settle(new TargetError('RequestFailed', `${this.server} sent a watch event of ${path} that is not JSON`));
              return false;
            }
            if (isPlainObject(event) && typeof event.type === 'string' && isPlainObject(event.object)) {
              const stop = onEvent({ type: event.type, object: event.object as JsonObject });
              if (stop) {
                req.destroy();
                settle(stop);
                return false;
              }
            }
            return true;
          };
          res.on('data', (d: string) => {
            let start = 0;
            if (status === 200) {
              for (let nl = d.indexOf('\n'); nl >= 0; nl = d.indexOf('\n', start)) {
                const line = pieces.length > 0 ? pieces.join('') + d.slice(start, nl) : d.slice(start, nl);
                pieces = [];
                pendingLength = 0;
                start = nl + 1;
                if (!handleLine(line)) return;
              }
            }
            if (start < d.length) {
              pieces.push(start === 0 ? d : d.slice(start));
              pendingLength += d.length - start;
            }
            if (pendingLength > TARGET_MAX_BODY_BYTES) {
              req.destroy();
              settle(this.tooLarge(`watch ${path}`));
            }
          });
          res.on('error', (err) => settle(signal.aborted ? signal.reason : this.failure(err)));
          res.on('end', () => {
            if (status === 200) return settle();
            let body: unknown;
            try {
              body = JSON.parse(pieces.join(''));
            } catch {
              body = undefined;
            }
            try {
              this.ok({ status, body }, `watch ${path}`);
              settle();
            } catch (err) {
              settle(err);
            }
          });
        },
      );
      const onAbort = () => {
        req.destroy();
        settle(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => settle(signal.aborted ? signal.reason : this.failure(err)));
      req.end();
    });
  }

  /** get reads an object; undefined when it does not exist. */
  async get(key: ObjectKey, signal?: AbortSignal): Promise<JsonObject | undefined> {
    const { path } = await this.pathOf(key, signal);
    const res = this.ok(await this.request('GET', path, { signal }), `get ${describeKey(key)}`, [404]);
    if (res.status === 404) return undefined;
    if (!isPlainObject(res.body)) throw new TargetError('RequestFailed', `${this.server} answered no JSON object for ${describeKey(key)}`);
    return res.body as JsonObject;
  }

  /**
   * apply server-side applies `manifest`, by default with the field manager `conductor` and
   * forcing conflicts. Without `force`, a field another manager owns with another value makes
   * the target answer 409 Conflict (a TargetError of status 409) and nothing is written.
   */
  async apply(key: ObjectKey, manifest: JsonObject, signal?: AbortSignal, options: ApplyOptions = {}): Promise<JsonObject> {
    const { path } = await this.pathOf(key, signal);
    const query = `?fieldManager=${encodeURIComponent(options.fieldManager ?? FIELD_MANAGER)}&force=${options.force ?? true}`;
    // JSON is YAML: the apply patch type takes it as it is.
    const res = this.ok(
      await this.request('PATCH', path + query, { body: manifest, contentType: 'application/apply-patch+yaml', signal }),
      `apply ${describeKey(key)}`,
    );
    return isPlainObject(res.body) ? (res.body as JsonObject) : {};
  }

  /**
   * delete deletes an object with propagation policy Background; deleting what is gone
   * succeeds. With `uid`, only the object of that uid is deleted (a precondition): one made
   * anew under the same name meanwhile is left (409, which counts as done).
   */
  async delete(key: ObjectKey, signal?: AbortSignal, uid?: string): Promise<void> {
    const { path } = await this.pathOf(key, signal);
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', ...(uid ? { preconditions: { uid } } : {}) };
    this.ok(await this.request('DELETE', path, { body, signal }), `delete ${describeKey(key)}`, [404, ...(uid ? [409] : [])]);
  }
}

/** targetUrl is the URL of an API path under the server URL, keeping its own path if it has one (a proxy's https://host/clusters/c1). */
export function targetUrl(server: URL, path: string): URL {
  return new URL(server.pathname.replace(/\/$/, '') + path, server);
}

function fail(reason: TargetFailure, message: string, status: number): never {
  throw new TargetError(reason, message, status);
}

/** describeKey names an object for messages: `ConfigMap shop/settings`. */
export function describeKey(key: ObjectKey): string {
  return `${key.kind} ${key.namespace ? `${key.namespace}/` : ''}${key.name}`;
}
