/**
 * The HTTP front of the API server: authenticate → route → authorize → handle, writing
 * JSON, Tables, discovery documents and watch streams, and Status objects for every error.
 */
import { warningHeaderValue } from './warning-header.js';
import { closeConnectionHeaders, streamingHeaders } from './protocol.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { ApiError, errors, isApiError, type Status } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import type { Authorizer, AuthorizationAttributes } from '../authz/types.js';
import { forbiddenMessage } from '../authz/types.js';
import type { ResourceRegistry } from '../registry/registry.js';
import type { ResourceType } from '../registry/resource-type.js';
import type { RequestContext, UserInfo } from '../rest/context.js';
import type { ListResult, RestHandlers } from '../rest/handlers.js';
import type { LazyObject } from '../rest/lazy-object.js';
import { parseDeleteParams, parseListParams, parsePatchParams, parseWatchParams, parseWriteParams, watchRequested } from '../rest/params.js';
import { toTable, type IncludeObject } from '../rest/table.js';
import { startWatch, type WatchOptions } from '../rest/watch.js';
import { decodeBody, DEFAULT_MAX_BODY_BYTES, patchTypeOf, readBody } from './body.js';
import { responseShape, type ResponseShape } from './negotiate.js';
import { parsePath, type ResourcePath } from './paths.js';
import type { RequestAuditor } from '../audit/index.js';
import type { ApiServerMetrics, MetricsRegistry, MetricVerb, RequestScope, RequestSeries } from '../../metrics/index.js';
import { healthAnswer, type HealthChecks } from './health.js';
import { StorageFullError, StoreError } from '../../store/index.js';
import { storageFull } from '../storage/object-store.js';
import type { RateLimiter } from './rate-limit.js';
import { DEFAULT_MAX_WATCHES_PER_USER, WatchStreams } from './watch-streams.js';
import { requestUrl, type RequestUrl } from './request-url.js';
import { writeListBody } from './list-body.js';
import type { StaticSite } from './static-site.js';
import {
  discoveryContentType,
  etagMatches,
  negotiateDiscovery,
  negotiateOpenApiV2,
  OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
  type ApiDocuments,
} from '../docs/index.js';

/**
 * A CreateEndpoint serves a resource or subresource that is computed, not stored (reviews, token
 * requests): only POST, answered with the object `create` returns. A subresource endpoint needs a
 * name in the path (`serviceaccounts/<name>/token`), a resource endpoint must not have one.
 */
export interface CreateEndpoint {
  group: string;
  resource: string;
  /** '' for the resource itself. */
  subresource: string;
  /** False when every authenticated user may call it without asking the authorizer (self reviews). */
  authorize: boolean;
  create(
    ctx: RequestContext,
    target: { namespace: string | undefined; name: string | undefined },
    body: unknown,
    query: URLSearchParams,
  ): Promise<{ code: number; object: unknown }>;
}

/**
 * A ReadSubresource is a subresource read with GET and answered by a stream rather than an
 * object (`<resource>/<name>/log`): which resources serve it is the server assembler's
 * business. It is authorized as `get` on `<resource>/<subresource>`; `serve` writes the whole
 * response (headers included), or throws an ApiError before writing anything.
 */
export interface ReadSubresource {
  subresource: string;
  /** Whether the resource `group`/`resource` serves this subresource. */
  serves(group: string, resource: string): boolean;
  serve(
    ctx: RequestContext,
    rt: ResourceType,
    target: { namespace: string | undefined; name: string },
    query: URLSearchParams,
    res: ServerResponse,
  ): Promise<void>;
  /** True when the request may stay open past the request timeout (a followed log). */
  longRunning(query: URLSearchParams): boolean;
}

