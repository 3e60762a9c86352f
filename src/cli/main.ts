#!/usr/bin/env node
/**
 * The `conductor` command.
 */
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { startConductor } from '../conductor/index.js';
import { installLastResortHandler } from '../apiserver/http/last-resort.js';
import { crdsYaml, writeCrdFiles } from '../apis/index.js';
import { allCrds } from '../conductor/catalog.js';
import { VERSION } from '../version.js';
import { governServerHeap } from './heap.js';
import { registerKeysCommand } from './keys.js';
import { userCommand } from './user-add.js';
import { StartProgress } from './start-progress.js';
import { controllersCommand } from './controllers-command.js';
import { traceCommand } from './trace/command.js';
import { logsCommand } from './logs/command.js';
import { planCommand } from './plan/command.js';
import { addEtcdOptions, etcdBackend, type EtcdFlags } from './etcd-flags.js';
import { migrateCommand } from './migrate-command.js';

function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError('expected a port number between 0 and 65535 (0 picks a free port)');
  }
  return Number(value);
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number ≥ 0');
  return n;
}

function sanList(value: string): string[] {
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  for (const n of names) {
    if (!/^[A-Za-z0-9.:-]+$/.test(n) || n.length > 253) throw new InvalidArgumentError(`${JSON.stringify(n)} is not a DNS name or IP address`);
  }
  return names;
}

function seconds(value: string): number {
  const n = Number(value.replace(/s$/, ''));
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds > 0 (e.g. 15 or 15s)');
  return n;
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
}

const program = new Command();
program.name('conductor').description('A control plane for portable cloud infrastructure that speaks the Kubernetes API').version(VERSION);

const serverCommand = program
  .command('server')
  .description('Run the API server and controllers on the embedded SQLite store, or on etcd (--etcd-servers) beside other servers')
  .option(
    '--data-dir <dir>',
    'where state, certificates and the kubeconfig live; must not be writable by group or others, files are kept 0600 (env CONDUCTOR_DATA_DIR)',
    process.env.CONDUCTOR_DATA_DIR ?? '.conductor',
  )
  .option('--host <host>', 'address to listen on (env CONDUCTOR_HOST)', process.env.CONDUCTOR_HOST ?? '127.0.0.1')
  .option(
    '--port <port>',
    'port to listen on; 0 picks a free one (env CONDUCTOR_PORT)',
    portNumber,
    process.env.CONDUCTOR_PORT ? portNumber(process.env.CONDUCTOR_PORT) : 6443,
  )
  .option(
    '--tls-san <names>',
    'more DNS names or IPs, comma-separated, for the serving certificate: the address of a load balancer in front of several servers (env CONDUCTOR_TLS_SANS)',
    sanList,
    process.env.CONDUCTOR_TLS_SANS ? sanList(process.env.CONDUCTOR_TLS_SANS) : undefined,
  )
  .option('--log-level <level>', 'fatal, error, warn, info, debug or trace (env CONDUCTOR_LOG_LEVEL)', process.env.CONDUCTOR_LOG_LEVEL ?? 'info')
  .option('--token-file <path>', 'a CSV file of bearer tokens: token,user,uid,"group1,group2" (env CONDUCTOR_TOKEN_FILE)', process.env.CONDUCTOR_TOKEN_FILE)
  .option(
    '--audit-log <path>',
    'append one JSON line per API request to this file; no bodies are logged (env CONDUCTOR_AUDIT_LOG)',
    process.env.CONDUCTOR_AUDIT_LOG,
  )
  .option(
    '--max-requests-per-second <n>',
    'sustained requests per second allowed per user, 0 = unlimited; system:masters is exempt (env CONDUCTOR_MAX_REQUESTS_PER_SECOND)',
    nonNegativeNumber,
    process.env.CONDUCTOR_MAX_REQUESTS_PER_SECOND ? nonNegativeNumber(process.env.CONDUCTOR_MAX_REQUESTS_PER_SECOND) : 100,
  )
  .option(
    '--max-request-burst <n>',
    'requests a user may make at once before the per-second limit applies (env CONDUCTOR_MAX_REQUEST_BURST)',
    nonNegativeNumber,
    process.env.CONDUCTOR_MAX_REQUEST_BURST ? nonNegativeNumber(process.env.CONDUCTOR_MAX_REQUEST_BURST) : 400,
  )
  .option(
    '--request-timeout <seconds>',
    'non-watch requests not answered within this get a 504; 0 = none (env CONDUCTOR_REQUEST_TIMEOUT)',
    nonNegativeNumber,
    process.env.CONDUCTOR_REQUEST_TIMEOUT ? nonNegativeNumber(process.env.CONDUCTOR_REQUEST_TIMEOUT) : 60,
  )
  .option(
    '--max-watches-per-user <n>',
    'concurrent watches one user may hold, 0 = unlimited; system:masters is exempt (env CONDUCTOR_MAX_WATCHES_PER_USER)',
    wholeNumber,
    process.env.CONDUCTOR_MAX_WATCHES_PER_USER ? wholeNumber(process.env.CONDUCTOR_MAX_WATCHES_PER_USER) : 200,
  )
  .option('--leader-elect-lease-duration <seconds>', 'on etcd: how long the controllers lease holds without renewal', seconds, 15)
  .option('--leader-elect-renew-deadline <seconds>', 'on etcd: the leading server stops its controllers when it could not renew for this long', seconds, 10)
  .option('--leader-elect-retry-period <seconds>', 'on etcd: time between attempts to acquire or renew the controllers lease', seconds, 2);
