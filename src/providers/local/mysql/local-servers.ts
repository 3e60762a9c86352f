/**
 * MariaDbServers supervises dedicated MariaDB server processes, one per directory under the
 * instances root:
 *
 *   <root>/<namespace>_<name>/
 *     instance.json   port and passwords (mode 0600; written atomically)
 *     data/           the data directory, made by mariadb-install-db (built in data.init/
 *                     and renamed when complete)
 *     mariadbd.pid    pid of the server (written by Conductor at spawn)
 *     data/mariadbd.pid  the same, written by the server
 *     mariadbd.log    the server's error log and output
 *     init.sql        while a server starts: makes Conductor's admin account exist
 *     tmp/            the server's temporary files (--tmpdir; of mariadb-install-db's too)
 *
 * Conductor administers an instance as `conductor`@`127.0.0.1` over TCP; the account is
 * (re)made by the init file at every start, so an instance whose admin account was dropped
 * by hand heals on restart. Every operation is idempotent and safe after a crash: an
 * interrupted mariadb-install-db is redone, a server that outlived a previous Conductor is
 * adopted (found through its pid file and checked to run on this data directory), the
 * chosen port is kept across restarts. Servers are detached so a Conductor restart does not
 * take them down; `stopAll` stops those it started or adopted.
 *
 * When Conductor runs as root the servers (and mariadb-install-db) run as another user
 * (`runAs`: `CONDUCTOR_MARIADB_USER`, else `mysql`, else `nobody`), never as root: the data
 * directory, the log and the init file are that user's; the instance directory and
 * instance.json stay root's (0711 and 0600), so the server cannot read or change the state.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm, realpath, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { abandonStart, awaitDaemonReady, daemonEnv, spawnDaemon, type Readiness } from '../process/daemons.js';
import { runProgram } from '../process/cancellable.js';
import { isAlive, processCommand, processDirectory, writeFileAtomic } from '../process/processes.js';
import { ProcessSupervisor, readStateFile, startWithRetries, writeStateFile, type StartOutcome } from '../process/supervisor.js';
import { generatePassword, mysqlDriver, withConnection, type ConnectConfig, type SqlConnection } from './admin.js';
import type { MariaDbBinaries } from './binaries.js';
import { localAdminUser } from './kinds.js';
import { giveTo, prepareServerDirectories, type RunAs } from '../process/run-as.js';

/** MariaDbInstanceState is what a dedicated instance keeps in instance.json. */
export interface MariaDbInstanceState {
  namespace: string;
  name: string;
  port: number;
  adminUser: string;
  adminPassword: string;
  /** The password of the application user (rotated when the instance is scrubbed). */
  appPassword: string;
  createdAt: string;
}

/** MariaDbServerStatus is what `status` finds, without changing anything. */
export interface MariaDbServerStatus {
  /** instance.json exists. */
  provisioned: boolean;
  /** The data directory is complete. */
  initialized: boolean;
  running: boolean;
  pid?: number;
  /** The port it listens on when running, else the port it will use. */
  port?: number;
  state?: MariaDbInstanceState;
}

export interface MariaDbServersOptions {
  /** The directory holding one subdirectory per instance. */
  root: string;
  binaries: MariaDbBinaries;
  logger?: ProviderLogger;
  /** How long a start may take before it fails; default 60 s. */
  startTimeoutMs?: number;
  /** Extra server options, e.g. `--innodb-buffer-pool-size=16M` for tests. */
  serverArgs?: string[];
  /** The user servers run as (needed when Conductor is root: servers never run as root). */
  runAs?: RunAs;
}

interface Running {
  pid: number;
  port: number;
  child?: ChildProcess;
}

