/**
 * Assembles and runs the API server: store, registry (built-ins + CRDs), REST handlers,
 * admission, authentication, HTTPS, and the in-process controllers the server needs to
 * honour the API contract (namespace lifecycle, garbage collection, CRD establishment).
 */
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { openSqliteStore } from '../store/index.js';
import type { Store } from '../store/types.js';
import { isApiError } from '../machinery/errors.js';
import { AdmissionChain } from './admission/types.js';
import { NamespaceLifecycle } from './admission/namespace-lifecycle.js';
import { ClaimQuotaAdmission } from './admission/claim-quota.js';
import { Authenticator, ensureAdminCredentials, ensurePki, tlsServerOptions, writeKubeconfig } from './auth/index.js';
import { MastersOnlyAuthorizer, type Authorizer } from './authz/types.js';
import { builtinResourceTypes, objectMetaSchema } from './builtins/index.js';
import { CrdRegistrar } from './crd/crd-registrar.js';
import { Dispatcher } from './http/dispatcher.js';
import { ApiDocuments, conductorGitVersion } from './docs/index.js';
import { startCoreControllers } from '../controllers/core.js';
import { startConductorControllers, type RunningConductorControllers } from '../controllers/conductor.js';
import { installCrds } from '../apis/index.js';
import { LoopbackClient } from './loopback-client.js';
import { ResourceRegistry } from './registry/registry.js';
import { systemContext, type UserInfo } from './rest/context.js';
import { RestHandlers } from './rest/handlers.js';
import { ObjectStore } from './storage/object-store.js';
import { VERSION } from '../version.js';

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
  close(): Promise<void>;
}

const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'conductor-system'];

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const log = opts.logger;
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });

  const store = openSqliteStore({
    path: join(dataDir, 'state.db'),
    retention: opts.retention,
    compactionIntervalMs: opts.compactionIntervalMs,
    logger: log.child({ component: 'store' }),
  });
  const pki = await ensurePki(dataDir, opts.host);
  const admin = await ensureAdminCredentials(dataDir, pki);

  const registry = new ResourceRegistry();
  registry.replaceSource('builtin', builtinResourceTypes());
  const objects = new ObjectStore(store);
  const admission = new AdmissionChain();
  admission.addValidating(new NamespaceLifecycle(objects, registry));
  admission.addValidating(new ClaimQuotaAdmission(objects, registry, { logger: log.child({ component: 'admission' }) }));
  const rest = new RestHandlers({ objects, admission });
  const authorizer: Authorizer = new MastersOnlyAuthorizer();
  const adminUser: UserInfo = { name: 'conductor-admin', groups: ['system:masters', 'system:authenticated'] };
  const authenticator = new Authenticator({ tokens: new Map([[admin.token, adminUser]]), tokenFile: opts.tokenFile });

  let ready = false;
  let serverUrl = '';
  const docs = new ApiDocuments(() => registry.all(), { serverAddress: () => serverUrl.replace(/^https:\/\//, ''), gitVersion: conductorGitVersion(VERSION) });
  registry.onChange(() => docs.invalidate());
  const dispatcher = new Dispatcher({
    registry,
    rest,
    docs,
    authorizer,
    logger: log.child({ component: 'http' }),
    maxBodyBytes: opts.maxBodyBytes,
    watch: { bookmarkIntervalMs: opts.bookmarkIntervalMs },
    ready: () => ready,
    authenticate: (req) => authenticator.authenticateRequest(req),
  });

  await bootstrapNamespaces(rest, registry);
  const crdType = registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  const crds = new CrdRegistrar(registry, rest, crdType, objectMetaSchema, log.child({ component: 'crd' }));
  await crds.start();

  const client = new LoopbackClient(registry, rest, authorizer, { name: 'system:conductor', groups: ['system:masters', 'system:authenticated'] }, 'conductor-controller', { bookmarkIntervalMs: opts.bookmarkIntervalMs });
  const controllers = await startCoreControllers(client, registry, log);
  await installCrds(client, { logger: log.child({ component: 'apis' }) });

  const server: Server = createServer({ ...tlsServerOptions(pki), keepAlive: true }, dispatcher.handle);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  server.requestTimeout = 0; // watches are long-lived; per-request timeouts come with hardening
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
  ready = true;

  let closed = false;
  // Conductor's controllers start after the server is ready: they are clients like any other.
  let conductor: RunningConductorControllers | undefined;
  const conductorStarting =
    opts.controllers === false
      ? Promise.resolve()
      : startConductorControllers(client, { dataDir, logger: log.child({ component: 'controllers' }), pollIntervalMs: opts.pollIntervalMs })
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
    store,
    registry,
    rest,
    client,
    async close() {
      if (closed) return;
      closed = true;
      ready = false;
      await conductorStarting;
      await conductor?.stop();
      controllers.stop();
      crds.stop();
      server.closeIdleConnections?.();
      await new Promise<void>((r) => {
        server.close(() => r());
        // Long-running watches would hold close() open: end them.
        setTimeout(() => server.closeAllConnections?.(), 200).unref();
      });
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