export interface DispatcherOptions {
  registry: ResourceRegistry;
  /** Subresources read as a stream (see ReadSubresource). */
  readSubresources?: readonly ReadSubresource[];
  rest: RestHandlers;
  docs: ApiDocuments;
  authenticate(req: IncomingMessage): UserInfo | undefined | Promise<UserInfo | undefined>;
  /** The user a request runs as when it carries Impersonate-* headers (see authz/impersonation.ts). */
  impersonate?(req: IncomingMessage, user: UserInfo): UserInfo | Promise<UserInfo>;
  /** Computed resources and subresources (see CreateEndpoint). */
  endpoints?: CreateEndpoint[];
  authorizer: Authorizer;
  logger: Logger;
  maxBodyBytes?: number;
  watch?: WatchOptions;
  /** Records one audit entry per request (see ../audit). */
  audit?: RequestAuditor;
  /** Per-user request rate limit (see rate-limit.ts). */
  rateLimiter?: RateLimiter;
  /** Non-watch requests not answered within this many ms get a 504 (default 60 s; 0 = none). */
  requestTimeoutMs?: number;
  /** Longer request URLs get a 414 (default 16 KiB). */
  maxUrlBytes?: number;
  /** Watches end after at most this long, whatever timeoutSeconds asks (default 1 h). */
  maxWatchSeconds?: number;
  /** The open watch responses: per-user limit, flow control, clean end on stop (see watch-streams.ts). */
  watchStreams?: WatchStreams;
  /** False until the server is ready to serve (readyz). */
  ready(): boolean;
  /**
   * Checks `/readyz` runs once the server is ready, by name (`etcd`): each resolves to
   * undefined when fine, else why not; any failure answers 503 naming the check.
   */
  readinessChecks?: Record<string, () => Promise<string | undefined>>;
  /** The server's metrics: requests are counted into `api`, `/metrics` renders `registry`. */
  metrics?: { api: ApiServerMetrics; registry: MetricsRegistry };
  /**
   * Extra routes by exact path, served after authentication, for tests only (a route that
   * throws proves the last-resort handler). The `conductor` command never sets it.
   */
  testOnlyRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => unknown>;
  /**
   * Files served without authentication under their prefix (the dashboard's shell at `/ui/`);
   * `GET /` redirects there. Its data calls are ordinary API requests.
   */
  site?: StaticSite;
}

/** The request whose handling is running, across its callbacks, timers and promises. */
interface InFlight {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request's metrics series, once routing knows its verb and resource. */
  series: RequestSeries | undefined;
}

const JSON_TYPE = 'application/json';
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_URL_BYTES = 16 * 1024;
export const DEFAULT_MAX_WATCH_SECONDS = 3600;
/** Lists up to this many items are sent in one piece; longer ones are streamed. */
const SMALL_LIST = 500;
/** The size of each streamed piece of a long list. */
const LIST_CHUNK_BYTES = 256 * 1024;

export class Dispatcher {
  private readonly watchStreams: WatchStreams;
  private readonly inFlight = new AsyncLocalStorage<InFlight>();

  /** `/livez` (and `/healthz`): the process answers. */
  private readonly livenessChecks: HealthChecks = [['ping', () => undefined]];
  /** `/readyz`: started and not stopping, then the given checks (`etcd`). */
  private readonly readinessChecks: HealthChecks;