addEtcdOptions(serverCommand, 'keep the objects in this etcd cluster (client URLs, comma-separated) instead of the data dir; several servers may share it');
serverCommand.action(
  async (
    o: EtcdFlags & {
      leaderElectLeaseDuration: number;
      leaderElectRenewDeadline: number;
      leaderElectRetryPeriod: number;
      tlsSan?: string[];
      dataDir: string;
      host: string;
      port: number;
      logLevel: string;
      tokenFile?: string;
      auditLog?: string;
      maxRequestsPerSecond: number;
      maxRequestBurst: number;
      requestTimeout: number;
      maxWatchesPerUser: number;
    },
  ) => {
    const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
    if (!levels.includes(o.logLevel)) {
      console.error(`conductor: --log-level must be one of ${levels.join(', ')} (got ${JSON.stringify(o.logLevel)})`);
      process.exit(2);
    }
    let etcd;
    try {
      etcd = etcdBackend(o);
    } catch (err) {
      console.error(`conductor: ${(err as Error).message}`);
      process.exit(2);
    }
    const leaderElection = {
      leaseDurationMs: o.leaderElectLeaseDuration * 1000,
      renewDeadlineMs: o.leaderElectRenewDeadline * 1000,
      retryPeriodMs: o.leaderElectRetryPeriod * 1000,
    };
    if (!(leaderElection.leaseDurationMs > leaderElection.renewDeadlineMs && leaderElection.renewDeadlineMs > leaderElection.retryPeriodMs)) {
      console.error('conductor: leader election needs --leader-elect-lease-duration > --leader-elect-renew-deadline > --leader-elect-retry-period');
      process.exit(2);
    }
    const logger = pino({ level: o.logLevel, base: { service: 'conductor' } }, pino.destination(2));
    // Before the caches fill: the RSS follows the heap's size (heap.ts).
    const heapGovernor = governServerHeap(process.execArgv, undefined, (lean, liveBytes, growthPercent) =>
      logger.info(
        { lean, growthPercent, liveMB: Math.round(liveBytes / 1e6) },
        lean
          ? 'V8 heap growth: lean (a large heap)'
          : growthPercent
            ? 'V8 heap growth: bounded (a heap on its way to large)'
            : "V8 heap growth: V8's own (a small heap)",
      ),
    );
    logger.debug({ heapGrowth: heapGovernor ? 'governed by heap size' : 'set by node' }, 'V8 heap growth');
    const retentionEnv = process.env.CONDUCTOR_HISTORY_MIN_REVISIONS;
    const ageEnv = process.env.CONDUCTOR_HISTORY_MIN_AGE_MS;
    // A slow start says what it waits for (stderr, once a second, after the first second).
    const progress = new StartProgress({ write: (line) => process.stderr.write(line) });
    let server;
    try {
      server = await startConductor({
        onStartStep: (what) => progress.step(what),
        dataDir: o.dataDir,
        etcd,
        // On etcd other servers may share the store: the controllers run in one at a time.
        leaderElection: etcd ? leaderElection : undefined,
        host: o.host,
        port: o.port,
        logger,
        tokenFile: o.tokenFile,
        auditLog: o.auditLog,
        rateLimit: { ratePerSecond: o.maxRequestsPerSecond, burst: Math.max(1, o.maxRequestBurst) },
        requestTimeoutMs: o.requestTimeout * 1000,
        maxWatchesPerUser: o.maxWatchesPerUser,
        maxPausedWatchEvents: process.env.CONDUCTOR_WATCH_MAX_PENDING_EVENTS ? wholeNumber(process.env.CONDUCTOR_WATCH_MAX_PENDING_EVENTS) : undefined,
        watchLingerMs: process.env.CONDUCTOR_WATCH_LINGER_MS ? wholeNumber(process.env.CONDUCTOR_WATCH_LINGER_MS) : undefined,
        retention: retentionEnv || ageEnv ? { minRevisions: Number(retentionEnv ?? 1000), minAgeMs: Number(ageEnv ?? 300_000) } : undefined,
        compactionIntervalMs: process.env.CONDUCTOR_COMPACTION_INTERVAL_MS ? Number(process.env.CONDUCTOR_COMPACTION_INTERVAL_MS) : undefined,
        bookmarkIntervalMs: process.env.CONDUCTOR_BOOKMARK_INTERVAL_MS ? Number(process.env.CONDUCTOR_BOOKMARK_INTERVAL_MS) : undefined,
        pollIntervalMs: process.env.CONDUCTOR_POLL_INTERVAL_MS ? Number(process.env.CONDUCTOR_POLL_INTERVAL_MS) : undefined,
        controllers: process.env.CONDUCTOR_CONTROLLERS !== 'false',
      });
    } catch (err) {
      progress.done();
      const msg = err instanceof Error ? err.message : String(err);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        console.error(`conductor: cannot listen on ${o.host}:${o.port}: the port is in use (choose another with --port, or 0 for a free one)`);
      else console.error(`conductor: cannot start the server: ${msg}`);
      process.exit(1);
    }
    progress.done();
    // An exception thrown while serving a request answers that request, not the process.
    installLastResortHandler(server.rescue, logger);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      server
        .close()
        .then(() => process.exit(0))
        .catch((err: unknown) => {
          logger.error({ err }, 'error while shutting down');
          process.exit(1);
        });
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    // Only now: whoever waits for this line may send SIGTERM at once, and without the handlers
    // above the default action would kill the process without a clean stop.
    process.stdout.write(`conductor ready on ${server.url} (kubeconfig: ${server.kubeconfigPath})\n`);
  },
);

