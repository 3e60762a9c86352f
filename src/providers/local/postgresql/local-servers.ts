/**
 * LocalServers supervises dedicated PostgreSQL server processes, one per directory under
 * the instances root:
 *
 *   <root>/<namespace>_<name>/
 *     instance.json   port and passwords (mode 0600; written atomically)
 *     data/           PGDATA, made by initdb (built in data.init/ and renamed when complete)
 *     postgres.pid    pid of the postmaster Conductor started
 *     postgres.log    the server's output
 *
 * Every operation is idempotent and safe after a crash: an interrupted initdb is redone, a
 * postmaster that outlived a previous Conductor is adopted (found through the pid files and
 * checked to run in this data directory), a stale postmaster.pid left by a killed server is
 * removed, the chosen port is kept across restarts. Server processes are detached so a
 * Conductor restart does not take them down; `stopAll` stops those it started or adopted.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, open, readFile, realpath, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { generatePassword, withClient } from './admin.js';
import type { PostgresBinaries } from './binaries.js';
import { localSuperuser } from './kinds.js';
import { abandonStart, awaitDaemonReady, daemonEnv, spawnDaemon, type Readiness } from '../process/daemons.js';
import { runProgram } from '../process/cancellable.js';
import { isAlive, processCommand, processDirectory } from '../process/processes.js';
import { ProcessSupervisor, readStateFile, startWithRetries, writeStateFile, type StartOutcome } from '../process/supervisor.js';
import { giveTo, prepareServerDirectories, type RunAs } from '../process/run-as.js';
import { parseVersion } from './version.js';

/** InstanceState is what a dedicated instance keeps in instance.json. */
export interface InstanceState {
  namespace: string;
  name: string;
  port: number;
  superuser: string;
  superuserPassword: string;
  /** The password of the application role (rotated when the instance is scrubbed). */
  appPassword: string;
  createdAt: string;
}

/** ServerStatus is what `status` finds, without changing anything. */
export interface ServerStatus {
  /** instance.json exists. */
  provisioned: boolean;
  /** PGDATA is complete. */
  initialized: boolean;
  running: boolean;
  pid?: number;
  /** The port it listens on when running, else the port it will use. */
  port?: number;
  /** The major version of the data directory. */
  dataVersion?: string;
  state?: InstanceState;
}

export interface LocalServersOptions {
  /** The directory holding one subdirectory per instance. */
  root: string;
  binaries: PostgresBinaries;
  /** The user server processes run as (needed when Conductor is root). */
  runAs?: RunAs;
  logger?: ProviderLogger;
  /** How long a start may take before it fails; default 60 s. */
  startTimeoutMs?: number;
  /** Let initdb skip its final fsync (faster; for tests). Default false. */
  fastInitdb?: boolean;
}

interface Running {
  pid: number;
  port: number;
  child?: ChildProcess;
}

/** Log lines after which a start is worth another try shortly. */
const transientStartFailures = [/pre-existing shared memory block/, /lock file .* already exists/];
const portTaken = /could not bind|Address already in use/;
const maxStartAttempts = 8;

/** superuserConfig is how Conductor logs in to a dedicated instance as its superuser. */
export function superuserConfig(state: InstanceState, port: number, database = 'postgres'): pg.ClientConfig {
  return { host: '127.0.0.1', port, user: state.superuser, password: state.superuserPassword, database };
}

export class LocalServers extends ProcessSupervisor<InstanceState, Running> {
  private readonly binaries: PostgresBinaries;
  private readonly runAs: RunAs | undefined;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly fastInitdb: boolean;

  constructor(options: LocalServersOptions) {
    super(options.root, 'instance directory');
    this.binaries = options.binaries;
    this.runAs = options.runAs;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.fastInitdb = options.fastInitdb ?? false;
  }

  private files(dir: string) {
    return {
      state: join(dir, 'instance.json'),
      data: join(dir, 'data'),
      dataInit: join(dir, 'data.init'),
      pwfile: join(dir, 'initdb.pw'),
      pid: join(dir, 'postgres.pid'),
      log: join(dir, 'postgres.log'),
      postmasterPid: join(dir, 'data', 'postmaster.pid'),
    };
  }

  /** logFile is the server's log (stdout and stderr) in the instance directory `dir`. */
  logFile(dir: string): string {
    return this.files(dir).log;
  }

