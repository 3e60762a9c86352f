/**
 * NatsServers supervises the nats-server processes of NATSServer resources, one per
 * directory under the root:
 *
 *   <root>/<namespace>_<name>/
 *     server.json   port, Conductor's password and the claim accounts (mode 0600; atomic)
 *     nats.conf     the configuration rendered from server.json (mode 0600; atomic)
 *     nats.pid      pid of the server Conductor started
 *     nats.log      the server's output
 *
 * Changing the accounts rewrites server.json, then nats.conf, then signals the server to
 * reload (SIGHUP) and waits until the change shows (the new user logs in, a removed one no
 * longer does). When Conductor runs as root the server runs as another user (`runAs`:
 * `CONDUCTOR_NATS_USER`, else `nats`, else `nobody`), never as root: nats.conf (0600) is that
 * user's, the directory (0711) and server.json stay root's. Every step is idempotent: after a crash the next call renders and reloads
 * again. A server that outlived a previous Conductor is adopted through its pid file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lazyModule } from '../../lazy-module.js';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { abandonStart, awaitDaemonReady, startDaemon, stopDaemon, type Readiness } from '../process/daemons.js';
import { readTail, sleep, writeFileAtomic } from '../process/processes.js';
import { giveTo, prepareServerDirectories, type RunAs } from '../process/run-as.js';
import { keepPort, ProcessSupervisor, readStateFile, writeStateFile, type TrackedServer } from '../process/supervisor.js';
import type { NatsBinary } from './binaries.js';
import { adminUser, generateNatsPassword, renderNatsConfig, type NatsClaimAccount, type NatsServerState, type NatsSettings } from './config.js';

/** NatsServerStatus is what `status` finds, without changing anything. */
export interface NatsServerStatus {
  provisioned: boolean;
  running: boolean;
  pid?: number;
  state?: NatsServerState;
  /** Whether nats.conf is what server.json and the settings render to. */
  configCurrent?: boolean;
}

export interface NatsServersOptions {
  root: string;
  binary: NatsBinary;
  logger?: ProviderLogger;
  /** How long a start or a reload may take before it fails; default 20 s. */
  startTimeoutMs?: number;
  /** The user servers run as (needed when Conductor is root: servers never run as root). */
  runAs?: RunAs;
}

const maxStartAttempts = 5;
const portTaken = /address already in use/i;
/** The NATS client is loaded by the first login check, not at start. */
const natsClient = lazyModule(() => import('@nats-io/transport-node'));

