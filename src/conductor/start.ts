/**
 * Conductor's composition root: assembles the store and the generic API server
 * (`apiserver/`) with what makes it Conductor — the core controllers (garbage collection,
 * namespace deletion), Conductor's CRDs, what RBAC's built-in roles know of claim and concrete
 * kinds, Conductor's admission plugins, and, once the server is ready, the providers and
 * Conductor's controllers. `conductor server` and the tests start a whole Conductor here.
 */
import { controllerMetrics } from './metrics.js';
import type { ControllerMetrics } from '../controllers/metrics.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { LeaderElector } from '../client/leader-election.js';
import type { LoopbackClient } from '../apiserver/loopback-client.js';
import { installCrds } from '../apis/index.js';
import { distFile } from '../machinery/package-files.js';
import type { ServerExtension, ServerParts, StartContext } from '../apiserver/extension.js';
import { startServer, type RunningServer, type ServerOptions } from '../apiserver/server.js';
import type { RunningConductorControllers } from '../controllers/conductor.js';
import { startCoreControllers, type RunningControllers } from '../controllers/core.js';
import { ProcessCaches } from '../controllers/process-caches.js';
import { conductorAdmission } from './admission/index.js';
import { conductorKinds } from './kinds.js';
import { logSubresource } from './log-subresource.js';
import { conductorRbacKinds } from './rbac-kinds.js';

export interface ConductorOptions extends Omit<ServerOptions, 'extend'> {
  /** Run the providers and Conductor's controllers (claims, managed resources, quotas, pools) in this process (default true). */
  controllers?: boolean;
  /** How often managed resources are re-observed for drift (default 60 s). */
  pollIntervalMs?: number;
  /**
   * Several servers on one store (etcd): the controllers run only in the server holding the
   * Lease `kube-system/conductor-server-controllers`; the others stand by and take over when
   * it expires. Undefined: this server runs them at once (the only server on its store).
   */
  leaderElection?: ServerLeaderElection;
}

