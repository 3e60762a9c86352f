/**
 * `conductor controllers`: Conductor's controllers against any Kubernetes API server (a real
 * cluster, or a Conductor server started with its controllers off), with leader election, so
 * several replicas may run and exactly one acts.
 */
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { HttpClient } from '../client/http-client.js';
import { inClusterConfig, kubeconfigFromEnv, loadKubeconfig } from '../client/kubeconfig.js';
import { SYSTEM_NAMESPACE } from '../apis/index.js';
import { clusterProviders } from '../conductor/catalog.js';

function seconds(value: string): number {
  const n = Number(value.replace(/s$/, ''));
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds > 0 (e.g. 15 or 15s)');
  return n;
}

/** The names in a comma-separated list, each checked against the providers that can run here. */
function providerNames(value: string): string[] {
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const known: string[] = clusterProviders.map((p) => p.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (names.length === 0) throw new InvalidArgumentError(`expected one or more of ${known.join(', ')}`);
  if (unknown.length > 0)
    throw new InvalidArgumentError(`${unknown.join(', ')}: not a provider that runs against a cluster; expected some of ${known.join(', ')}`);
  return [...new Set(names)];
}

function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('expected a port number between 0 and 65535 (0 picks a free one)');
  return Number(value);
}

interface ControllersFlags {
  kubeconfig?: string;
  context?: string;
  dataDir: string;
  logLevel: string;
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceNamespace: string;
  leaderElectResourceName: string;
  healthHost: string;
  healthPort: number;
  providers?: string[];
}

async function clientConfig(o: ControllersFlags) {
  if (o.kubeconfig) return loadKubeconfig(o.kubeconfig, { context: o.context });
  // In a pod: the ServiceAccount's token and CA; elsewhere KUBECONFIG or ~/.kube/config.
  if (process.env.KUBERNETES_SERVICE_HOST && !process.env.KUBECONFIG) return inClusterConfig();
  return kubeconfigFromEnv({ context: o.context });
}

export function controllersCommand(): Command {
  return new Command('controllers')
    .description("Run Conductor's controllers against a Kubernetes API server (no embedded server; providers on this machine are not started)")
    .option('--kubeconfig <path>', 'the API server and credentials; default: in a pod its ServiceAccount, else KUBECONFIG or ~/.kube/config')
    .option('--context <name>', 'the kubeconfig context to use (default: its current context)')
    .option('--data-dir <dir>', 'where providers keep their files (env CONDUCTOR_DATA_DIR)', process.env.CONDUCTOR_DATA_DIR ?? '.conductor-controllers')
    .option('--log-level <level>', 'fatal, error, warn, info, debug or trace (env CONDUCTOR_LOG_LEVEL)', process.env.CONDUCTOR_LOG_LEVEL ?? 'info')
    .option('--no-leader-elect', 'run the controllers at once, without a Lease (only ever one replica!)')
    .option('--leader-elect-lease-duration <seconds>', 'how long a lease holds without renewal', seconds, 15)
    .option('--leader-elect-renew-deadline <seconds>', 'the leader steps down when it could not renew for this long', seconds, 10)
    .option('--leader-elect-retry-period <seconds>', 'time between attempts to acquire or renew the lease', seconds, 2)
    .option('--leader-elect-resource-namespace <ns>', 'namespace of the Lease', SYSTEM_NAMESPACE)
    .option('--leader-elect-resource-name <name>', 'name of the Lease', 'conductor-controllers')
    .option('--health-host <host>', 'address of /healthz, /readyz and /metrics', '127.0.0.1')
    .option('--health-port <port>', 'port of /healthz, /readyz and /metrics; 0 picks a free one', portNumber, 8081)
    .option('--providers <names>', 'comma-separated providers to run (default: every provider whose resources are not on this machine)', providerNames)
    .action(async (o: ControllersFlags) => {
      const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
      if (!levels.includes(o.logLevel)) {
        console.error(`conductor: --log-level must be one of ${levels.join(', ')} (got ${JSON.stringify(o.logLevel)})`);
        process.exit(2);
      }
      if (o.leaderElect && !(o.leaderElectLeaseDuration > o.leaderElectRenewDeadline && o.leaderElectRenewDeadline > o.leaderElectRetryPeriod)) {
        console.error('conductor: leader election needs --leader-elect-lease-duration > --leader-elect-renew-deadline > --leader-elect-retry-period');
        process.exit(2);
      }
      const logger = pino({ level: o.logLevel, base: { service: 'conductor-controllers' } }, pino.destination(2));
      // Loaded here, not with the `conductor` command: `conductor server` starts its controllers after it is ready.
      const { startClusterControllers } = await import('../conductor/cluster-controllers.js');
      const { startHealthServer } = await import('../conductor/health-server.js');
      const { controllerMetrics } = await import('../conductor/metrics.js');
      const { MetricsRegistry } = await import('../metrics/index.js');
      // One registry for the process: controllers restarted by leader election report to the same series.
      const registry = new MetricsRegistry();
      let running;
      let health;
      try {
        const client = new HttpClient(await clientConfig(o));
        running = await startClusterControllers(client, {
          logger,
          providers: o.providers ? clusterProviders.filter((p) => o.providers!.includes(p.name)) : undefined,
          dataDir: o.dataDir,
          pollIntervalMs: process.env.CONDUCTOR_POLL_INTERVAL_MS ? Number(process.env.CONDUCTOR_POLL_INTERVAL_MS) : undefined,
          leaderElection: o.leaderElect
            ? {
                namespace: o.leaderElectResourceNamespace,
                name: o.leaderElectResourceName,
                leaseDurationMs: o.leaderElectLeaseDuration * 1000,
                renewDeadlineMs: o.leaderElectRenewDeadline * 1000,
                retryPeriodMs: o.leaderElectRetryPeriod * 1000,
              }
            : undefined,
          onLostLease: () => process.exit(1),
          metrics: controllerMetrics(registry),
        });
        const r = running;
        health = await startHealthServer(o.healthHost, o.healthPort, () => r.state(), registry);
      } catch (err) {
        console.error(`conductor: cannot start the controllers: ${err instanceof Error ? err.message : String(err)}`);
        await running?.stop().catch(() => undefined);
        process.exit(1);
      }
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        Promise.all([running.stop(), health.close()])
          .then(() => process.exit(0))
          .catch((err: unknown) => {
            logger.error({ err }, 'error while shutting down');
            process.exit(1);
          });
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      process.stdout.write(`conductor controllers ready (identity ${running.state().identity}; health on ${health.url})\n`);
    });
}