  constructor(private readonly o: DispatcherOptions) {
    this.watchStreams = o.watchStreams ?? new WatchStreams({ maxPerUser: DEFAULT_MAX_WATCHES_PER_USER });
    this.readinessChecks = [
      ['ping', () => undefined],
      ['started', () => (o.ready() ? undefined : 'not ready: starting or stopping')],
      ...Object.entries(o.readinessChecks ?? {}),
    ];
  }

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    const current: InFlight = { req, res, series: undefined };
    const metrics = this.o.metrics?.api;
    const started = metrics ? performance.now() : 0;
    const kind = metrics ? (req.method === 'GET' || req.method === 'HEAD' ? metrics.readOnly : metrics.mutating) : undefined;
    if (kind) kind.value++;
    this.inFlight.run(current, () => {
      let timer: NodeJS.Timeout | undefined;
      // Listeners of the request and response run in the connection's context, not the
      // request's: an exception in one (the audit log's 'finish', a watch's 'close') is caught here.
      guardListeners(req, (err) => this.lastResort(req, res, err));
      guardListeners(res, (err) => this.lastResort(req, res, err));
      try {
        this.o.audit?.begin(req, res);
        const timeoutMs = this.o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
        // Watches are long-running: their lifetime is bounded by timeoutSeconds instead.
        timer =
          timeoutMs > 0 && !looksLikeWatch(req.url ?? '') && !this.longRunningRead(req.url ?? '')
            ? setTimeout(() => this.timedOut(res, timeoutMs), timeoutMs)
            : undefined;
        this.serve(req, res, current)
          .catch((err: unknown) => this.fail(res, err))
          .catch((err: unknown) => this.lastResort(req, res, err))
          .finally(() => {
            clearTimeout(timer);
            if (metrics) this.counted(metrics, current, kind!, started);
          });
      } catch (err) {
        clearTimeout(timer);
        this.lastResort(req, res, err);
        if (metrics) this.counted(metrics, current, kind!, started);
      }
    });
  };

  /** True for a read subresource that may stay open (a followed log): bounded by its client, not the timeout. */
  private longRunningRead(rawUrl: string): boolean {
    const subs = this.o.readSubresources;
    if (!subs?.length) return false;
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
    return subs.some((r) => path.endsWith(`/${r.subresource}`) && r.longRunning(query));
  }

  /**
   * rescue handles an exception that escaped to the process (an uncaught exception or
   * rejection) while a request was being served — thrown in one of its callbacks, timers or
   * event listeners: that request is answered 500 (or its response ended) and the server
   * goes on. It returns false when the exception belongs to no request.
   */
  rescue(err: unknown): boolean {
    const current = this.inFlight.getStore();
    if (!current) return false;
    this.lastResort(current.req, current.res, err);
    return true;
  }

  /**
   * lastResort answers a request whose handling threw where no handler caught it: a 500
   * Status when nothing was sent yet, otherwise the response is ended (cut when even that
   * fails). It logs and never throws.
   */
  private lastResort(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    try {
      this.o.logger.error(
        { err, method: req.method, path: (req.url ?? '').split('?')[0].slice(0, 512) },
        'unexpected exception while serving a request; the request is answered 500 and the server goes on',
      );
      if (!res.headersSent) {
        const status = errors.internal(err instanceof Error ? err.message : String(err)).status;
        const body = JSON.stringify(status);
        res.writeHead(500, {
          'Content-Type': JSON_TYPE,
          'Content-Length': Buffer.byteLength(body),
          'Cache-Control': 'no-cache, private',
          ...closeConnectionHeaders(req),
        });
        res.end(body);
      } else if (!res.writableEnded) {
        res.end();
      }
    } catch {
      res.destroy();
    }
  }

  /**
   * counted records a request whose handling ended (a watch: whose stream started): its code
   * (0 when nothing was sent), its latency, and one request fewer in flight.
   */
  private counted(metrics: ApiServerMetrics, current: InFlight, kind: { value: number }, started: number): void {
    kind.value--;
    const { req, res } = current;
    const series = current.series ?? metrics.nonResource(req.method ?? 'GET');
    series.done(res.headersSent ? res.statusCode : 0, (performance.now() - started) / 1000);
  }

  private timedOut(res: ServerResponse, ms: number): void {
    if (res.headersSent || res.writableEnded) return;
    this.o.logger.warn({ timeoutMs: ms }, 'a request did not complete in time');
    this.fail(res, errors.timeout(`Timeout: request did not complete within the allowed duration of ${ms / 1000} s`));
  }

  private async serve(req: IncomingMessage, res: ServerResponse, current: InFlight): Promise<void> {
    const maxUrl = this.o.maxUrlBytes ?? DEFAULT_MAX_URL_BYTES;
    if ((req.url ?? '').length > maxUrl) {
      throw new ApiError(414, 'BadRequest', `the request URL is too long: ${(req.url ?? '').length} bytes, the limit is ${maxUrl}`);
    }
    checkPathSegments(req.url ?? '/');
    let url: RequestUrl;
    try {
      url = requestUrl(req.url ?? '/');
    } catch {
      throw errors.badRequest('the request URL is not valid');
    }
    const path = url.pathname;
    if (path === '/livez' || path === '/healthz' || path.startsWith('/livez/') || path.startsWith('/healthz/')) {
      const answer = await healthAnswer(path.startsWith('/healthz') ? 'healthz' : 'livez', path, url.searchParams, this.livenessChecks);
      return this.sendText(res, answer.code, answer.body);
    }
    if (path === '/readyz' || path.startsWith('/readyz/')) {
      // Today's short answer while starting or stopping (the checks run once ready).
      if (path === '/readyz' && !url.searchParams.has('verbose') && !this.o.ready()) return this.sendText(res, 503, 'not ready');
      const answer = await healthAnswer('readyz', path, url.searchParams, this.readinessChecks);
      return this.sendText(res, answer.code, answer.body);
    }
    if (this.o.site) {
      if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
        res.writeHead(302, { Location: this.o.site.prefix, 'Content-Length': 0 });
        res.end();
        return;
      }
      if (this.o.site.owns(path)) return this.o.site.serve(req, res, path);
    }
    const authenticated = await this.o.authenticate(req);
    if (!authenticated) throw errors.unauthorized();
    // Impersonation headers (kubectl --as) switch to another user once authorized.
    const user = this.o.impersonate ? await this.o.impersonate(req, authenticated) : authenticated;
    this.o.audit?.identify(req, user);
    const testOnly = this.o.testOnlyRoutes?.[path];
    if (testOnly) {
      await testOnly(req, res);
      return;
    }
    this.o.rateLimiter?.check(user);
    const ctx: RequestContext = { user, userAgent: String(req.headers['user-agent'] ?? ''), warnings: [] };
    const method = req.method ?? 'GET';
    const parsed = parsePath(path);

    if (parsed.type !== 'resource') {
      this.o.audit?.describe(req, { verb: method.toLowerCase(), group: '', version: '', resource: '', subresource: '', namespace: '', name: '' });
      if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed(`${method} is not supported on ${path}`);
      await this.authorize({ user, verb: 'get', resourceRequest: false, group: '', version: '', resource: '', subresource: '', namespace: '', name: '', path });
      if (path === '/metrics' && this.o.metrics) return this.serveMetrics(res, this.o.metrics.registry);
      return this.serveDocument(req, res, parsed, url);
    }
    return this.serveResource(req, res, ctx, parsed, url, current);
  }

  /** serveMetrics answers `/metrics`: every series in Prometheus' text format. */
  private async serveMetrics(res: ServerResponse, registry: MetricsRegistry): Promise<void> {
    const body = await registry.text();
    res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache, private' });
    res.end(body);
  }

  private serveDocument(req: IncomingMessage, res: ServerResponse, parsed: ReturnType<typeof parsePath>, url: RequestUrl): void {
    const docs = this.o.docs;
    const accept = String(req.headers.accept ?? '');
    switch (parsed.type) {
      case 'api-versions':
      case 'api-groups': {
        const which = parsed.type === 'api-versions' ? 'api' : 'apis';
        const format = negotiateDiscovery(accept);
        if (format !== 'legacy') {
          const doc = docs.aggregatedSerialized(which, format);
          return this.sendJson(res, 200, doc.json, discoveryContentType(format), { Etag: `"${doc.hash}"`, Vary: 'Accept' });
        }
        return this.sendJson(res, 200, JSON.stringify(which === 'api' ? docs.apiVersions() : docs.apiGroupList()), JSON_TYPE, { Vary: 'Accept' });
      }
      case 'api-group': {
        const g = docs.apiGroup(parsed.group);
        if (!g) throw errors.pathNotFound(url.pathname);
        return this.sendJson(res, 200, JSON.stringify(g));
      }
      case 'resource-list': {
        const l = docs.apiResourceList(parsed.group, parsed.version);
        if (!l) throw errors.pathNotFound(url.pathname);
        return this.sendJson(res, 200, JSON.stringify(l));
      }
      case 'other':
        break;
      default:
        break;
    }
    const p = url.pathname;
    if (p === '/version' || p === '/version/') return this.sendJson(res, 200, JSON.stringify(docs.version()));
    if (p === '/openapi/v2') {
      // As Kubernetes: JSON or gnostic protobuf by Accept, one ETag for both, 304 on If-None-Match.
      const format = negotiateOpenApiV2(accept);
      if (!format) throw errors.notAcceptable(`/openapi/v2 is served as application/json or ${OPENAPI_V2_PROTOBUF_CONTENT_TYPE}`);
      const doc = format === 'json' ? docs.openApiV2Serialized() : docs.openApiV2Protobuf();
      const headers = { Etag: `"${doc.hash}"`, Vary: 'Accept', 'Cache-Control': 'no-cache, private' };
      if (etagMatches(req.headers['if-none-match'], doc.hash)) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      if ('json' in doc) return this.sendJson(res, 200, doc.json, JSON_TYPE, headers);
      res.writeHead(200, {
        ...headers,
        'Content-Type': OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
        'Content-Length': doc.bytes.length,
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(doc.bytes);
      return;
    }
    if (p === '/openapi/v3' || p === '/openapi/v3/') return this.sendJson(res, 200, JSON.stringify(docs.openApiV3Index()));
    if (p.startsWith('/openapi/v3/')) {
      const answer = docs.openApiV3Answer(p.slice('/openapi/v3/'.length), url.searchParams.get('hash') ?? undefined);
      if (answer.status === 404) throw errors.pathNotFound(p);
      if (answer.status === 301) {
        res.writeHead(301, { Location: answer.location, 'Content-Length': 0 });
        res.end();
        return;
      }
      return this.sendJson(res, 200, answer.json, JSON_TYPE, {
        Etag: `"${answer.hash}"`,
        'Cache-Control': answer.immutable ? 'public, immutable' : 'no-cache, private',
      });
    }
    throw errors.pathNotFound(p);
  }

  private async serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    p: ResourcePath,
    url: RequestUrl,
    current: InFlight,
  ): Promise<void> {
    const rt = this.o.registry.get(p.group, p.version, p.resource);
    if (!rt) throw errors.pathNotFound(url.pathname);
    this.o.audit?.describe(req, auditAttributes(req, rt, p, url));
    if (p.namespace !== undefined && !rt.namespaced) throw errors.pathNotFound(url.pathname);
    const endpoint = this.o.endpoints?.find((e) => e.group === rt.group && e.resource === rt.resource && e.subresource === p.subresource);
    if (endpoint) return this.serveEndpoint(req, res, ctx, rt, p, url, endpoint);
    const readable = p.subresource ? this.o.readSubresources?.find((r) => r.subresource === p.subresource && r.serves(rt.group, rt.resource)) : undefined;
    if (readable) return this.serveReadSubresource(req, res, ctx, rt, p, url, readable);
    if (p.subresource && !this.servesSubresource(rt, p.subresource)) throw errors.pathNotFound(url.pathname);
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const isWatch = p.watchPrefix || watchRequested(q);
    const verb = verbOf(method, p.name !== undefined, isWatch);
    if (!verb) throw errors.methodNotAllowed(`${method} is not supported on ${url.pathname}`);
    if (!rt.verbs.includes(verb)) throw errors.methodNotAllowed(rt.refusedVerbMessage ?? `${verb} is not supported on ${rt.resource}`);
    if (p.subresource && !['get', 'update', 'patch'].includes(verb)) {
      throw errors.methodNotAllowed(`${method} is not supported on the ${p.subresource} subresource`);
    }
    if (this.o.metrics) {
      const scope: RequestScope = p.name !== undefined ? 'resource' : p.namespace !== undefined ? 'namespace' : 'cluster';
      current.series = this.o.metrics.api.series(rt, metricVerb(verb, req), p.subresource ?? '', scope);
    }
    await this.authorize({
      user: ctx.user,
      verb,
      resourceRequest: true,
      group: rt.group,
      version: rt.version,
      resource: rt.resource,
      subresource: p.subresource,
      namespace: p.namespace ?? '',
      name: p.name ?? '',
      path: url.pathname,
    });
    const shape = responseShape(req.headers.accept);
    const ns = p.namespace;
    const userAgent = ctx.userAgent;
    const rest = this.o.rest;
    const limit = this.o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

    switch (verb) {
      case 'get': {
        const item = await rest.get(rt, ns, p.name!);
        return this.sendObject(res, ctx, 200, rt, item, shape, q);
      }
      case 'list': {
        const list = await rest.list(rt, ns, parseListParams(q));
        return this.sendList(res, ctx, rt, list, shape, q);
      }
      case 'watch':
        return this.serveWatch(req, res, ctx, rt, ns, q, shape);
      case 'create': {
        const params = parseWriteParams(q, userAgent);
        const body = await this.body(req, limit);
        const item = await rest.createForResponse(ctx, rt, ns, body, params);
        return this.sendObject(res, ctx, params.dryRun ? 200 : 201, rt, item, shape, q);
      }
      case 'update': {
        const params = parseWriteParams(q, userAgent);
        const body = await this.body(req, limit);
        const obj = await rest.update(ctx, rt, ns, p.name!, body, p.subresource, params);
        return this.sendKObject(res, ctx, 200, rt, obj, shape, q);
      }
      case 'patch': {
        const type = patchTypeOf(req.headers['content-type']);
        const params = parsePatchParams(q, userAgent);
        const body = await this.body(req, limit);
        const { obj, created } = await rest.patch(ctx, rt, ns, p.name!, type, body, p.subresource, params);
        return this.sendKObject(res, ctx, created ? 201 : 200, rt, obj, shape, q);
      }
      case 'delete': {
        const raw = await readBody(req, limit);
        const body = raw.length ? decodeBody(raw, req.headers['content-type'] ?? JSON_TYPE, { allowEmpty: true }) : undefined;
        const params = parseDeleteParams(q, body);
        const { obj, deleted } = await rest.delete(ctx, rt, ns, p.name!, params);
        return this.sendKObject(res, ctx, deleted ? 200 : 200, rt, obj, shape, q);
      }
      case 'deletecollection': {
        const raw = await readBody(req, limit);
        const body = raw.length ? decodeBody(raw, req.headers['content-type'] ?? JSON_TYPE, { allowEmpty: true }) : undefined;
        const list = await rest.deleteCollection(ctx, rt, ns, parseListParams(q), parseDeleteParams(q, body));
        return this.sendList(res, ctx, rt, list, shape, q);
      }
    }
  }

  private async serveEndpoint(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    rt: ResourceType,
    p: ResourcePath,
    url: RequestUrl,
    e: CreateEndpoint,
  ): Promise<void> {
    if (p.watchPrefix || (e.subresource === '') !== (p.name === undefined)) throw errors.pathNotFound(url.pathname);
    const method = req.method ?? 'GET';
    if (method !== 'POST') throw errors.methodNotAllowed(`${method} is not supported on ${url.pathname}, expected POST`);
    if (e.authorize) {
      await this.authorize({
        user: ctx.user,
        verb: 'create',
        resourceRequest: true,
        group: rt.group,
        version: rt.version,
        resource: rt.resource,
        subresource: p.subresource,
        namespace: p.namespace ?? '',
        name: p.name ?? '',
        path: url.pathname,
      });
    }
    const body = await this.body(req, this.o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    const { code, object } = await e.create(ctx, { namespace: p.namespace, name: p.name }, body, url.searchParams);
    this.sendJson(res, code, JSON.stringify(object), JSON_TYPE, warningHeaders(ctx));
  }

  private async serveReadSubresource(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    rt: ResourceType,
    p: ResourcePath,
    url: RequestUrl,
    r: ReadSubresource,
  ): Promise<void> {
    if (p.watchPrefix || p.name === undefined) throw errors.pathNotFound(url.pathname);
    const method = req.method ?? 'GET';
    if (method !== 'GET') throw errors.methodNotAllowed(`${method} is not supported on ${url.pathname}, expected GET`);
    await this.authorize({
      user: ctx.user,
      verb: 'get',
      resourceRequest: true,
      group: rt.group,
      version: rt.version,
      resource: rt.resource,
      subresource: r.subresource,
      namespace: p.namespace ?? '',
      name: p.name,
      path: url.pathname,
    });
    await r.serve(ctx, rt, { namespace: p.namespace, name: p.name }, url.searchParams, res);
  }

  private servesSubresource(rt: ResourceType, sub: string): boolean {
    if (sub === 'status') return rt.subresources.status;
    if (sub === 'finalize') return rt.group === '' && rt.resource === 'namespaces';
    return false;
  }

  private async body(req: IncomingMessage, limit: number): Promise<unknown> {
    const raw = await readBody(req, limit);
    return decodeBody(raw, req.headers['content-type']);
  }

  private async authorize(attrs: AuthorizationAttributes): Promise<void> {
    const d = await this.o.authorizer.authorize(attrs);
    if (!d.allowed) {
      throw errors.forbidden(
        forbiddenMessage(attrs, d.reason),
        attrs.resourceRequest ? { group: attrs.group, resource: attrs.resource } : undefined,
        attrs.name || undefined,
      );
    }
  }

  // ------------------------------------------------------------------ watch

  private async serveWatch(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    rt: ResourceType,
    ns: string | undefined,
    q: URLSearchParams,
    shape: ResponseShape,
  ): Promise<void> {
    const params = parseWatchParams(q);
    const maxWatch = this.o.maxWatchSeconds ?? DEFAULT_MAX_WATCH_SECONDS;
    if (params.timeoutSeconds > maxWatch) params.timeoutSeconds = maxWatch;
    const include = includeObjectParam(q);
    // Takes one of the user's watch slots (429 past the limit) until the stream ends.
    const counts = this.o.metrics?.api.watches(rt);
    const stream = this.watchStreams.start(ctx.user, req, res, () => {
      res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-cache, private', ...streamingHeaders(req) });
      res.flushHeaders();
      this.o.audit?.started(req, res);
    });
    const sink = {
      event: (type: string, obj: LazyObject) => {
        if (counts) counts.events.value++;
        if (type === 'BOOKMARK' || shape.as === 'object') return stream.write(obj.eventLine(type));
        const json =
          shape.as === 'table'
            ? JSON.stringify(this.table(rt, [obj.obj()], {}, include, shape.version))
            : JSON.stringify(partialMeta(obj.obj(), shape.version));
        stream.write(`{"type":"${type}","object":${json}}\n`);
      },
      error: (status: Status) => stream.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`),
      end: () => stream.end(),
      flowing: () => stream.flowing(),
      onDrain: (cb: () => void) => stream.onDrain(cb),
    };
    let watch: { stop(): void };
    try {
      watch = await startWatch(this.o.rest, rt, ns, params, sink, this.o.watch);
    } catch (err) {
      // Release the slot; the error is answered as a Status when nothing was sent yet.
      stream.abandon();
      throw err;
    }
    if (counts) {
      counts.open.value++;
      stream.whenEnded(() => {
        counts.open.value--;
        watch.stop();
      });
    } else {
      stream.whenEnded(() => watch.stop());
    }
    stream.ensureHeader();
  }

  // ------------------------------------------------------------------ output

  private table(rt: ResourceType, objs: KObject[], meta: object, include: IncludeObject, version: 'v1' | 'v1beta1') {
    const t = toTable(rt, objs, meta, include);
    return version === 'v1' ? t : { ...t, apiVersion: 'meta.k8s.io/v1beta1' };
  }

  private sendObject(
    res: ServerResponse,
    ctx: RequestContext,
    code: number,
    rt: ResourceType,
    item: LazyObject,
    shape: ResponseShape,
    q: URLSearchParams,
  ): void {
    if (shape.as === 'object') return this.sendJson(res, code, item.json(), JSON_TYPE, warningHeaders(ctx));
    return this.sendKObject(res, ctx, code, rt, item.obj(), shape, q);
  }

  private sendKObject(res: ServerResponse, ctx: RequestContext, code: number, rt: ResourceType, obj: KObject, shape: ResponseShape, q: URLSearchParams): void {
    let body: unknown = obj;
    if (shape.as === 'table' && obj.kind === rt.kind) body = this.table(rt, [obj], {}, includeObjectParam(q), shape.version);
    else if (shape.as === 'metadata') body = partialMeta(obj, shape.version);
    this.sendJson(res, code, JSON.stringify(body), JSON_TYPE, warningHeaders(ctx));
  }

  private sendList(res: ServerResponse, ctx: RequestContext, rt: ResourceType, list: ListResult, shape: ResponseShape, q: URLSearchParams): void {
    if (shape.as === 'table') {
      const t = this.table(
        rt,
        list.items.map((i) => i.obj()),
        list.metadata,
        includeObjectParam(q),
        shape.version,
      );
      return this.sendJson(res, 200, JSON.stringify(t), JSON_TYPE, warningHeaders(ctx));
    }
    if (shape.as === 'metadata') {
      const body = {
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${shape.version}`,
        metadata: list.metadata,
        items: list.items.map((i) => partialMeta(i.obj(), shape.version)),
      };
      return this.sendJson(res, 200, JSON.stringify(body), JSON_TYPE, warningHeaders(ctx));
    }
    const head = `{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`;
    if (list.items.length <= SMALL_LIST) {
      const parts: string[] = [head];
      for (let i = 0; i < list.items.length; i++) {
        if (i > 0) parts.push(',');
        parts.push(list.items[i].json());
      }
      parts.push(']}');
      return this.sendJson(res, 200, parts.join(''), JSON_TYPE, warningHeaders(ctx));
    }
    // A large list goes out in chunks as it is serialised, so the client receives while the
    // server still encodes, and no single huge string is built.
    res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff', ...warningHeaders(ctx) });
    writeListBody(res, head, list.items, LIST_CHUNK_BYTES);
  }

  private sendJson(res: ServerResponse, code: number, body: string, contentType = JSON_TYPE, headers: Record<string, string | string[]> = {}): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    res.writeHead(code, {
      'Content-Type': contentType,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-cache, private',
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    });
    res.end(body);
  }

  private sendText(res: ServerResponse, code: number, body: string): void {
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  private fail(res: ServerResponse, err: unknown): void {
    let apiErr: ApiError;
    if (isApiError(err)) apiErr = err;
    else if (causedByFullStorage(err)) apiErr = storageFull();
    else if (storeUnavailable(err)) {
      // etcd lost (a read or write the handlers did not map): temporary, say so and when to retry.
      this.o.logger.warn({ err }, 'storage unavailable while serving a request');
      apiErr = errors.serviceUnavailable(`storage is unavailable: ${storeUnavailable(err)}`);
    } else {
      this.o.logger.error({ err }, 'unexpected error while serving a request');
      apiErr = errors.internal(err instanceof Error ? err.message : String(err));
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    const headers: Record<string, string> = {};
    if ((apiErr.code === 429 || apiErr.code === 503) && apiErr.status.details?.retryAfterSeconds)
      headers['Retry-After'] = String(apiErr.status.details.retryAfterSeconds);
    if (apiErr.code === 401) headers['WWW-Authenticate'] = 'Bearer realm="conductor"';
    this.sendJson(res, apiErr.code, JSON.stringify(apiErr.status), JSON_TYPE, headers);
  }
}

/** The message of the StoreError('unavailable') that `err` is or was caused by, else undefined. */
function storeUnavailable(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 10; e = e.cause, i++) {
    if (e instanceof StoreError && e.code === 'unavailable') return e.message;
  }
  return undefined;
}

