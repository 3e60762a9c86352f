/**
 * Assembles and runs the API server: store, registry (built-ins + CRDs), REST handlers,
 * admission, authentication, HTTPS, and the in-process controllers the server needs to
 * honour the API contract (namespace lifecycle, garbage collection, CRD establishment).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { openSqliteStore } from '../store/index.js';
import type { Store } from '../store/types.js';
import { isApiError } from '../machinery/errors.js';
import { AdmissionChain } from './admission/types.js';
import { NamespaceLifecycle, namespaceState, PROTECTED_NAMESPACES } from './admission/namespace-lifecycle.js';
import { PrefixCache } from './storage/prefix-cache.js';
import { ClaimQuotaAdmission } from './admission/claim-quota.js';
import { ClaimProtectionAdmission } from './admission/claim-protection.js';
import { ClaimTypeIndex } from './admission/claim-types.js';
import { ProviderInUse } from './admission/provider-in-use.js';
import { BindingModeWarning } from './admission/binding-mode-warning.js';
import { MissingProviderWarning } from './admission/missing-provider-warning.js';
import { ensureAdminCredentials, ensurePki, tlsServerOptions, writeKubeconfig } from './auth/index.js';
import { setupAuthentication } from './authn-api/index.js';
import { impersonatedUser, setupAuthorization } from './authz/index.js';
import { accessReviewEndpoints, authorizationResourceTypes } from './authz-api/index.js';
import { builtinResourceTypes, objectMetaSchema } from './builtins/index.js';
import { CrdRegistrar } from './crd/crd-registrar.js';
import { Dispatcher, type DispatcherOptions } from './http/dispatcher.js';
import { ApiDocuments, conductorGitVersion } from './docs/index.js';
import { startCoreControllers } from '../controllers/core.js';
import type { RunningConductorControllers } from '../controllers/conductor.js';
import { claimKinds, concreteKinds, installCrds } from '../apis/index.js';
import { LoopbackClient } from './loopback-client.js';
import { ResourceRegistry } from './registry/registry.js';
import { systemContext } from './rest/context.js';
import { RestHandlers } from './rest/handlers.js';
import { sweepFinishedDeletions } from './rest/finished-deletions.js';
import { ObjectStore } from './storage/object-store.js';
import { EncryptingStore, ensureKeySet, reencryptAll } from './encryption/index.js';
import { AuditLog, RequestAuditor } from './audit/index.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from './http/rate-limit.js';
import { installClientErrorHandler, SERVER_TIMEOUTS } from './http/hardening.js';
import { DEFAULT_MAX_WATCHES_PER_USER, WatchStreams } from './http/watch-streams.js';
import { VERSION } from '../version.js';
import { prepareDataDir } from './data-dir.js';

export interface ServerOptions {
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  logger: Logger;
  /** Store history retention (tests shorten it to provoke 410 Expired). */
  retention?: { minRevisions: number; minAgeMs: number };
  compactionIntervalMs?: number;
  maxBodyBytes?: number;
  bookmarkIntervalMs?: number;
  tokenFile?: string;
  /** Run the claim and managed-resource controllers in this process (default true). */
  controllers?: boolean;
  /** How often managed resources are re-observed for drift (default 60 s). */
  pollIntervalMs?: number;
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
  /** Concurrent watches one user may hold over HTTP (default 200; 0 = unlimited; system:masters exempt). */
  maxWatchesPerUser?: number;
  /** A watch whose client stopped reading is dropped (410) after missing this many events (default 1000). */
  maxPausedWatchEvents?: number;
  /** How long an ended watch may take to hand its last bytes to a client that does not read them (default 30 s). */
  watchLingerMs?: number;
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
  const dataDir = resolve(opts.dataDir);
  // Private (refused when others may write it), writable, and its files 0600.
  await prepareDataDir(dataDir);

  const store = openSqliteStore({
    path: join(dataDir, 'state.db'),
    retention: opts.retention,
    compactionIntervalMs: opts.compactionIntervalMs,
    maxPausedWatchEvents: opts.maxPausedWatchEvents,
    logger: log.child({ component: 'store' }),
  });
  step('store');
  const keys = await ensureKeySet(dataDir);
  const encrypted = new EncryptingStore(store, { keys, logger: log.child({ component: 'encryption' }) });
  // An object whose last finalizer went while its delete did not (a crash of an older
  // version between the two writes) would stay "being deleted" forever: finish it now.
  await sweepFinishedDeletions(store, log.child({ component: 'deletion' }), '/registry/', (kv) => encrypted.openKv(kv));
  step('finished deletions');
  const auditLog = opts.auditLog ? await AuditLog.toFile(resolve(opts.auditLog), { logger: log.child({ component: 'audit' }) }) : undefined;
  const pki = await ensurePki(dataDir, opts.host);
  const admin = await ensureAdminCredentials(dataDir, pki);
  step('keys and certificates');

  const registry = new ResourceRegistry();
  registry.replaceSource('builtin', builtinResourceTypes());
  const objects = new ObjectStore(encrypted);
  // What admission asks on every create, kept in memory: which namespaces exist (and are not
  // terminating), and which namespaces hold ClaimQuotas.
  const namespaceCache = new PrefixCache(encrypted, objects.resourcePrefix({ group: '', resource: 'namespaces' }), { project: namespaceState, logger: log });
  const quotaKeys = new PrefixCache<unknown>(encrypted, objects.resourcePrefix({ group: 'core.conductor.io', resource: 'claimquotas' }), { project: () => true, logger: log });
  await Promise.all([namespaceCache.start(), quotaKeys.start()]);
  const admission = new AdmissionChain();
  admission.addValidating(new NamespaceLifecycle(objects, registry, namespaceCache));
  const claimTypes = new ClaimTypeIndex(objects, registry);
  admission.addMutating(new ClaimProtectionAdmission(claimTypes));
  admission.addValidating(new ProviderInUse(objects, registry));
  admission.addValidating(new BindingModeWarning());
  admission.addValidating(new MissingProviderWarning(objects, registry));
  admission.addValidating(new ClaimQuotaAdmission(objects, registry, { logger: log.child({ component: 'admission' }), claimKinds: claimTypes, quotaKeys }));
  // RBAC (see authz): decisions from an in-memory index; writes of roles and bindings may not escalate.
  const authz = setupAuthorization({ isClaim: (rt) => claimTypes.isClaim(rt) });
  admission.addValidating(authz.escalation);
  admission.addValidating(authz.secretReferences);
  const rest = new RestHandlers({ objects, admission });
  const authorizer = authz.authorizer;
  registry.replaceSource('authorization', authorizationResourceTypes());
  // Client certificates, the admin token, the token file and ServiceAccount tokens (see authn-api).
  const authn = await setupAuthentication({ dataDir, registry, rest, adminToken: admin.token, tokenFile: opts.tokenFile });
  registry.replaceSource('authentication', authn.resourceTypes);
  step('authentication');

  let ready = false;
  let serverUrl = '';
  const docs = new ApiDocuments(() => registry.all(), { serverAddress: () => serverUrl.replace(/^https:\/\//, ''), gitVersion: conductorGitVersion(VERSION) });
  registry.onChange(() => docs.invalidate());
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
    authenticate: (req) => authn.authenticator.authenticateRequestAsync(req),
    endpoints: [...authn.endpoints, ...accessReviewEndpoints({ authorizer, index: authz.index })],
    impersonate: (req, user) => impersonatedUser(req.headersDistinct, user, authorizer),
    testOnlyRoutes: opts.testOnlyRoutes,
  });

  await bootstrapNamespaces(rest, registry);
  step('namespaces');
  const crdType = registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  const crds = new CrdRegistrar(registry, rest, crdType, objectMetaSchema, log.child({ component: 'crd' }));
  await crds.start();
  step('crd registrar');

  const client = new LoopbackClient(registry, rest, authorizer, { name: 'system:conductor', groups: ['system:masters', 'system:authenticated'] }, 'conductor-controller', { bookmarkIntervalMs: opts.bookmarkIntervalMs });
  const controllers = await startCoreControllers(client, registry, log);
  step('core controllers');
  await installCrds(client, { logger: log.child({ component: 'apis' }) });
  step('conductor crds');
  await authz.start(client, { claimResources: claimKinds.map((k) => ({ group: k.group, resource: k.plural })), concreteResources: concreteKinds.map((k) => ({ group: k.group, resource: k.plural })) }, { logger: log.child({ component: 'rbac' }) });
  step('rbac');

  const server: Server = createServer(
    { ...tlsServerOptions(pki), minVersion: 'TLSv1.2', keepAlive: true, maxHeaderSize: SERVER_TIMEOUTS.maxHeaderBytes },
    dispatcher.handle,
  );
  // Receiving a request (headers, then body) is bounded; handling is bounded in the
  // dispatcher (watches by timeoutSeconds); idle keep-alive connections are closed.
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveMs;
  server.headersTimeout = SERVER_TIMEOUTS.headersMs;
  server.requestTimeout = SERVER_TIMEOUTS.receiveMs;
  installClientErrorHandler(server);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  serverUrl = `https://${hostForUrl}:${port}`;
  const kubeconfigPath = await writeKubeconfig(dataDir, {
    server: serverUrl,
    caPem: pki.caCertPem,
    token: admin.token,
    clientCertPem: admin.certPem,
    clientKeyPem: admin.keyPem,
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
  // Conductor's controllers start after the server is ready: they are clients like any other.
  let conductor: RunningConductorControllers | undefined;
  const conductorStarting =
    opts.controllers === false
      ? Promise.resolve()
      : // Loaded only now: the providers' modules (database clients and more) are not needed to serve.
        import('../controllers/conductor.js')
          .then(({ startConductorControllers }) =>
            startConductorControllers(client, { dataDir, logger: log.child({ component: 'controllers' }), pollIntervalMs: opts.pollIntervalMs }),
          )
          .then((c) => {
            conductor = c;
          })
          .catch((err: unknown) => {
            if (!closed) log.error({ err }, 'cannot start the claim and managed-resource controllers');
          });
  return {
    url: serverUrl,
    port,
    kubeconfigPath,
    store: encrypted,
    registry,
    rest,
    client,
    watchCounts: () => ({ streams: watchStreams.size, users: watchStreams.users, storeWatchers: store.stats().watchers }),
    rescue: (err) => dispatcher.rescue(err),
    async close() {
      if (closed) return;
      closed = true;
      ready = false;
      // No new connections; every open watch ends with its terminating chunk, so clients see
      // a normal end of stream rather than a cut connection.
      const listenerClosed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections?.();
      await watchStreams.stop();
      migration.abort();
      await reencrypting;
      await conductorStarting;
      await conductor?.stop();
      controllers.stop();
      authz.stop();
      crds.stop();
      namespaceCache.stop();
      quotaKeys.stop();
      server.closeIdleConnections?.();
      // Requests still being answered get a moment; then every connection goes.
      const cut = setTimeout(() => server.closeAllConnections?.(), 200);
      cut.unref();
      await listenerClosed;
      clearTimeout(cut);
      await auditLog?.close();
      await store.close();
    },
  };
}

async function bootstrapNamespaces(rest: RestHandlers, registry: ResourceRegistry): Promise<void> {
  const nsType = registry.get('', 'v1', 'namespaces')!;
  const ctx = systemContext('system:bootstrap');
  for (const name of BOOTSTRAP_NAMESPACES) {
    try {
      await rest.create(ctx, nsType, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, {
        dryRun: false,
        fieldManager: 'conductor-bootstrap',
        fieldValidation: 'Strict',
      });
    } catch (err) {
      if (!(isApiError(err) && err.reason === 'AlreadyExists')) throw err;
    }
  }
}