/** The Lease's timings (see client/leader-election.ts). */
export interface ServerLeaderElection {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The Lease the servers on one store compete for to run the controllers. */
export const CONTROLLERS_LEASE = { namespace: 'kube-system', name: 'conductor-server-controllers' } as const;

/** A running Conductor: the API server's handle; `close` stops the controllers too. */
export type RunningConductor = RunningServer;

export async function startConductor(opts: ConductorOptions): Promise<RunningConductor> {
  const { controllers, pollIntervalMs, leaderElection, ...serverOptions } = opts;
  return startServer({
    // Where `npm run build` bundles the web dashboard (scripts/build-dashboard.mjs).
    dashboardDir: distFile('dashboard/'),
    ...serverOptions,
    extend: (parts) => conductorExtension(parts, { dataDir: resolve(opts.dataDir), controllers: controllers !== false, pollIntervalMs, leaderElection }),
  });
}

interface ExtensionOptions {
  dataDir: string;
  controllers: boolean;
  pollIntervalMs?: number;
  leaderElection?: ServerLeaderElection;
}

async function conductorExtension(parts: ServerParts, opts: ExtensionOptions): Promise<ServerExtension> {
  const kinds = conductorKinds();
  let running: RunningConductorControllers | undefined;
  const admission = await conductorAdmission(parts, { planner: () => running?.plan, implementsOf: kinds.implementsOf });
  const concrete = new Set(kinds.concreteKinds.map((k) => `${k.plural}.${k.group}`));
  const logs = logSubresource({ objects: parts.objects, isConcrete: (group, resource) => concrete.has(`${resource}.${group}`) });
  let core: RunningControllers | undefined;
  let elected: ElectedControllers | undefined;
  let metrics: ControllerMetrics | undefined;
  // The garbage collector looks owners up in the informers of Conductor's controllers.
  const caches = new ProcessCaches();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (markReady = r));
  const startControllers = async (client: LoopbackClient, logger: Logger): Promise<RunningConductorControllers> => {
    const { startControllersAndProviders } = await import('./controllers.js');
    const started = await startControllersAndProviders(client, {
      dataDir: opts.dataDir,
      logger: logger.child({ component: 'controllers' }),
      pollIntervalMs: opts.pollIntervalMs,
      metrics,
      caches,
      onProvidersStarted: (providers) => logs.providersStarted(providers),
    });
    return {
      ...started,
      async stop() {
        logs.providersStopped();
        await started.stop();
      },
    };
  };
  return {
    mutating: admission.mutating,
    validating: admission.validating,
    rbac: conductorRbacKinds(kinds, admission.claimTypes),
    readSubresources: [logs.subresource],
    // The controllers the API contract needs, and Conductor's CRDs, before the server is ready.
    // Several servers on one store: the core controllers run in the lease holder only, with
    // Conductor's (those wait until this server is ready).
    async beforeReady({ client, registry, logger, signal, metrics: registryOfMetrics }: StartContext) {
      metrics = controllerMetrics(registryOfMetrics);
      if (opts.leaderElection) {
        elected = electedControllers(client, logger, opts.leaderElection, async (leadership) => {
          const leadingCore = await startCoreControllers(client, registry, logger, metrics, caches);
          let conductor: RunningConductorControllers | undefined;
          if (opts.controllers) {
            await ready;
            // Not when the server closed or the lease was lost meanwhile.
            conductor = signal.aborted || leadership.aborted ? undefined : await startControllers(client, logger);
          }
          return {
            async stop() {
              await conductor?.stop();
              leadingCore.stop();
            },
          };
        });
      } else {
        core = await startCoreControllers(client, registry, logger, metrics, caches);
      }
      await installCrds(client, { crds: kinds.crds(), logger: logger.child({ component: 'apis' }) });
    },
    // The providers and Conductor's controllers: clients like any other, once the server serves.
    async afterReady({ client, logger, signal }: StartContext) {
      markReady();
      if (!opts.controllers || opts.leaderElection) return;
      try {
        running = await startControllers(client, logger);
      } catch (err) {
        if (!signal.aborted) logger.error({ err }, 'cannot start the claim and managed-resource controllers');
      }
    },
    async stop() {
      markReady();
      logs.stop();
      await elected?.stop();
      await running?.stop();
      core?.stop();
      admission.stop();
    },
  };
}

/** The controllers behind leader election: `stop` stops them, then gives up the lease. */
interface ElectedControllers {
  stop(): Promise<void>;
}

/** What runs while leading. */
interface LeadingWork {
  stop(): Promise<void>;
}

/**
 * electedControllers campaigns for the controllers' Lease and runs the controllers while this
 * server holds it: started on winning, stopped when the lease is lost or given up (the
 * elector then campaigns again, so a server that lost it for a while may lead again later).
 * On `stop` (SIGTERM) the controllers stop first and then the lease is released (no holder),
 * so another server takes over at its next attempt instead of after the lease duration.
 */
function electedControllers(
  client: LoopbackClient,
  logger: Logger,
  timings: ServerLeaderElection,
  start: (leadership: AbortSignal) => Promise<LeadingWork>,
): ElectedControllers {
  const log = logger.child({ component: 'leader-election' });
  const identity = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  let starting: Promise<LeadingWork | undefined> = Promise.resolve(undefined);
  const elector = new LeaderElector({
    client,
    ...CONTROLLERS_LEASE,
    identity,
    ...timings,
    logger: log,
    onStartedLeading: (leadership) => {
      log.info({ identity }, 'leading: starting the controllers');
      starting = start(leadership).catch((err: unknown) => {
        log.error({ err }, 'cannot start the controllers while leading');
        return undefined;
      });
    },
    // Leadership ends (lost, or given up at stop): the controllers stop before the elector
    // campaigns again or releases the lease, so no two servers act together.
    onStoppedLeading: async () => {
      log.warn({ identity }, 'no longer leading: the controllers stop');
      await (await starting)?.stop();
      log.info({ identity }, 'the controllers stopped');
    },
    onNewLeader: (holder) => log.info({ leader: holder, me: holder === identity }, 'the controllers lease holder changed'),
  });
  elector.start();
  return {
    async stop() {
      await elector.stop();
    },
  };
}