const transientStartFailures = [/Unable to lock/i, /Can't lock aria control file/i, /Resource temporarily unavailable/i];
const portTaken = /Address already in use|another .* server running on port/i;
const maxStartAttempts = 8;
/** Unix socket paths must fit in sockaddr_un (108 bytes on Linux). */
const maxSocketPath = 100;

/** adminConfig is how Conductor logs in to a dedicated instance as its administrator. */
export function adminConfig(state: MariaDbInstanceState, port: number): ConnectConfig {
  return { host: '127.0.0.1', port, user: state.adminUser, password: state.adminPassword };
}

/**
 * initSql makes the admin account exist with the stored password and every privilege;
 * `escaper` (mysql2, or a connection) quotes the user and password.
 */
export function initSql(state: MariaDbInstanceState, escaper: Pick<SqlConnection, 'escape'>): string {
  const account = `${escaper.escape(state.adminUser)}@'127.0.0.1'`;
  const password = escaper.escape(state.adminPassword);
  return [
    `CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${password};`,
    `ALTER USER ${account} IDENTIFIED BY ${password};`,
    `GRANT ALL PRIVILEGES ON *.* TO ${account} WITH GRANT OPTION;`,
    '',
  ].join('\n');
}

export class MariaDbServers extends ProcessSupervisor<MariaDbInstanceState, Running> {
  private readonly binaries: MariaDbBinaries;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly serverArgs: string[];
  private readonly runAs: RunAs | undefined;

  constructor(options: MariaDbServersOptions) {
    super(options.root, 'instance directory');
    this.binaries = options.binaries;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.serverArgs = options.serverArgs ?? [];
    this.runAs = options.runAs;
  }

  /** logFile is the server's log (its stdout and stderr) in the directory `dir`. */
  logFile(dir: string): string {
    return this.files(dir).log;
  }

  private files(dir: string) {
    // In the data directory: the server (maybe not root) creates it, and only there may it write.
    const inDir = join(dir, 'data', 'mysqld.sock');
    return {
      state: join(dir, 'instance.json'),
      data: join(dir, 'data'),
      dataInit: join(dir, 'data.init'),
      pid: join(dir, 'mariadbd.pid'),
      serverPid: join(dir, 'data', 'mariadbd.pid'),
      log: join(dir, 'mariadbd.log'),
      init: join(dir, 'init.sql'),
      // The server's own temporary files (--tmpdir), not the shared /tmp: mariadbd names its
      // temporary tables there by pid and thread, and concurrent bootstraps of mariadb-install-db
      // in one /tmp were seen to lose each other's (ERROR 1051 Unknown table 'mysql.tmp_user_sys').
      tmp: join(dir, 'tmp'),
      socket: inDir.length <= maxSocketPath ? inDir : join(tmpdir(), `conductor-mariadb-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.sock`),
    };
  }

  /** readState reads instance.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<MariaDbInstanceState | undefined> {
    const parsed = await readStateFile<MariaDbInstanceState>(this.files(dir).state);
    if (parsed === undefined) return undefined;
    if (typeof parsed.port !== 'number' || typeof parsed.adminPassword !== 'string' || typeof parsed.appPassword !== 'string') {
      throw new Error(`${this.files(dir).state} is not a valid instance state: want port, adminPassword and appPassword`);
    }
    return { adminUser: localAdminUser, ...parsed } as MariaDbInstanceState;
  }

  private async writeState(dir: string, state: MariaDbInstanceState): Promise<void> {
    await writeStateFile(this.files(dir).state, state);
  }

  /** updateState changes stored fields (e.g. a rotated password) and returns the new state. */
  async updateState(dir: string, patch: Partial<Pick<MariaDbInstanceState, 'appPassword' | 'port'>>): Promise<MariaDbInstanceState> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) throw new Error(`instance ${full} has no instance.json: it was never created`);
      const next = { ...state, ...patch };
      await this.writeState(full, next);
      return next;
    });
  }

  private async initialized(dir: string): Promise<boolean> {
    return stat(join(this.files(dir).data, 'mysql')).then(
      (s) => s.isDirectory(),
      () => false,
    );
  }

  /** isServerOf checks that pid is a live mariadbd serving the data directory `data`. */
  private async isServerOf(pid: number, data: string): Promise<boolean> {
    if (!(await isAlive(pid))) return false;
    const argv = await processCommand(pid);
    const cwd = await processDirectory(pid);
    if (argv === undefined && cwd === undefined) return false; // cannot tell: do not adopt
    const isServer = argv === undefined || /(^|\/)(mariadbd|mysqld)$/.test(argv[0] ?? '');
    const wanted = await realpath(data).catch(() => data);
    const onData = (argv?.includes(`--datadir=${data}`) ?? false) || cwd === wanted;
    return isServer && onData;
  }

  /** findServer returns the live server of an instance: tracked, or adopted through its pid file. */
  protected async findLive(dir: string): Promise<Running | undefined> {
    const files = this.files(dir);
    const tracked = await this.trackedAlive(dir, (server) => this.isServerOf(server.pid, files.data));
    if (tracked) return tracked;
    return this.adoptOrNull(
      dir,
      [files.pid, files.serverPid],
      async (pid) => {
        if (!(await this.isServerOf(pid, files.data))) return undefined;
        const argv = (await processCommand(pid)) ?? [];
        const portArg = argv.find((a) => a.startsWith('--port='));
        const state = await this.readState(dir);
        const port = portArg ? Number(portArg.slice('--port='.length)) : state?.port;
        return port ? { pid, port } : undefined;
      },
      ({ pid, port }) => this.logger.info({ dir, pid, port }, 'adopted a running MariaDB server'),
    );
  }

  /** status reports what is there, changing nothing (apart from adopting a live server). */
  async status(dir: string): Promise<MariaDbServerStatus> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, initialized: false, running: false };
      const live = await this.findLive(full);
      return {
        provisioned: true,
        initialized: await this.initialized(full),
        running: live !== undefined,
        pid: live?.pid,
        port: live?.port ?? state.port,
        state,
      };
    });
  }

  private ensureState(dir: string, namespace: string, name: string, wantedPort?: number): Promise<MariaDbInstanceState> {
    const create = (port: number): MariaDbInstanceState => ({
      namespace,
      name,
      port,
      adminUser: localAdminUser,
      adminPassword: generatePassword(),
      appPassword: generatePassword(),
      createdAt: new Date().toISOString(),
    });
    return this.readOrCreateState(dir, wantedPort, create, (d, state) => this.writeState(d, state));
  }

  /**
   * ensureInitialized runs mariadb-install-db into data.init and renames it to data once
   * complete. An abort of `signal` kills mariadb-install-db (and the mariadbd it runs) and
   * leaves data.init for the next try.
   */
  private async ensureInitialized(dir: string, signal?: AbortSignal): Promise<void> {
    if (await this.initialized(dir)) return;
    const files = this.files(dir);
    // A mariadb-install-db left running by a Conductor killed mid-way would keep writing into data.init.
    await this.stopStrays(dir);
    await rm(files.dataInit, { recursive: true, force: true });
    await mkdir(files.dataInit, { mode: 0o700 });
    await giveTo(files.dataInit, this.runAs);
    await this.ensureTmpDir(files.tmp);
    this.logger.info({ dir, installDb: this.binaries.installDb }, 'initializing a MariaDB data directory');
    await runProgram({
      program: this.binaries.installDb,
      args: ['--no-defaults', `--datadir=${files.dataInit}`, `--tmpdir=${files.tmp}`, '--auth-root-authentication-method=socket', '--skip-test-db'],
      cwd: dir,
      env: daemonEnv(),
      runAs: this.runAs,
      signal,
    });
    // An incomplete data directory left by a crash is thrown away above; a complete one is kept.
    await rm(files.data, { recursive: true, force: true });
    await rename(files.dataInit, files.data);
  }

  /**
   * ensureRunning makes the instance exist (state, data directory) and its server run,
   * adopting a live one. `port` pins the port; otherwise the stored port is reused, or
   * replaced by a free one when something else took it. When `signal` aborts, the wait for
   * the server ends with the signal's reason, and a server this call started is killed.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
    signal?: AbortSignal,
  ): Promise<{ pid: number; port: number; state: MariaDbInstanceState; started: boolean }> {
    return this.locked(dir, async (full) => {
      await prepareServerDirectories(this.root, full, this.runAs, 'MariaDB');
      const state = await this.ensureState(full, identity.namespace, identity.name, identity.port);
      const live = await this.findLive(full);
      if (live && (identity.port === undefined || identity.port === live.port)) {
        // A server just killed may still look alive for a moment: only a ready one counts.
        const readiness = await this.awaitReady(state, live.port, live.pid, () => undefined, signal);
        if (readiness === 'ready') return { pid: live.pid, port: live.port, state, started: false };
        if (readiness === 'timeout') throw new Error(`MariaDB in ${full} (pid ${live.pid}) runs but does not accept connections`);
        this.forget(full);
      } else if (live) {
        await this.stopLive(full, live); // a pinned port changed: restart there
      }
      await this.ensureInitialized(full, signal);
      const started = await startWithRetries({
        server: 'MariaDB',
        dir: full,
        state,
        pinned: identity.port,
        write: (next) => this.writeState(full, next),
        start: (next) => this.startProcess(full, next, next.port, signal),
        signal,
        maxAttempts: maxStartAttempts,
        transient: transientStartFailures,
        portTaken,
        backoffMs: 200,
        logger: this.logger,
      });
      return { pid: started.pid, port: started.state.port, state: started.state, started: true };
    });
  }

  /** ensureTmpDir makes the server's temporary directory (private to the server user) if it is missing. */
  private async ensureTmpDir(tmp: string): Promise<void> {
    await mkdir(tmp, { mode: 0o700, recursive: true });
    await giveTo(tmp, this.runAs);
  }

  private async startProcess(dir: string, state: MariaDbInstanceState, port: number, signal?: AbortSignal): Promise<StartOutcome> {
    const files = this.files(dir);
    await writeFileAtomic(files.init, initSql(state, await mysqlDriver()), 0o600);
    await giveTo(files.init, this.runAs);
    // The server opens its log itself (--log-error): made here so it is the server user's.
    await (await open(files.log, 'a', 0o600)).close();
    await giveTo(files.log, this.runAs);
    await this.ensureTmpDir(files.tmp);
    const args = [
      '--no-defaults',
      `--datadir=${files.data}`,
      `--tmpdir=${files.tmp}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${files.socket}`,
      `--pid-file=${files.serverPid}`,
      `--log-error=${files.log}`,
      `--init-file=${files.init}`,
      '--skip-name-resolve',
      '--character-set-server=utf8mb4',
      ...this.serverArgs,
    ];
    const started = await spawnDaemon({ program: this.binaries.server, args, cwd: dir, logFile: files.log, pidFile: files.pid, runAs: this.runAs });
    if ('error' in started) {
      await rm(files.init, { force: true });
      return { ok: false, reason: started.error, log: '' };
    }
    const { pid, child, exited } = started;
    this.logger.info({ dir, pid, port }, 'started a MariaDB server');
    let readiness: Readiness;
    try {
      readiness = await this.awaitReady(state, port, pid, exited, signal);
    } catch (err) {
      await abandonStart(pid, files.pid);
      await rm(files.init, { force: true });
      this.logger.info({ dir, pid }, 'killed a MariaDB server whose start was cancelled');
      throw err;
    }
    await rm(files.init, { force: true });
    return this.settleStart(dir, { pid, port, child }, readiness, {
      logFile: files.log,
      exited,
      timedOut: `the server did not accept connections within ${this.startTimeoutMs} ms`,
      exitedAs: 'the server exited',
    });
  }

  /** awaitReady polls until the admin can log in, the process is gone, or time runs out. */
  private async awaitReady(state: MariaDbInstanceState, port: number, pid: number, exited: () => string | undefined, signal?: AbortSignal): Promise<Readiness> {
    const probe = () =>
      withConnection(adminConfig(state, port), (c) => c.query('SELECT 1')).then(
        () => true,
        () => false, // starting up, shutting down, or not listening yet
      );
    return awaitDaemonReady(pid, exited, probe, this.startTimeoutMs, 100, signal);
  }

  /** stopProcess asks for a normal shutdown, then kills. */
  protected async stopLive(dir: string, server: Running): Promise<void> {
    await this.stopTracked(dir, server, this.files(dir).pid, [
      ['SIGTERM', 30_000],
      ['SIGKILL', 5_000],
    ]);
    this.logger.info({ dir, pid: server.pid }, 'stopped a MariaDB server');
  }

  /** beforeDelete removes the server's socket, which may lie outside the directory. */
  protected override async beforeDelete(dir: string): Promise<void> {
    await rm(this.files(dir).socket, { force: true });
  }

  /** afterDelete logs a removed instance directory. */
  protected override afterDelete(dir: string): void {
    this.logger.info({ dir }, 'removed a MariaDB instance directory');
  }
}
