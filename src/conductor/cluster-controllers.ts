/**
 * Conductor's controllers against any Kubernetes API server (`conductor controllers`): no
 * embedded server and no provider whose resources live on this machine (`onServerHost`).
 * Conductor's CRDs are installed or upgraded first, and `conductor-system` is made if missing;
 * then, with leader election (a `coordination.k8s.io/v1` Lease), the process that holds the
 * lease runs the providers and controllers and the others stand by. A leader that loses the
 * lease stops its controllers and says so (`onLostLease`: the command exits, as
 * kube-controller-manager does, so two replicas never act at once).
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { builtinRefs, type Client } from '../client/types.js';
import { LeaderElector } from '../client/leader-election.js';
import { isAlreadyExists } from '../machinery/errors.js';
import { installCrds, SYSTEM_NAMESPACE } from '../apis/index.js';
import type { RunningConductorControllers } from '../controllers/conductor.js';
import type { ControllerMetrics } from '../controllers/metrics.js';
import { catalogOf, clusterProviders, type BuiltInProvider } from './catalog.js';
import { startControllersAndProviders } from './controllers.js';

export interface ClusterControllersOptions {
  logger: Logger;
  /** Where providers keep files (none of the cluster providers needs much). */
  dataDir: string;
  /** How often managed resources are re-observed for drift (default 60 s). */
  pollIntervalMs?: number;
  /** Which providers run; default the built-in ones whose resources are not on this machine. */
  providers?: readonly BuiltInProvider[];
  /** Leader election; undefined runs the controllers at once (one replica only). */
  leaderElection?: {
    namespace: string;
    name: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  /** Called when this process led and lost the lease (its controllers are stopped by then). */
  onLostLease?: () => void;
  /** Where the controllers report (the command's `/metrics`); default nowhere. */
  metrics?: ControllerMetrics;
}

/** What `/readyz` and the logs say about the process. */
export interface ClusterControllersState {
  readonly crdsInstalled: boolean;
  /** `leading`, `standing-by` (another holds the lease), or `running` (no leader election). */
  readonly role: 'starting' | 'leading' | 'standing-by' | 'running';
  /** The lease holder last seen ('' when none or without leader election). */
  readonly leader: string;
  /** Controllers running in this process. */
  readonly controllersRunning: boolean;
  readonly identity: string;
}

export interface RunningClusterControllers {
  state(): ClusterControllersState;
  /** Steps down (releasing the lease) and stops the controllers. */
  stop(): Promise<void>;
}

/** ensureNamespace creates a namespace when it does not exist. */
async function ensureNamespace(client: Client, name: string): Promise<void> {
  try {
    await client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

export async function startClusterControllers(client: Client, opts: ClusterControllersOptions): Promise<RunningClusterControllers> {
  const log = opts.logger;
  const providers = opts.providers ?? clusterProviders;
  const identity = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  let crdsInstalled = false;
  let running: RunningConductorControllers | undefined;
  let starting: Promise<void> | undefined;
  let stopped = false;

  const crds = catalogOf(providers).crds();
  await installCrds(client, { crds, logger: log.child({ component: 'apis' }) });
  crdsInstalled = true;
  await ensureNamespace(client, SYSTEM_NAMESPACE);
  log.info({ crds: crds.length, providers: providers.map((p) => p.name) }, "Conductor's CRDs are installed");

  const startControllers = async (): Promise<void> => {
    running = await startControllersAndProviders(client, {
      dataDir: opts.dataDir,
      logger: log.child({ component: 'controllers' }),
      pollIntervalMs: opts.pollIntervalMs,
      providers,
      metrics: opts.metrics,
    });
    log.info({ identity }, 'controllers running');
  };
  const stopControllers = async (): Promise<void> => {
    await starting?.catch(() => undefined);
    const r = running;
    running = undefined;
    await r?.stop();
  };

  const le = opts.leaderElection;
  if (!le) {
    await startControllers();
    return {
      state: () => ({ crdsInstalled, role: 'running', leader: '', controllersRunning: running !== undefined, identity }),
      async stop() {
        stopped = true;
        await stopControllers();
      },
    };
  }

  let leading = false;
  const elector = new LeaderElector({
    client,
    namespace: le.namespace,
    name: le.name,
    identity,
    leaseDurationMs: le.leaseDurationMs,
    renewDeadlineMs: le.renewDeadlineMs,
    retryPeriodMs: le.retryPeriodMs,
    logger: log.child({ component: 'leader-election' }),
    onStartedLeading: () => {
      leading = true;
      starting = startControllers().catch((err: unknown) => {
        log.error({ err }, 'cannot start the controllers while leading; stepping down');
        void elector.stop();
      });
    },
    onStoppedLeading: () => {
      leading = false;
      void stopControllers().then(() => {
        if (!stopped) {
          log.error({ identity }, 'lost the lease: controllers stopped so that no two replicas act at once');
          opts.onLostLease?.();
        }
      });
    },
    onNewLeader: (holder) => log.info({ leader: holder, me: holder === identity }, 'the lease holder changed'),
  });
  elector.start();
  return {
    state: () => ({
      crdsInstalled,
      role: leading ? 'leading' : elector.leader && elector.leader !== identity ? 'standing-by' : 'starting',
      leader: elector.leader,
      controllersRunning: running !== undefined,
      identity,
    }),
    async stop() {
      stopped = true;
      await elector.stop();
      await stopControllers();
    },
  };
}