program
  .command('crds')
  .description(
    "Print every Conductor CRD (claim and admin kinds, and the built-in providers' concrete kinds) as a multi-document YAML stream (for kubectl apply -f -)",
  )
  .option('--output-dir <dir>', 'write one file per CRD into this directory instead (removing stale *.yaml there)')
  .action(async (o: { outputDir?: string }) => {
    if (o.outputDir === undefined) {
      // A reader that stops early (`| head`) is not an error.
      process.stdout.on('error', (err: NodeJS.ErrnoException) => process.exit(err.code === 'EPIPE' ? 0 : 1));
      process.stdout.write(crdsYaml(allCrds()));
      return;
    }
    const { written, removed } = await writeCrdFiles(o.outputDir, allCrds());
    process.stdout.write(`wrote ${written.length} CRDs to ${o.outputDir}${removed.length ? ` (removed ${removed.join(', ')})` : ''}\n`);
  });

program
  .command('rbac')
  .description(
    'Print the least-privilege RBAC of `conductor controllers` (a ClusterRole and, in conductor-system, a Role for its Lease; bind them to its ServiceAccount) as YAML',
  )
  .option(
    '--output-dir <dir>',
    'write the rules only, as the Helm chart reads them (controller-cluster-rules.yaml, controller-lease-rules.yaml), into this directory',
  )
  .action(async (o: { outputDir?: string }) => {
    const { controllerRbacYaml, writeControllerRuleFiles } = await import('../conductor/controller-rbac-files.js');
    if (o.outputDir === undefined) {
      process.stdout.write(controllerRbacYaml());
      return;
    }
    const written = await writeControllerRuleFiles(o.outputDir);
    process.stdout.write(`wrote ${written.join(', ')} to ${o.outputDir}\n`);
  });

registerKeysCommand(program);
program.addCommand(userCommand());
program.addCommand(controllersCommand());
program.addCommand(traceCommand());
program.addCommand(logsCommand());
program.addCommand(planCommand());
program.addCommand(migrateCommand());

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`conductor: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
