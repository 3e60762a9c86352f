/**
 * The HTTP implementation of Client: the Kubernetes REST protocol over HTTPS (or plain
 * HTTP), against Conductor's API server or any Kubernetes cluster.
 */
import http from 'node:http';
import https from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { readFile } from 'node:fs/promises';
import { ApiError, apiErrorFromStatus, errors } from '../machinery/errors.js';
import type { Status, StatusReason } from '../machinery/errors.js';
import type { KList, KObject } from '../machinery/object.js';
import { isPlainObject, parseApiVersion } from '../machinery/object.js';
import type { ClientConfig } from './kubeconfig.js';
import {
  collectionPath,
  deleteOptionsBody,
  groupVersionPath,
  listQuery,
  objectPath,
  patchQuery,
  watchQuery,
  withQuery,
  writeQuery,
} from './request-builder.js';
import { patchContentTypes } from './types.js';
import type {
  Client,
  DeleteOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceRef,
  WatchEvent,
  WatchHandle,
  WatchHandlers,
  WatchOptions,
  WriteOptions,
} from './types.js';
import { defaultUserAgent } from './version.js';
import { WatchDecodeError, WatchDecoder } from './watch-decoder.js';

/** HttpClientOptions tune the transport; every field has a default. */
export interface HttpClientOptions {
  /** Most concurrent connections for ordinary requests (watches use their own). Default 16. */
  maxSockets?: number;
  /** Default `conductor/<version>`. */
  userAgent?: string;
  /** A request that sees no data for this long fails with 504. Default 60 000 ms. Watches are exempt. */
  requestTimeoutMs?: number;
  /** Namespace for namespaced objects that name none. Default: the kubeconfig context's, else `default`. */
  defaultNamespace?: string;
  /** How long a token read from `tokenFile` is reused before it is read again. Default 60 000 ms. */
  tokenFileRefreshMs?: number;
}

/** One entry of an APIResourceList, as discovery serves it. */
export interface ApiResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

interface RawResponse {
  status: number;
  text: string;
}

interface Body {
  data: string;
  contentType: string;
}

/**
 * An HttpClient implements Client over HTTP(S) with a keep-alive connection pool. Every
 * failure is an ApiError: the server's Status for non-2xx answers, 503 ServiceUnavailable
 * for network errors (with the cause), 504 Timeout when a request stalls.
 */
export class HttpClient implements Client {
  readonly server: URL;
  readonly defaultNamespace: string;
  private readonly basePath: string;
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;
  /** Watches hold their connection for minutes, so they get their own unpooled agent. */
  private readonly watchAgent: http.Agent;
  private readonly userAgent: string;
  private readonly requestTimeoutMs: number;
  private readonly tokenFileRefreshMs: number;
  private cachedToken?: { value: string; readAt: number };
  private readonly discovery = new Map<string, Promise<ApiResource[]>>();