/** True when `err` or one of its causes is the store's full disk (a write path that did not map it). */
function causedByFullStorage(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 10; e = e.cause, i++) if (e instanceof StorageFullError) return true;
  return false;
}

/** Makes `emitter.emit` hand an exception thrown by a listener to `onError` instead of its caller. */
function guardListeners(emitter: EventEmitter, onError: (err: unknown) => void): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with .call(this), on the emitter
  const emit = emitter.emit;
  emitter.emit = function guardedEmit(this: EventEmitter, event: string | symbol, ...args: unknown[]): boolean {
    try {
      return emit.call(this, event, ...args);
    } catch (err) {
      onError(err);
      return true;
    }
  };
}

/** metricVerb is kube-apiserver's verb label for a request of RBAC verb `verb`: LIST, WATCH and APPLY apart from GET and PATCH. */
function metricVerb(verb: string, req: IncomingMessage): MetricVerb {
  switch (verb) {
    case 'get':
      return 'GET';
    case 'list':
      return 'LIST';
    case 'watch':
      return 'WATCH';
    case 'create':
      return 'POST';
    case 'update':
      return 'PUT';
    case 'patch':
      return req.headers['content-type'] === 'application/apply-patch+yaml' ? 'APPLY' : 'PATCH';
    case 'delete':
      return 'DELETE';
    case 'deletecollection':
      return 'DELETECOLLECTION';
    default:
      return 'other';
  }
}