  /** readState reads instance.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<InstanceState | undefined> {
    const parsed = await readStateFile<InstanceState>(this.files(dir).state);
    if (parsed === undefined) return undefined;
    if (typeof parsed.port !== 'number' || typeof parsed.superuserPassword !== 'string' || typeof parsed.appPassword !== 'string') {
      throw new Error(`${this.files(dir).state} is not a valid instance state: want port, superuserPassword and appPassword`);
    }
    return parsed as InstanceState;
  }

  private async writeState(dir: string, state: InstanceState): Promise<void> {
    await writeStateFile(this.files(dir).state, state);
  }

  /** updateState changes instance.json (e.g. to rotate the application password). */
  async updateState(dir: string, change: Partial<Pick<InstanceState, 'appPassword' | 'port'>>): Promise<InstanceState> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) throw new Error(`instance ${full} has no state to update`);
      const next = { ...state, ...change };
      await this.writeState(full, next);
      return next;
    });
  }

  /** A live postmaster for this directory: the one we track, or one a pid file points at. */
  protected async findLive(dir: string): Promise<Running | undefined> {
    const tracked = await this.trackedAlive(dir);
    if (tracked) return tracked;
    const files = this.files(dir);
    return this.adoptOrNull(
      dir,
      [files.pid, files.postmasterPid],
      async (pid) => {
        if (!(await this.isPostmasterOf(pid, files.data))) return undefined;
        const port = await this.listeningPort(dir);
        return port === undefined ? undefined : { pid, port };
      },
      ({ pid, port }) => this.logger.info({ dir, pid, port }, 'adopted a running PostgreSQL server'),
    );
  }

  /** The port in postmaster.pid (line 4), which a running server wrote at start. */
  private async listeningPort(dir: string): Promise<number | undefined> {
    const text = await readFile(this.files(dir).postmasterPid, 'utf8').catch(() => '');
    const port = Number(text.split('\n')[3]);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  }

  /** isPostmasterOf checks that pid is a live postgres whose data directory is `data`. */
  private async isPostmasterOf(pid: number, data: string): Promise<boolean> {
    if (!(await isAlive(pid))) return false;
    const wanted = await realpath(data).catch(() => data);
    const cwd = await processDirectory(pid);
    const argv = await processCommand(pid);
    if (cwd === undefined && argv === undefined) return false; // cannot tell: do not adopt
    const isPostgres = argv === undefined || /(^|\/)(postgres|postmaster)$/.test(argv[0] ?? '');
    const inData = cwd === wanted || (argv !== undefined && argv.includes(data));
    return isPostgres && inData;
  }

  /** status reports what is there, changing nothing (apart from adopting a live server). */
  async status(dir: string): Promise<ServerStatus> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, initialized: false, running: false };
      const dataVersion = await this.dataVersion(full);
      const live = await this.findLive(full);
      return {
        provisioned: true,
        initialized: dataVersion !== undefined,
        running: live !== undefined,
        pid: live?.pid,
        port: live?.port ?? state.port,
        dataVersion,
        state,
      };
    });
  }

  private async dataVersion(dir: string): Promise<string | undefined> {
    const text = await readFile(join(this.files(dir).data, 'PG_VERSION'), 'utf8').catch(() => undefined);
    return text?.trim() || undefined;
  }

  private ensureState(dir: string, namespace: string, name: string, wantedPort?: number): Promise<InstanceState> {
    const create = (port: number): InstanceState => ({
      namespace,
      name,
      port,
      superuser: localSuperuser,
      superuserPassword: generatePassword(),
      appPassword: generatePassword(),
      createdAt: new Date().toISOString(),
    });
    return this.readOrCreateState(dir, wantedPort, create, (d, state) => this.writeState(d, state));
  }

  /** Make the root and instance directories exist and reachable by the server's user. */
  private async prepareDirectories(dir: string): Promise<void> {
    await prepareServerDirectories(this.root, dir, this.runAs, 'PostgreSQL');
  }

  private async giveToServerUser(path: string): Promise<void> {
    await giveTo(path, this.runAs);
  }

  /**
   * initdb builds PGDATA in data.init and renames it to data once complete. An abort of
   * `signal` kills initdb (and the postgres it runs) and leaves data.init for the next try.
   */
  private async ensureInitialized(dir: string, state: InstanceState, signal?: AbortSignal): Promise<void> {
    const files = this.files(dir);
    if ((await this.dataVersion(dir)) !== undefined) return;
    // An initdb left running by a Conductor killed mid-way would keep writing into data.init.
    await this.stopStrays(dir);
    await rm(files.dataInit, { recursive: true, force: true });
    await mkdir(files.dataInit, { mode: 0o700 });
    await this.giveToServerUser(files.dataInit);
    const pw = await open(files.pwfile, 'w', 0o600);
    await pw.writeFile(`${state.superuserPassword}\n`);
    await pw.close();
    await this.giveToServerUser(files.pwfile);
    try {
      const args = ['-D', files.dataInit, '-U', state.superuser, `--pwfile=${files.pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'];
      if (this.fastInitdb) args.push('--no-sync');
      this.logger.info({ dir, binaries: this.binaries.dir }, 'initializing a PostgreSQL data directory');
      await runProgram({ program: this.binaries.initdb, args, cwd: dir, env: daemonEnv(), runAs: this.runAs, signal });
    } finally {
      await rm(files.pwfile, { force: true });
    }
    // An incomplete data directory left by a crash is thrown away above; a complete one is kept.
    await rm(files.data, { recursive: true, force: true });
    await rename(files.dataInit, files.data);
  }

  /** A stale postmaster.pid (its server is gone) is removed so a new server can start. */
  private async clearStaleLock(dir: string): Promise<void> {
    const files = this.files(dir);
    const text = await readFile(files.postmasterPid, 'utf8').catch(() => undefined);
    if (text === undefined) return;
    const pid = Number(text.split('\n')[0]);
    if (await this.isPostmasterOf(pid, files.data)) {
      throw new Error(`a PostgreSQL server (pid ${pid}) already runs in ${files.data}`);
    }
    this.logger.info({ dir, pid }, 'removing a stale postmaster.pid');
    await rm(files.postmasterPid, { force: true });
  }

  /**
   * ensureRunning makes the instance exist (state, initdb) and its server run, adopting a
   * live one. `port` pins the port; otherwise the stored port is reused, or replaced by a
   * free one when something else took it. When `signal` aborts, the wait for the server
   * ends with the signal's reason, and a server this call started is killed.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
    signal?: AbortSignal,
  ): Promise<{ pid: number; port: number; state: InstanceState; started: boolean }> {
    return this.locked(dir, async (full) => {
      await this.prepareDirectories(full);
      const state = await this.ensureState(full, identity.namespace, identity.name, identity.port);
      const live = await this.findLive(full);
      if (live && (identity.port === undefined || identity.port === live.port)) {
        // A server just killed may still look alive for a moment: only a ready one counts.
        const readiness = await this.awaitReady(state, live.port, live.pid, () => undefined, signal);
        if (readiness === 'ready') return { pid: live.pid, port: live.port, state, started: false };
        if (readiness === 'timeout') throw new Error(`PostgreSQL in ${full} (pid ${live.pid}) runs but does not accept connections`);
        this.forget(full);
      } else if (live) {
        await this.stopLive(full, live); // a pinned port changed: restart there
      }
      await this.ensureInitialized(full, state, signal);
      const dataVersion = await this.dataVersion(full);
      const binaryMajor = parseVersion(this.binaries.version)?.major;
      if (dataVersion !== undefined && String(binaryMajor) !== dataVersion.split('.')[0]) {
        throw new Error(
          `data directory ${this.files(full).data} is PostgreSQL ${dataVersion} but the binaries in ${this.binaries.dir} are ${this.binaries.version}: ` +
            'point CONDUCTOR_POSTGRES_BIN at binaries of the same major version',
        );
      }
      const started = await startWithRetries({
        server: 'PostgreSQL',
        dir: full,
        state,
        pinned: identity.port,
        write: (next) => this.writeState(full, next),
        start: async (next) => {
          await this.clearStaleLock(full);
          return this.startProcess(full, next, next.port, signal);
        },
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

  private async startProcess(dir: string, state: InstanceState, port: number, signal?: AbortSignal): Promise<StartOutcome> {
    const files = this.files(dir);
    const started = await spawnDaemon({
      program: this.binaries.postgres,
      // A failed statement is not written to the log (log_min_error_statement): roles are made
      // with their passwords in the statement, and the log is readable by admins (the `log`
      // subresource) who may not read Secrets.
      args: ['-D', files.data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'log_min_error_statement=panic'],
      cwd: files.data,
      logFile: files.log,
      pidFile: files.pid,
      runAs: this.runAs,
    });
    if ('error' in started) return { ok: false, reason: started.error, log: '' };
    const { pid, child, exited } = started;
    this.logger.info({ dir, pid, port }, 'started a PostgreSQL server');

    let readiness: Readiness;
    try {
      readiness = await this.awaitReady(state, port, pid, exited, signal);
    } catch (err) {
      await abandonStart(pid, files.pid);
      this.logger.info({ dir, pid }, 'killed a PostgreSQL server whose start was cancelled');
      throw err;
    }
    return this.settleStart(dir, { pid, port, child }, readiness, {
      logFile: files.log,
      exited,
      timedOut: `the server did not accept connections within ${this.startTimeoutMs} ms`,
      exitedAs: 'the server exited',
    });
  }

  /**
   * awaitReady polls until the server accepts the superuser's connections, the process is
   * gone (`exited` says so for a child; otherwise its pid is checked), or time runs out.
   */
  private async awaitReady(state: InstanceState, port: number, pid: number, exited: () => string | undefined, signal?: AbortSignal): Promise<Readiness> {
    const probe = () =>
      withClient({ ...superuserConfig(state, port), connectionTimeoutMillis: 2000 }, (c) => c.query('SELECT 1')).then(
        () => true,
        () => false, // starting up, shutting down, or not listening yet
      );
    return awaitDaemonReady(pid, exited, probe, this.startTimeoutMs, 100, signal);
  }

  /** stopProcess asks for a fast shutdown, then an immediate one, then kills. */
  protected async stopLive(dir: string, server: Running): Promise<void> {
    await this.stopTracked(dir, server, this.files(dir).pid, [
      ['SIGINT', 20_000],
      ['SIGQUIT', 5_000],
      ['SIGKILL', 5_000],
    ]);
    this.logger.info({ dir, pid: server.pid }, 'stopped a PostgreSQL server');
  }

  /** afterDelete logs a removed instance directory. */
  protected override afterDelete(dir: string): void {
    this.logger.info({ dir }, 'removed a PostgreSQL instance directory');
  }
}
