/**
 * Conductor's composition root: assembles the store and the generic API server
 * (`apiserver/`) with what makes it Conductor — the core controllers (garbage collection,
 * namespace deletion), Conductor's CRDs, what RBAC's built-in roles know of claim and concrete
 * kinds, Conductor's admission plugins, and, once the server is ready, the providers and
 * Conductor's controllers. `conductor server` and the tests start a whole Conductor here.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { LeaderElector } from '../client/leader-election.js';
import type { LoopbackClient } from '../apiserver/loopback-client.js';
import { installCrds } from '../apis/index.js';
import type { ServerExtension, ServerParts, StartContext } from '../apiserver/extension.js';
import { startServer, type RunningServer, type ServerOptions } from '../apiserver/server.js';
import type { RunningConductorControllers } from '../controllers/conductor.js';
import { startCoreControllers, type RunningControllers } from '../controllers/core.js';
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
  const admission = await conductorAdmission(parts, () => running?.plan);
  const concrete = new Set(kinds.concreteKinds.map((k) => `${k.plural}.${k.group}`));
  const logs = logSubresource({ objects: parts.objects, isConcrete: (group, resource) => concrete.has(`${resource}.${group}`) });
  let core: RunningControllers | undefined;
  let elected: ElectedControllers | undefined;
  const startControllers = async (client: LoopbackClient, logger: Logger): Promise<RunningConductorControllers> => {
    const { startControllersAndProviders } = await import('./controllers.js');
    const started = await startControllersAndProviders(client, {
      dataDir: opts.dataDir,
      logger: logger.child({ component: 'controllers' }),
      pollIntervalMs: opts.pollIntervalMs,
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
    async beforeReady({ client, registry, logger }: StartContext) {
      core = await startCoreControllers(client, registry, logger);
      await installCrds(client, { crds: kinds.crds(), logger: logger.child({ component: 'apis' }) });
    },
    // The providers and Conductor's controllers: clients like any other, once the server serves.
    async afterReady({ client, logger, signal }: StartContext) {
      if (!opts.controllers) return;
      if (opts.leaderElection) {
        elected = electedControllers(client, logger, opts.leaderElection, startControllers);
        return;
      }
      try {
        running = await startControllers(client, logger);
      } catch (err) {
        if (!signal.aborted) logger.error({ err }, 'cannot start the claim and managed-resource controllers');
      }
    },
    async stop() {
      logs.stop();
      await elected?.stop();
      await running?.stop();
      core?.stop();
      admission.stop();
    },
  };
}

/** The controllers behind leader election: `stop` gives up the lease and stops them. */
interface ElectedControllers {
  stop(): Promise<void>;
}

/**
 * electedControllers campaigns for the controllers' Lease and runs the controllers while this
 * server holds it: started on winning, stopped when the lease is lost or given up (the
 * elector then campaigns again, so a server that lost it for a while may lead again later).
 */
function electedControllers(
  client: LoopbackClient,
  logger: Logger,
  timings: ServerLeaderElection,
  start: (client: LoopbackClient, logger: Logger) => Promise<RunningConductorControllers>,
): ElectedControllers {
  const log = logger.child({ component: 'leader-election' });
  const identity = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  let stopping: Promise<void> = Promise.resolve();
  const elector = new LeaderElector({
    client,
    ...CONTROLLERS_LEASE,
    identity,
    ...timings,
    logger: log,
    onStartedLeading: (signal) => {
      log.info({ identity }, 'leading: starting the controllers');
      const starting = start(client, logger).catch((err: unknown) => {
        log.error({ err }, 'cannot start the controllers while leading');
        return undefined;
      });
      // Leadership ends (lost, or given up at stop): the controllers stop, so no two servers act together.
      signal.addEventListener('abort', () => {
        stopping = starting.then((running) => running?.stop());
      });
    },
    onStoppedLeading: () => log.warn({ identity }, 'no longer leading: the controllers stop'),
    onNewLeader: (holder) => log.info({ leader: holder, me: holder === identity }, 'the controllers lease holder changed'),
  });
  elector.start();
  return {
    async stop() {
      await elector.stop();
      await stopping;
    },
  };
}