  constructor(
    readonly config: ClientConfig,
    options: HttpClientOptions = {},
  ) {
    let url: URL;
    try {
      url = new URL(config.server);
    } catch {
      throw new Error(`cannot create HTTP client: server ${JSON.stringify(config.server)} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`cannot create HTTP client: server ${JSON.stringify(config.server)} must be an http(s) URL`);
    }
    this.server = url;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.defaultNamespace = options.defaultNamespace ?? config.namespace ?? 'default';
    this.userAgent = options.userAgent ?? defaultUserAgent;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.tokenFileRefreshMs = options.tokenFileRefreshMs ?? 60_000;
    const maxSockets = options.maxSockets ?? 16;
    if (url.protocol === 'https:') {
      this.transport = https;
      const tls: https.AgentOptions = {
        ...(config.ca ? { ca: config.ca } : {}),
        ...(config.clientCertificate ? { cert: config.clientCertificate } : {}),
        ...(config.clientKey ? { key: config.clientKey } : {}),
        ...(config.tlsServerName ? { servername: config.tlsServerName } : {}),
        rejectUnauthorized: !config.insecureSkipTlsVerify,
      };
      this.agent = new https.Agent({ ...tls, keepAlive: true, maxSockets });
      this.watchAgent = new https.Agent({ ...tls, keepAlive: false });
    } else {
      this.transport = http;
      this.agent = new http.Agent({ keepAlive: true, maxSockets });
      this.watchAgent = new http.Agent({ keepAlive: false });
    }
  }

  /** Closes pooled connections; watches still open are cut. */
  close(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
  }

  async get<T extends KObject = KObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> {
    return this.exchange<T>('GET', objectPath(ref, this.namespaceFor(ref, namespace), name));
  }

  async list<T extends KObject = KObject>(ref: ResourceRef, options: ListOptions = {}): Promise<KList<T>> {
    return this.exchange<KList<T>>('GET', withQuery(collectionPath(ref, options.namespace), listQuery(options)));
  }

  async create<T extends KObject = KObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> {
    const path = collectionPath(ref, this.namespaceFor(ref, undefined, obj));
    return this.exchange<T>('POST', withQuery(path, writeQuery(options)), json(obj));
  }

  async update<T extends KObject = KObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> {
    return this.exchange<T>('PUT', withQuery(this.pathOf(ref, obj, 'update'), writeQuery(options)), json(obj));
  }

  async updateStatus<T extends KObject = KObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> {
    return this.updateSubresource(ref, obj, 'status', options);
  }

  async updateSubresource<T extends KObject = KObject>(ref: ResourceRef, obj: T, subresource: string, options: WriteOptions = {}): Promise<T> {
    const path = this.pathOf(ref, obj, `update of ${subresource}`, subresource);
    return this.exchange<T>('PUT', withQuery(path, writeQuery(options)), json(obj));
  }

  async patch<T extends KObject = KObject>(ref: ResourceRef, name: string, type: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> {
    const path = objectPath(ref, this.namespaceFor(ref, options.namespace), name, options.subresource);
    const data = typeof patch === 'string' ? patch : JSON.stringify(patch);
    return this.exchange<T>('PATCH', withQuery(path, patchQuery(options)), { data, contentType: patchContentTypes[type] });
  }

  async delete(ref: ResourceRef, name: string, options: DeleteOptions = {}): Promise<KObject> {
    const path = objectPath(ref, this.namespaceFor(ref, options.namespace), name);
    return this.exchange<KObject>('DELETE', path, json(deleteOptionsBody(options)));
  }

  async deleteCollection(ref: ResourceRef, options: ListOptions & DeleteOptions = {}): Promise<void> {
    const path = withQuery(collectionPath(ref, options.namespace), listQuery(options));
    await this.exchange<unknown>('DELETE', path, json(deleteOptionsBody(options)));
  }

  /**
   * Streams `?watch=true`: each line of the response is an event. ERROR events (such as 410
   * Expired) are delivered as events; the server ending the stream calls `onClose()`, a
   * failure `onClose(err)` — including a non-2xx answer to the watch request itself.
   */
  watch<T extends KObject = KObject>(ref: ResourceRef, options: WatchOptions, handlers: WatchHandlers<T>): WatchHandle {
    const path = withQuery(collectionPath(ref, options.namespace), watchQuery(options));
    let stopped = false;
    let closed = false;
    let req: ClientRequest | undefined;
    const close = (err?: Error): void => {
      if (stopped || closed) return;
      closed = true;
      req?.destroy();
      handlers.onClose(err);
    };
    const onResponse = (res: IncomingMessage): void => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        collect(res)
          .then((text) => close(this.errorFromResponse('GET', path, { status, text })))
          .catch((err: Error) => close(this.networkError('GET', path, err)));
        return;
      }
      res.setEncoding('utf8');
      const decoder = new WatchDecoder();
      const deliver = (decode: () => WatchEvent[]): void => {
        let events: WatchEvent[];
        let failure: Error | undefined;
        try {
          events = decode();
        } catch (err) {
          events = err instanceof WatchDecodeError ? err.decoded : [];
          failure = new ApiError(500, 'InternalError', `GET ${path}: ${(err as Error).message}`);
        }
        for (const event of events) {
          if (stopped || closed) return;
          try {
            handlers.onEvent(event as WatchEvent<T>);
          } catch (err) {
            close(new Error(`watch event handler failed: ${(err as Error).message}`, { cause: err }));
            return;
          }
        }
        if (failure) close(failure);
      };
      res.on('data', (chunk: string) => deliver(() => decoder.push(chunk)));
      res.on('end', () => {
        deliver(() => decoder.end());
        close();
      });
      res.on('error', (err) => close(this.networkError('GET', path, err)));
      res.on('close', () => {
        if (!res.complete) close(this.networkError('GET', path, new Error('the connection closed before the watch ended')));
      });
    };
    this.headers(undefined)
      .then((headers) => {
        if (stopped) return;
        req = this.transport.request(this.requestOptions('GET', path, headers, this.watchAgent));
        req.on('response', onResponse);
        req.on('error', (err) => close(this.networkError('GET', path, err)));
        req.on('socket', (socket) => socket.setKeepAlive(true, 30_000));
        if (options.timeoutSeconds !== undefined) {
          // The server ends the watch after timeoutSeconds; silence well past that means a dead connection.
          const ms = (options.timeoutSeconds + 30) * 1000;
          req.setTimeout(ms, () => close(errors.timeout(`GET ${path}: no data for ${ms} ms`)));
        }
        req.end();
      })
      .catch((err: Error) => close(err));
    return {
      stop: () => {
        stopped = true;
        req?.destroy();
      },
    };
  }

  /**
   * Finds the resource serving `kind` at `apiVersion` from the group-version's resource list
   * (`/api/v1`, `/apis/<group>/<version>`). Lists are cached; a kind missing from a cached
   * list triggers one fresh read, so kinds added by a new CRD are found.
   */
  async discover(apiVersion: string, kind: string): Promise<ResourceRef> {
    const { group, version } = parseApiVersion(apiVersion);
    const find = (resources: ApiResource[]): ApiResource | undefined => resources.find((r) => r.kind === kind && !r.name.includes('/'));
    let found = find(await this.resources(group, version, false));
    if (!found) found = find(await this.resources(group, version, true));
    if (!found) {
      throw new ApiError(404, 'NotFound', `no resource of kind ${JSON.stringify(kind)} is served at ${apiVersion}`, {
        group,
        kind,
      });
    }
    return { group, version, resource: found.name, namespaced: found.namespaced, kind: found.kind };
  }

  /** Forgets cached discovery (all of it, or one group-version). */
  invalidateDiscovery(apiVersion?: string): void {
    if (apiVersion === undefined) this.discovery.clear();
    else this.discovery.delete(apiVersion);
  }

  /** The resources a group-version serves (`name` includes subresources such as `pods/status`). */
  async resources(group: string, version: string, refresh = false): Promise<ApiResource[]> {
    const key = group ? `${group}/${version}` : version;
    let pending = refresh ? undefined : this.discovery.get(key);
    if (!pending) {
      pending = this.exchange<{ resources?: ApiResource[] }>('GET', groupVersionPath(group, version)).then((list) =>
        Array.isArray(list.resources) ? list.resources : [],
      );
      this.discovery.set(key, pending);
      pending.catch(() => {
        if (this.discovery.get(key) === pending) this.discovery.delete(key);
      });
    }
    return pending;
  }

  /**
   * Sends one request to `path` (below the server URL) and decodes its JSON answer. A string
   * `body` is sent as is (give its `contentType`), anything else as JSON. For paths outside
   * the resource API such as `/version` or `/openapi/v2`.
   */
  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    if (body === undefined) return this.exchange<T>(method, path);
    return this.exchange<T>(method, path, { data: typeof body === 'string' ? body : JSON.stringify(body), contentType });
  }

  /**
   * Sends GET `path` and hands each piece of a successful answer to `onData` as it arrives
   * (a log, followed or not); resolves when the server ends the answer, or when `signal`
   * aborts. An error status rejects with its ApiError. No timeout once the answer has begun.
   */
  async stream(path: string, onData: (chunk: Buffer) => void, signal?: AbortSignal): Promise<void> {
    const headers = { ...(await this.headers(undefined)), accept: '*/*' };
    return new Promise<void>((resolve, reject) => {
      const req = this.transport.request(this.requestOptions('GET', path, headers, this.watchAgent));
      const abort = () => req.destroy();
      signal?.addEventListener('abort', abort, { once: true });
      const done = (err?: Error) => {
        signal?.removeEventListener('abort', abort);
        if (err && !signal?.aborted) reject(err);
        else resolve();
      };
      req.on('response', (res) => {
        req.setTimeout(0);
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          collect(res).then(
            (text) => done(this.errorFromResponse('GET', path, { status, text })),
            (err: Error) => done(this.networkError('GET', path, err)),
          );
          return;
        }
        res.on('data', (chunk: Buffer) => onData(chunk));
        res.on('end', () => done());
        res.on('error', (err) => done(this.networkError('GET', path, err)));
        res.on('close', () => done());
      });
      req.on('error', (err) => done(err instanceof ApiError ? err : this.networkError('GET', path, err)));
      req.setTimeout(this.requestTimeoutMs, () => req.destroy(errors.timeout(`GET ${path}: no answer within ${this.requestTimeoutMs} ms`)));
      req.end();
    });
  }

  private async exchange<T>(method: string, path: string, body?: Body): Promise<T> {
    const headers = await this.headers(body);
    const res = await this.send(method, path, headers, body);
    if (res.status < 200 || res.status >= 300) throw this.errorFromResponse(method, path, res);
    if (res.text === '') return {} as T;
    try {
      return JSON.parse(res.text) as T;
    } catch (err) {
      throw new ApiError(500, 'InternalError', `${method} ${path}: cannot decode the response as JSON: ${(err as Error).message}`);
    }
  }

  private send(method: string, path: string, headers: http.OutgoingHttpHeaders, body?: Body): Promise<RawResponse> {
    return new Promise<RawResponse>((resolve, reject) => {
      const req = this.transport.request(this.requestOptions(method, path, headers, this.agent));
      req.on('response', (res) => {
        collect(res).then(
          (text) => resolve({ status: res.statusCode ?? 0, text }),
          (err: Error) => reject(this.networkError(method, path, err)),
        );
      });
      req.on('error', (err) => reject(err instanceof ApiError ? err : this.networkError(method, path, err)));
      req.setTimeout(this.requestTimeoutMs, () => {
        req.destroy(errors.timeout(`${method} ${path}: no answer within ${this.requestTimeoutMs} ms`));
      });
      req.end(body?.data);
    });
  }

  private requestOptions(method: string, path: string, headers: http.OutgoingHttpHeaders, agent: http.Agent): http.RequestOptions {
    return {
      protocol: this.server.protocol,
      hostname: this.server.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.server.port || undefined,
      path: this.basePath + path,
      method,
      headers,
      agent,
    };
  }

  private async headers(body: Body | undefined): Promise<http.OutgoingHttpHeaders> {
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json', 'user-agent': this.userAgent };
    const token = await this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    else if (this.config.username !== undefined) {
      const basic = Buffer.from(`${this.config.username}:${this.config.password ?? ''}`).toString('base64');
      headers.authorization = `Basic ${basic}`;
    }
    if (body) {
      headers['content-type'] = body.contentType;
      headers['content-length'] = Buffer.byteLength(body.data);
    }
    return headers;
  }

  private async token(): Promise<string | undefined> {
    if (this.config.token) return this.config.token;
    const file = this.config.tokenFile;
    if (!file) return undefined;
    const now = Date.now();
    if (this.cachedToken && now - this.cachedToken.readAt < this.tokenFileRefreshMs) return this.cachedToken.value;
    try {
      const value = (await readFile(file, 'utf8')).trim();
      this.cachedToken = { value, readAt: now };
      return value;
    } catch (err) {
      if (this.cachedToken) return this.cachedToken.value;
      throw new ApiError(401, 'Unauthorized', `cannot read the bearer token file ${file}: ${(err as Error).message}`);
    }
  }

  private namespaceFor(ref: ResourceRef, explicit: string | undefined, obj?: KObject): string | undefined {
    if (!ref.namespaced) return undefined;
    return explicit || obj?.metadata?.namespace || this.defaultNamespace;
  }

  private pathOf(ref: ResourceRef, obj: KObject, verb: string, subresource?: string): string {
    const name = obj.metadata?.name;
    if (!name) throw errors.badRequest(`${verb} of ${ref.resource} needs metadata.name`);
    return objectPath(ref, this.namespaceFor(ref, undefined, obj), name, subresource);
  }

  private errorFromResponse(method: string, path: string, res: RawResponse): ApiError {
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.text);
    } catch {
      parsed = undefined;
    }
    if (isPlainObject(parsed) && parsed.kind === 'Status') {
      const status = parsed as Partial<Status>;
      return apiErrorFromStatus({ ...status, reason: status.reason || reasonForCode(res.status) }, res.status);
    }
    const text = res.text.trim();
    const detail = text ? `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}` : '';
    return new ApiError(res.status, reasonForCode(res.status), `${method} ${path}: HTTP ${res.status}${detail}`);
  }

  private networkError(method: string, path: string, err: Error): ApiError {
    if (err instanceof ApiError) return err;
    const e = new ApiError(503, 'ServiceUnavailable', `${method} ${this.server.origin}${this.basePath}${path}: cannot reach the API server: ${err.message}`);
    e.cause = err;
    return e;
  }
}

function json(value: unknown): Body {
  return { data: JSON.stringify(value), contentType: 'application/json' };
}

function collect(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(new Error('the connection closed before the response ended'));
    });
  });
}

const reasons: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The Status reason Kubernetes uses for an HTTP code when the body carries none. */
export function reasonForCode(code: number): StatusReason {
  return reasons[code] ?? 'InternalError';
}
