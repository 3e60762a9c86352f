/**
 * Assembles and runs the generic API server: store, registry (built-ins + CRDs), REST
 * handlers, admission, authentication, RBAC, HTTPS (HTTP/2 and HTTP/1.1 on one port). What is Conductor's (its admission
 * plugins, its kinds, the controllers) comes through `ServerOptions.extend`: Conductor's
 * composition root (`src/conductor`) is what starts a whole Conductor.
 */
import type { AddressInfo } from 'node:net';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { openEtcdStore, openSqliteStore, type EtcdStore, type EtcdTlsOptions } from '../store/index.js';
import type { Store } from '../store/types.js';
import { isApiError } from '../machinery/errors.js';
import { AdmissionChain } from './admission/types.js';
import { NamespaceLifecycle, namespaceState, PROTECTED_NAMESPACES } from './admission/namespace-lifecycle.js';
import { PrefixCache } from './storage/prefix-cache.js';
import { ensureAdminCredentials, ensureAdminToken, ensurePki, tlsServerOptions, writeKubeconfig, type AdminCredentials, type Pki } from './auth/index.js';
import { setupAuthentication } from './authn-api/index.js';
import { impersonatedUser, setupAuthorization } from './authz/index.js';
import { accessReviewEndpoints, authorizationResourceTypes } from './authz-api/index.js';
import { builtinResourceTypes, objectMetaSchema, pruneKindResourceTypes } from './builtins/index.js';
import { CrdRegistrar } from './crd/crd-registrar.js';
import { Dispatcher, type DispatcherOptions } from './http/dispatcher.js';
import { StaticSite } from './http/static-site.js';
import { ApiDocuments, conductorGitVersion } from './docs/index.js';
import type { ServerExtender, ServerExtension, StartContext } from './extension.js';
import { LoopbackClient } from './loopback-client.js';
import { ResourceRegistry } from './registry/registry.js';
import { systemContext } from './rest/context.js';
import { RestHandlers } from './rest/handlers.js';
import { sweepFinishedDeletions } from './rest/finished-deletions.js';
import { ObjectStore } from './storage/object-store.js';
import { EncryptingStore, ensureKeySet, reencryptAll } from './encryption/index.js';
import { AuditLog, RequestAuditor } from './audit/index.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from './http/rate-limit.js';
import { createApiListener, type ApiListener } from './http/listener.js';
import { asksImpersonation, headersDistinct } from './http/protocol.js';
import { DEFAULT_MAX_WATCHES_PER_USER, WatchStreams } from './http/watch-streams.js';
import { VERSION } from '../version.js';
import { prepareDataDir } from './data-dir.js';
import { ApiServerMetrics, MetricsRegistry, type Sample } from '../metrics/index.js';
import type { CommitObserver, ReadObserver } from '../store/index.js';

/** Where an API server on etcd keeps its objects (instead of the data dir's SQLite file). */
export interface EtcdBackendOptions {
  /** Client URLs of the members: `http://host:port` or `https://host:port`. */
  endpoints: string[];
  tls?: EtcdTlsOptions;
  /** Prepended to every key: several Conductors (or other programs) may share one etcd. */
  keyPrefix?: string;
}

export interface ServerOptions {
  /** Certificates, keys, the kubeconfig, and (without `etcd`) the SQLite store. */
  dataDir: string;
  /** Keep the objects in this etcd cluster; several servers may share it. */
  etcd?: EtcdBackendOptions;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** More DNS names or IPs the serving certificate covers (a load balancer in front of several servers). */
  tlsSans?: string[];
  logger: Logger;
  /**
   * Told, as the start goes, what it waits for next (`etcd at http://…`, `store recovery (WAL
   * 120 MB)`, `CRDs established`, …), so a caller can say it when the start is slow.
   */
  onStartStep?: (waitingFor: string) => void;
  /** Store history retention (tests shorten it to provoke 410 Expired). */
  retention?: { minRevisions: number; minAgeMs: number };
  compactionIntervalMs?: number;
  maxBodyBytes?: number;
  bookmarkIntervalMs?: number;
  tokenFile?: string;
  /**
   * What the assembler adds: admission plugins, RBAC's claim and concrete kinds, what runs
   * beside the server (see extension.ts). Without it the server serves the Kubernetes API only.
   */
  extend?: ServerExtender;
  /** Append one JSON line per request to this file (the audit log); none when unset. */
  auditLog?: string;
  /** Per-user request rate limit over HTTP (system:masters exempt); ratePerSecond 0 turns it off. */
  rateLimit?: { ratePerSecond: number; burst: number };
  /** Non-watch requests not answered in time get a 504 (default 60 s). */
  requestTimeoutMs?: number;
  /** The longest a watch may last, whatever timeoutSeconds asks (default 3600 s). */
  maxWatchSeconds?: number;
  /** Re-encrypt stored Secrets not under the primary key after start (default true). */
  reencryptOnStart?: boolean;
  /** Extra routes for tests only (see DispatcherOptions.testOnlyRoutes); never set by the `conductor` command. */
  testOnlyRoutes?: DispatcherOptions['testOnlyRoutes'];
  /** The web dashboard's built files (index.html and hashed assets), served at `/ui/` without authentication; `/` redirects there. None when unset. */
  dashboardDir?: string;
  /** Concurrent watches one user may hold over HTTP (default 200; 0 = unlimited; system:masters exempt). */
  maxWatchesPerUser?: number;
  /** A watch whose client stopped reading is dropped (410) after missing this many events (default 1000). */
  maxPausedWatchEvents?: number;
  /** How long an ended watch may take to hand its last bytes to a client that does not read them (default 30 s). */
  watchLingerMs?: number;
  /** The registry `/metrics` serves; default a new one (with the process metrics) for this server. */
  metrics?: MetricsRegistry;
}