/** natsLogin tries to log in; it reports whether the server accepted the user. */
export async function natsLogin(port: number, user: string, pass: string, timeoutMs = 2000): Promise<boolean> {
  // Outside the try: a client that cannot be loaded is an error, not a refused login.
  const { connect } = await natsClient();
  try {
    const nc = await connect({ servers: `127.0.0.1:${port}`, user, pass, reconnect: false, timeout: timeoutMs });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

/** A NatsServers supervises the nats-server processes of one provider. */
export class NatsServers extends ProcessSupervisor<NatsServerState, TrackedServer> {
  private readonly binary: NatsBinary;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;

  private readonly runAs: RunAs | undefined;

  constructor(options: NatsServersOptions) {
    super(options.root, 'server directory');
    this.runAs = options.runAs;
    this.binary = options.binary;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 20_000;
  }

  /** writeConfig replaces nats.conf (0600), the server user's: the server reads it at start and on SIGHUP. */
  private async writeConfig(path: string, text: string): Promise<void> {
    await writeFileAtomic(path, text);
    await giveTo(path, this.runAs);
  }

  /** logFile is the server's log (its stdout and stderr) in the directory `dir`. */
  logFile(dir: string): string {
    return this.files(dir).log;
  }

  private files(dir: string) {
    return { state: join(dir, 'server.json'), config: join(dir, 'nats.conf'), pid: join(dir, 'nats.pid'), log: join(dir, 'nats.log') };
  }

  /** readState reads server.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<NatsServerState | undefined> {
    const parsed = await readStateFile<NatsServerState>(this.files(dir).state);
    if (parsed === undefined) return undefined;
    if (typeof parsed.port !== 'number' || typeof parsed.adminPassword !== 'string' || typeof parsed.accounts !== 'object' || parsed.accounts === null) {
      throw new Error(`${this.files(dir).state} is not a valid NATS server state: want port, adminPassword and accounts`);
    }
    return parsed as NatsServerState;
  }

  private async writeState(dir: string, state: NatsServerState): Promise<void> {
    await writeStateFile(this.files(dir).state, state);
  }

  protected findLive(dir: string): Promise<TrackedServer | undefined> {
    const daemon = { pidFile: this.files(dir).pid, program: this.binary.path, cwd: dir };
    return this.findTrackedDaemon(
      dir,
      daemon,
      (pid) => ({ pid }),
      (pid) => this.logger.info({ dir, pid }, 'adopted a running NATS server'),
    );
  }

  /** status reports what is there, changing nothing (apart from adopting a live server). */
  async status(dir: string, settings: NatsSettings = {}): Promise<NatsServerStatus> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, running: false };
      const pid = (await this.findLive(full))?.pid;
      const config = await readFile(this.files(full).config, 'utf8').catch(() => '');
      return { provisioned: true, running: pid !== undefined, pid, state, configCurrent: config === renderNatsConfig(state, settings) };
    });
  }

  /**
   * ensureRunning makes the server exist and run with the current configuration, adopting a
   * live one (and reloading it when its configuration file was stale). When `signal` aborts,
   * the wait for the server ends with the signal's reason, and a server this call started is
   * killed.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
    settings: NatsSettings = {},
    signal?: AbortSignal,
  ): Promise<{ pid: number; state: NatsServerState; started: boolean }> {
    return this.locked(dir, (full) => this.ensureRunningLocked(full, identity, settings, signal));
  }

  private async ensureRunningLocked(
    full: string,
    identity: { namespace: string; name: string; port?: number },
    settings: NatsSettings,
    signal?: AbortSignal,
  ): Promise<{ pid: number; state: NatsServerState; started: boolean }> {
    const files = this.files(full);
    await prepareServerDirectories(this.root, full, this.runAs, 'NATS');
    const create = (port: number): NatsServerState => ({
      namespace: identity.namespace,
      name: identity.name,
      port,
      adminPassword: generateNatsPassword(),
      accounts: {},
      createdAt: new Date().toISOString(),
    });
    let state = await this.readOrCreateState(full, identity.port, create, (d, next) => this.writeState(d, next));
    const live = (await this.findLive(full))?.pid;
    if (live !== undefined) {
      if ((identity.port === undefined || identity.port === state.port) && (await this.awaitReady(state, live, () => undefined, signal)) === 'ready') {
        await this.reloadIfStale(full, live, state, settings);
        return { pid: live, state, started: false };
      }
      await this.stopServer(full, live);
    }
    for (let attempt = 1; ; attempt++) {
      state = await keepPort(state, identity.port, (next) => this.writeState(full, next));
      const port = state.port;
      await this.writeConfig(files.config, renderNatsConfig(state, settings));
      const started = await startDaemon({
        program: this.binary.path,
        args: ['-c', files.config],
        cwd: full,
        logFile: files.log,
        pidFile: files.pid,
        runAs: this.runAs,
      });
      this.logger.info({ dir: full, pid: started.pid, port }, 'started a NATS server');
      let readiness: Readiness;
      try {
        readiness = await this.awaitReady(state, started.pid, started.exited, signal);
      } catch (err) {
        await abandonStart(started.pid, files.pid);
        this.logger.info({ dir: full, pid: started.pid }, 'killed a NATS server whose start was cancelled');
        throw err;
      }
      if (readiness === 'ready') {
        this.track(full, { pid: started.pid, child: started.child });
        return { pid: started.pid, state, started: true };
      }
      if (readiness === 'timeout') await stopDaemon(started.pid, files.pid);
      const log = await readTail(files.log, 4);
      const reason = readiness === 'timeout' ? `it did not accept logins within ${this.startTimeoutMs} ms` : `it exited (${started.exited() ?? 'gone'})`;
      if (attempt >= maxStartAttempts || identity.port !== undefined || !portTaken.test(log)) {
        throw new Error(`nats-server in ${full} did not start: ${reason}${log ? `; log: ${log}` : ''}`);
      }
      await sleep(100 * attempt);
      signal?.throwIfAborted();
    }
  }

  /** reloadIfStale rewrites nats.conf when it differs from the state and makes the server reload it. */
  private async reloadIfStale(dir: string, pid: number, state: NatsServerState, settings: NatsSettings): Promise<boolean> {
    const files = this.files(dir);
    const wanted = renderNatsConfig(state, settings);
    const current = await readFile(files.config, 'utf8').catch(() => '');
    if (current === wanted) return false;
    await this.writeConfig(files.config, wanted);
    process.kill(pid, 'SIGHUP');
    this.logger.info({ dir, pid }, 'reloading the NATS server configuration');
    return true;
  }

  /**
   * changeAccounts applies `change` to the claim accounts (under the server's lock), stores
   * the result, reloads the running server, and waits until `check` sees the change.
   */
  private async changeAccounts(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
    settings: NatsSettings,
    change: (accounts: Record<string, NatsClaimAccount>) => Record<string, NatsClaimAccount>,
    check: (state: NatsServerState) => Promise<boolean>,
  ): Promise<NatsServerState> {
    return this.locked(dir, async (full) => {
      const { pid, state: before } = await this.ensureRunningLocked(full, identity, settings);
      const accounts = change({ ...before.accounts });
      const state = { ...before, accounts };
      if (JSON.stringify(accounts) !== JSON.stringify(before.accounts)) await this.writeState(full, state);
      await this.reloadIfStale(full, pid, state, settings);
      const deadline = Date.now() + this.startTimeoutMs;
      while (!(await check(state))) {
        if (Date.now() >= deadline)
          throw new Error(
            `the NATS server in ${full} did not apply its new configuration within ${this.startTimeoutMs} ms; log: ${await readTail(this.files(full).log, 4)}`,
          );
        await sleep(50);
      }
      return state;
    });
  }

  /**
   * ensureAccount makes `account` (by name) exist with exactly these credentials and
   * returns it; an existing account of the same claim keeps its password unless `password`
   * is given.
   */
  async ensureAccount(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
    settings: NatsSettings,
    name: string,
    wanted: Omit<NatsClaimAccount, 'password'> & { password?: string },
  ): Promise<{ account: NatsClaimAccount; port: number }> {
    let account: NatsClaimAccount | undefined;
    const state = await this.changeAccounts(
      dir,
      identity,
      settings,
      (accounts) => {
        const existing = accounts[name];
        // An account of another claim is never taken over (nor its password handed out).
        if (existing && (existing.claim.namespace !== wanted.claim.namespace || existing.claim.name !== wanted.claim.name)) {
          throw new Error(
            `account ${name} belongs to claim ${existing.claim.namespace}/${existing.claim.name}, not ${wanted.claim.namespace}/${wanted.claim.name}`,
          );
        }
        const password = wanted.password ?? existing?.password ?? generateNatsPassword();
        account = { claim: wanted.claim, username: wanted.username, subject: wanted.subject, password };
        accounts[name] = account;
        return accounts;
      },
      (s) => natsLogin(s.port, account!.username, account!.password),
    );
    return { account: account!, port: state.port };
  }

  /** removeAccount removes a claim account; its user can no longer log in (and is disconnected). */
  async removeAccount(dir: string, identity: { namespace: string; name: string; port?: number }, settings: NatsSettings, name: string): Promise<void> {
    let removed: NatsClaimAccount | undefined;
    await this.changeAccounts(
      dir,
      identity,
      settings,
      (accounts) => {
        removed = accounts[name];
        delete accounts[name];
        return accounts;
      },
      async (s) => !removed || !(await natsLogin(s.port, removed.username, removed.password)),
    );
  }

  /** rotateAccount gives a claim account a new password, so its old credentials stop working. */
  async rotateAccount(dir: string, identity: { namespace: string; name: string; port?: number }, settings: NatsSettings, name: string): Promise<void> {
    let account: NatsClaimAccount | undefined;
    await this.changeAccounts(
      dir,
      identity,
      settings,
      (accounts) => {
        const existing = accounts[name];
        if (existing) accounts[name] = account = { ...existing, password: generateNatsPassword() };
        return accounts;
      },
      async (s) => !account || natsLogin(s.port, account.username, account.password),
    );
  }

  /** awaitReady polls until Conductor's own user logs in, the process exits, or time runs out. */
  private awaitReady(state: NatsServerState, pid: number, exited: () => string | undefined, signal?: AbortSignal): Promise<Readiness> {
    const probe = () => natsLogin(state.port, adminUser, state.adminPassword, 1000);
    return awaitDaemonReady(pid, exited, probe, this.startTimeoutMs, 50, signal);
  }

  private async stopServer(dir: string, pid: number): Promise<void> {
    await stopDaemon(pid, this.files(dir).pid);
    this.forget(dir);
    this.logger.info({ dir, pid }, 'stopped a NATS server');
  }

  protected stopLive(dir: string, server: TrackedServer): Promise<void> {
    return this.stopServer(dir, server.pid);
  }

  /** afterDelete logs a removed server directory. */
  protected override afterDelete(dir: string): void {
    this.logger.info({ dir }, 'removed a NATS server directory');
  }
}