function verbOf(method: string, named: boolean, watch: boolean): string | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return named ? 'get' : 'list';
    case 'POST':
      return named ? undefined : 'create';
    case 'PUT':
      return named ? 'update' : undefined;
    case 'PATCH':
      return named ? 'patch' : undefined;
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/**
 * Rejects request paths that URL normalisation would change or that smuggle separators:
 * `.` and `..` segments (also percent-encoded) and segments that decode to a `/` or a NUL
 * are 404 (they name nothing); segments that are not valid percent-encoded UTF-8 are 400.
 */
function checkPathSegments(rawUrl: string): void {
  const q = rawUrl.indexOf('?');
  const path = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
  if (!path.includes('%') && !path.includes('/.')) return;
  const segments = path.split('/');
  for (let i = 0; i < segments.length; i++) {
    let seg: string;
    try {
      seg = decodeURIComponent(segments[i]);
    } catch {
      throw errors.badRequest(`the request path is not valid: segment ${i} (${JSON.stringify(segments[i].slice(0, 100))}) is not valid percent-encoded UTF-8`);
    }
    // No resource is named so: answer as for any path that names nothing (404), before
    // URL normalisation could turn the path into another resource's.
    if (seg === '.' || seg === '..' || seg.includes('/') || seg.includes('\0')) throw errors.pathNotFound(path.slice(0, 200));
  }
}