/** What the server holds for watches right now (diagnostics, tests, benchmarks). */
export interface WatchCounts {
  /** Open watch responses over HTTP. */
  streams: number;
  /** Users holding at least one of them. */
  users: number;
  /** Watchers open on the store (HTTP, loopback clients and the server's own caches). */
  storeWatchers: number;
}

export interface RunningServer {
  url: string;
  port: number;
  kubeconfigPath: string;
  store: Store;
  registry: ResourceRegistry;
  rest: RestHandlers;
  /** A loopback client with full rights, for in-process controllers. */
  client: LoopbackClient;
  /** This server's metrics (what `/metrics` serves). */
  metrics: MetricsRegistry;
  watchCounts(): WatchCounts;
  /**
   * Handles an exception that escaped to the process while a request was being served
   * (answers that request 500); false when it belongs to no request. See installLastResortHandler.
   */
  rescue: (err: unknown) => boolean;
  close(): Promise<void>;
}

/** The namespaces created at start; nobody may delete them (NamespaceLifecycle). */
const BOOTSTRAP_NAMESPACES = PROTECTED_NAMESPACES;

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const log = opts.logger;
  // How long each start-up step took, logged once the server is ready.
  const steps: Record<string, number> = {};
  let stepStart = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    steps[name] = Math.round(now - stepStart);
    stepStart = now;
  };
  const waitingFor = (what: string) => opts.onStartStep?.(what);
  const dataDir = resolve(opts.dataDir);
  // Private (refused when others may write it), writable, and its files 0600.
  await prepareDataDir(dataDir);

  const metrics = opts.metrics ?? new MetricsRegistry();
  const apiMetrics = new ApiServerMetrics(metrics);
  waitingFor(opts.etcd ? `etcd at ${opts.etcd.endpoints.join(',')}` : await sqliteRecovery(dataDir));
  const { store, storeWatchers, walBytes, dbSizes } = await openStore(opts, dataDir, log, apiMetrics.storeObserver, apiMetrics.storeReadObserver);
  step('store');
  waitingFor('the encryption keys and interrupted deletions');
  const keys = await ensureKeySet(dataDir);
  const encrypted = new EncryptingStore(store, { keys, logger: log.child({ component: 'encryption' }) });
  // An object whose last finalizer went while its delete did not (a crash of an older
  // version between the two writes) would stay "being deleted" forever: finish it now.
  await sweepFinishedDeletions(store, log.child({ component: 'deletion' }), '/registry/', (kv) => encrypted.openKv(kv));
  step('finished deletions');
  const auditLog = opts.auditLog ? await AuditLog.toFile(resolve(opts.auditLog), { logger: log.child({ component: 'audit' }) }) : undefined;
  // Authentication needs the admin token now; only the listener and the kubeconfig need the
  // keys and certificates, whose making (three RSA keys on a new data dir, hundreds of ms on the
  // thread pool) overlaps the rest of the start. A start failing before they are awaited
  // must not leave their failure unhandled.
  waitingFor('the admin token');
  const adminToken = await ensureAdminToken(dataDir);
  const pkiReady = ensurePki(dataDir, opts.host, { extraSans: opts.tlsSans });
  // The admin's key is made beside the CA's (a new data dir); only its signing waits for the CA.
  const adminReady = ensureAdminCredentials(dataDir, pkiReady);
  const credentials = Promise.all([pkiReady, adminReady]).then(([pki, admin]) => ({ pki, admin }));
  credentials.catch(() => undefined);
  // A failed start waits for both before it returns: a start that follows on the same data dir
  // must not find the CA's key written and its certificate not yet ("cannot load the CA").
  const credentialsSettled = (): Promise<unknown> => Promise.allSettled([pkiReady, adminReady]);
  step('admin token');

  const registry = new ResourceRegistry();
  registry.replaceSource('builtin', [...builtinResourceTypes(), ...pruneKindResourceTypes()]);
  const objects = new ObjectStore(encrypted);
  // What admission asks on every create, kept in memory: which namespaces exist (and are not
  // terminating).
  const namespaceCache = new PrefixCache(encrypted, objects.resourcePrefix({ group: '', resource: 'namespaces' }), { project: namespaceState, logger: log });
  waitingFor('the namespace and admission caches');
  await namespaceCache.start();
  let extension: ServerExtension;
  try {
    extension = (await opts.extend?.({ objects, registry, store: encrypted, logger: log })) ?? {};
  } catch (err) {
    namespaceCache.stop();
    await auditLog?.close();
    await store.close();
    await credentialsSettled();
    throw err;
  }
  step('extension');
  const admission = new AdmissionChain();
  admission.addValidating(new NamespaceLifecycle(objects, registry, namespaceCache));
  for (const plugin of extension.mutating ?? []) admission.addMutating(plugin);
  for (const plugin of extension.validating ?? []) admission.addValidating(plugin);
  // RBAC (see authz): decisions from an in-memory index; writes of roles and bindings may not escalate.
  const authz = setupAuthorization(extension.rbac);
  admission.addValidating(authz.escalation);
  admission.addValidating(authz.secretReferences);
  const rest = new RestHandlers({ objects, admission });
  const authorizer = authz.authorizer;
  registry.replaceSource('authorization', authorizationResourceTypes());
  // Client certificates, the admin token, the token file and ServiceAccount tokens (see authn-api).
  waitingFor('authentication');
  const authn = await setupAuthentication({ dataDir, registry, rest, adminToken, tokenFile: opts.tokenFile });
  registry.replaceSource('authentication', authn.resourceTypes);
  step('authentication');

  let ready = false;
  let serverUrl = '';
  const docs = new ApiDocuments(() => registry.all(), { serverAddress: () => serverUrl.replace(/^https:\/\//, ''), gitVersion: conductorGitVersion(VERSION) });
  registry.onChange(() => docs.invalidate());
  apiMetrics.storeGauges({ walBytes, dbSizes, watchers: storeWatchers, objectCounts: objectCounter(store, registry, objects) });
  const watchStreams = new WatchStreams({ maxPerUser: opts.maxWatchesPerUser ?? DEFAULT_MAX_WATCHES_PER_USER, lingerMs: opts.watchLingerMs });
  const dispatcher = new Dispatcher({
    watchStreams,
    registry,
    rest,
    docs,
    authorizer,
    logger: log.child({ component: 'http' }),
    maxBodyBytes: opts.maxBodyBytes,
    audit: auditLog ? new RequestAuditor(auditLog, undefined, log.child({ component: 'audit' })) : undefined,
    rateLimiter: new RateLimiter(opts.rateLimit ?? DEFAULT_RATE_LIMIT),
    requestTimeoutMs: opts.requestTimeoutMs,
    maxWatchSeconds: opts.maxWatchSeconds,
    watch: { bookmarkIntervalMs: opts.bookmarkIntervalMs },
    ready: () => ready,
    readinessChecks: store.checkReachable ? { etcd: () => store.checkReachable!() } : undefined,
    authenticate: (req) => authn.authenticator.authenticateRequestAsync(req),
    endpoints: [...authn.endpoints, ...accessReviewEndpoints({ authorizer, index: authz.index })],
    readSubresources: extension.readSubresources,
    // Most requests impersonate nobody: their raw header names are checked before any copy is made.
    impersonate: (req, user) => (asksImpersonation(req) ? impersonatedUser(headersDistinct(req), user, authorizer) : user),
    testOnlyRoutes: opts.testOnlyRoutes,
    metrics: { api: apiMetrics, registry: metrics },
    site: opts.dashboardDir ? new StaticSite('/ui/', opts.dashboardDir) : undefined,
  });

  waitingFor('the system namespaces');
  await bootstrapNamespaces(rest, registry);
  step('namespaces');
  waitingFor('the CRDs stored to be served');
  const crdType = registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  const crds = new CrdRegistrar(registry, rest, crdType, objectMetaSchema, log.child({ component: 'crd' }));
  await crds.start();
  step('crd registrar');

  const client = new LoopbackClient(
    registry,
    rest,
    authorizer,
    { name: 'system:conductor', groups: ['system:masters', 'system:authenticated'] },
    'conductor-controller',
    { bookmarkIntervalMs: opts.bookmarkIntervalMs },
  );
  const closing = new AbortController();
  const startContext: StartContext = { client, registry, logger: log, signal: closing.signal, metrics };
  // A start that fails from here on stops what it started, so the caller may report and go on.
  const abandon = async (): Promise<void> => {
    closing.abort();
    await extension.stop?.().catch((err: unknown) => log.error({ err }, 'cannot stop what the extension started'));
    authz.stop();
    crds.stop();
    namespaceCache.stop();
    await auditLog?.close();
    await store.close();
    await credentialsSettled();
  };
  let listener: ApiListener;
  let tls: { pki: Pki; admin: AdminCredentials };
  try {
    waitingFor('the core controllers and the CRDs to be established');
    await extension.beforeReady?.(startContext);
    step('before ready');
    waitingFor('the RBAC cache');
    await authz.start(client, { logger: log.child({ component: 'rbac' }) });
    step('rbac');
    waitingFor('the serving keys and certificates');
    tls = await credentials;
    step('keys and certificates');
    waitingFor(`the listener on ${opts.host}:${opts.port}`);
    // HTTP/2 and HTTP/1.1 by ALPN. Receiving a request (headers, then body) is bounded;
    // handling is bounded in the dispatcher (watches by timeoutSeconds); idle connections are closed.
    listener = createApiListener({ tls: tlsServerOptions(tls.pki), handler: dispatcher.handle, logger: log.child({ component: 'http' }) });
    await listener.listen(opts.port, opts.host);
  } catch (err) {
    await abandon();
    throw err;
  }
  const port = (listener.server.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  serverUrl = `https://${hostForUrl}:${port}`;
  const kubeconfigPath = await writeKubeconfig(dataDir, {
    server: serverUrl,
    caPem: tls.pki.caCertPem,
    token: tls.admin.token,
    clientCertPem: tls.admin.certPem,
    clientKeyPem: tls.admin.keyPem,
  });
  step('listen');
  ready = true;
  log.debug({ steps }, 'start-up steps (ms)');

  // Storage migration: Secrets still under an older key (or plain, from before encryption)
  // are rewritten under the primary key in the background.
  const migration = new AbortController();
  const reencrypting =
    opts.reencryptOnStart === false
      ? Promise.resolve()
      : reencryptAll(encrypted, { logger: log.child({ component: 'encryption' }), signal: migration.signal })
          .then(() => undefined)
          .catch((err: unknown) => {
            if (!migration.signal.aborted) log.error({ err }, 'cannot re-encrypt stored secrets under the primary key');
          });

  let closed = false;
  // What runs beside the server (Conductor's controllers) starts once it is ready: clients like any other.
  const afterReady = (extension.afterReady?.(startContext) ?? Promise.resolve()).catch((err: unknown) => {
    if (!closed) log.error({ err }, 'cannot start what runs beside the API server');
  });
  return {
    url: serverUrl,
    port,
    kubeconfigPath,
    store: encrypted,
    registry,
    rest,
    client,
    metrics,
    watchCounts: () => ({ streams: watchStreams.size, users: watchStreams.users, storeWatchers: storeWatchers() }),
    rescue: (err) => dispatcher.rescue(err),
    async close() {
      if (closed) return;
      closed = true;
      ready = false;
      // No new connections, a GOAWAY on every HTTP/2 connection; every open watch ends with
      // its terminating chunk (or the end of its stream), so clients see a normal end of
      // stream rather than a cut connection.
      const listenerClosed = listener.close();
      listener.closeIdle();
      await watchStreams.stop();
      migration.abort();
      closing.abort();
      await reencrypting;
      await afterReady;
      await extension.stop?.();
      authz.stop();
      crds.stop();
      namespaceCache.stop();
      listener.closeIdle();
      // Requests still being answered get a moment; then every connection goes.
      const cut = setTimeout(() => listener.destroyAll(), 200);
      cut.unref();
      await listenerClosed;
      clearTimeout(cut);
      await auditLog?.close();
      await store.close();
    },
  };
}

/** openStore opens the etcd store when `opts.etcd` says so, else the data dir's SQLite file. */
/** What opening the SQLite store waits for: recovery of its write-ahead log, sized when there is one. */
async function sqliteRecovery(dataDir: string): Promise<string> {
  const wal = await stat(join(dataDir, 'state.db-wal')).catch(() => undefined);
  return wal && wal.size > 0 ? `store recovery (state.db, WAL ${(wal.size / 1e6).toFixed(wal.size < 1e7 ? 1 : 0)} MB)` : 'the store (state.db)';
}

async function openStore(
  opts: ServerOptions,
  dataDir: string,
  log: Logger,
  observer: CommitObserver,
  readObserver: ReadObserver,
): Promise<{ store: Store; storeWatchers: () => number; walBytes?: () => number; dbSizes?: () => Promise<DbSize[]> }> {
  const common = {
    retention: opts.retention,
    compactionIntervalMs: opts.compactionIntervalMs,
    maxPausedWatchEvents: opts.maxPausedWatchEvents,
    logger: log.child({ component: 'store' }),
  };
  if (opts.etcd) {
    // Other servers write too: follow their revisions so resourceVersions they hand out are
    // known here; gets come from the watch cache, consistent with every server's writes.
    const store = await openEtcdStore({ ...common, ...opts.etcd, followRevisions: true, watchCache: true, observer, readObserver });
    return { store, storeWatchers: () => store.watcherCount(), dbSizes: etcdDbSizes(store) };
  }
  const store = openSqliteStore({ ...common, observer, path: join(dataDir, 'state.db') });
  return { store, storeWatchers: () => store.stats().watchers, walBytes: () => store.walBytes() };
}

/** One etcd member's database size, for /metrics. */
interface DbSize {
  endpoint: string;
  bytes: number;
  inUseBytes: number;
}

/** How long the etcd members' database sizes are reused between scrapes. */
const DB_SIZE_TTL_MS = 10_000;

/** etcdDbSizes asks every etcd member for its database size when scraped, at most every 10 s. */
function etcdDbSizes(store: EtcdStore): () => Promise<DbSize[]> {
  let last: { at: number; sizes: Promise<DbSize[]> } | undefined;
  const read = async (): Promise<DbSize[]> => {
    const sizes: DbSize[] = [];
    for (const m of await store.memberStatuses()) {
      if ('status' in m) sizes.push({ endpoint: m.url, bytes: m.status.dbSize, inUseBytes: m.status.dbSizeInUse });
    }
    return sizes;
  };
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= DB_SIZE_TTL_MS) {
      last = { at: now, sizes: read() };
      last.sizes.catch(() => (last = undefined));
    }
    return last.sizes;
  };
}

/** How long the counts of stored objects per resource are reused between scrapes. */
const OBJECT_COUNT_TTL_MS = 10_000;

/**
 * objectCounter counts the stored objects of every served resource (one indexed count per
 * resource on SQLite, one count request on etcd) when scraped, at most every 10 s: never on a
 * request's path.
 */
function objectCounter(store: Store, registry: ResourceRegistry, objects: ObjectStore): () => Promise<Sample[]> {
  let last: { at: number; samples: Promise<Sample[]> } | undefined;
  const count = async (): Promise<Sample[]> => {
    const seen = new Set<string>();
    const samples: Sample[] = [];
    for (const rt of registry.all()) {
      if (!rt.verbs.includes('list')) continue;
      const resource = rt.group ? `${rt.resource}.${rt.group}` : rt.resource;
      if (seen.has(resource)) continue;
      seen.add(resource);
      samples.push({ labels: { resource }, value: await store.count(objects.resourcePrefix(rt)) });
    }
    return samples;
  };
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= OBJECT_COUNT_TTL_MS) {
      last = { at: now, samples: count() };
      last.samples.catch(() => (last = undefined));
    }
    return last.samples;
  };
}

async function bootstrapNamespaces(rest: RestHandlers, registry: ResourceRegistry): Promise<void> {
  const nsType = registry.get('', 'v1', 'namespaces')!;
  const ctx = systemContext('system:bootstrap');
  for (const name of BOOTSTRAP_NAMESPACES) {
    try {
      await rest.create(
        ctx,
        nsType,
        undefined,
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        {
          dryRun: false,
          fieldManager: 'conductor-bootstrap',
          fieldValidation: 'Strict',
        },
      );
    } catch (err) {
      if (!(isApiError(err) && err.reason === 'AlreadyExists')) throw err;
    }
  }
}