/** True when the request URL asks for a watch (cheap check before parsing). */
function looksLikeWatch(url: string): boolean {
  return /[?&]watch=(true|1)(&|$)/.test(url) || url.includes('/watch/');
}

function auditAttributes(req: IncomingMessage, rt: ResourceType, p: ResourcePath, url: RequestUrl) {
  const method = req.method ?? 'GET';
  const watch = p.watchPrefix || watchRequested(url.searchParams);
  return {
    verb: verbOf(method, p.name !== undefined, watch) ?? (method === 'POST' ? 'create' : method.toLowerCase()),
    group: rt.group,
    version: rt.version,
    resource: rt.resource,
    subresource: p.subresource ?? '',
    namespace: p.namespace ?? '',
    name: p.name ?? '',
  };
}

function includeObjectParam(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'None' || v === 'Object') return v;
  throw errors.badRequest(`invalid value for query parameter "includeObject": ${JSON.stringify(v)} (expected None, Metadata or Object)`);
}

function partialMeta(obj: KObject, version: string): object {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

function warningHeaders(ctx: RequestContext): Record<string, string[]> {
  if (ctx.warnings.length === 0) return {};
  return { Warning: ctx.warnings.map(warningHeaderValue) };
}

export function peerCertificate(req: IncomingMessage): { cert: ReturnType<TLSSocket['getPeerCertificate']> | undefined; verified: boolean } {
  const sock = req.socket as TLSSocket;
  if (typeof sock.getPeerCertificate !== 'function') return { cert: undefined, verified: false };
  const cert = sock.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return { cert: undefined, verified: false };
  return { cert, verified: sock.authorized === true };
}
