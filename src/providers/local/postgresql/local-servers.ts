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
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, open, readFile, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import pg from 'pg';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { generatePassword, withClient } from './admin.js';
import type { PostgresBinaries } from './binaries.js';
import { localSuperuser } from './kinds.js';
import { instanceDirectoryName } from './names.js';
import {
  freePort,
  isAlive,
  KeyedMutex,
  waitForFreePort,
  processCommand,
  processDirectory,
  readTail,
  sleep,
  waitForExit,
  writeFileAtomic,
  writeText,
} from '../process/processes.js';
import { untraversableAncestor, type RunAs } from '../process/run-as.js';
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

export class LocalServers {
  readonly root: string;
  private readonly binaries: PostgresBinaries;
  private readonly runAs: RunAs | undefined;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly fastInitdb: boolean;
  private readonly running = new Map<string, Running>();
  private readonly locks = new KeyedMutex();

  constructor(options: LocalServersOptions) {
    this.root = resolve(options.root);
    this.binaries = options.binaries;
    this.runAs = options.runAs;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.fastInitdb = options.fastInitdb ?? false;
  }

  /** dirFor is the directory of the instance for a resource. */
  dirFor(namespace: string, name: string): string {
    return join(this.root, instanceDirectoryName(namespace, name));
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

  private checkDir(dir: string): string {
    const full = resolve(dir);
    const rel = relative(this.root, full);
    if (rel === '' || rel.startsWith('..') || rel.includes(sep)) {
      throw new Error(`instance directory ${full} is not directly under ${this.root}`);
    }
    return full;
  }

  /** readState reads instance.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<InstanceState | undefined> {
    let text: string;
    try {
      text = await readFile(this.files(dir).state, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const parsed = JSON.parse(text) as Partial<InstanceState>;
    if (typeof parsed.port !== 'number' || typeof parsed.superuserPassword !== 'string' || typeof parsed.appPassword !== 'string') {
      throw new Error(`${this.files(dir).state} is not a valid instance state: want port, superuserPassword and appPassword`);
    }
    return parsed as InstanceState;
  }

  private async writeState(dir: string, state: InstanceState): Promise<void> {
    await writeFileAtomic(this.files(dir).state, `${JSON.stringify(state, null, 2)}\n`, 0o600);
  }

  /** updateState changes instance.json (e.g. to rotate the application password). */
  async updateState(dir: string, change: Partial<Pick<InstanceState, 'appPassword' | 'port'>>): Promise<InstanceState> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      const state = await this.readState(full);
      if (!state) throw new Error(`instance ${full} has no state to update`);
      const next = { ...state, ...change };
      await this.writeState(full, next);
      return next;
    });
  }

  /** A live postmaster for this directory: the one we track, or one a pid file points at. */
  private async findPostmaster(dir: string): Promise<Running | undefined> {
    const tracked = this.running.get(dir);
    if (tracked && (await isAlive(tracked.pid))) return tracked;
    this.running.delete(dir);
    const files = this.files(dir);
    for (const pidFile of [files.pid, files.postmasterPid]) {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      const lines = text.split('\n');
      const pid = Number(lines[0]);
      if (!(await this.isPostmasterOf(pid, files.data))) continue;
      const port = await this.listeningPort(dir);
      if (port === undefined) continue;
      const adopted: Running = { pid, port };
      this.running.set(dir, adopted);
      this.logger.info({ dir, pid, port }, 'adopted a running PostgreSQL server');
      return adopted;
    }
    return undefined;
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
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, initialized: false, running: false };
      const dataVersion = await this.dataVersion(full);
      const live = await this.findPostmaster(full);
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

  private async ensureState(dir: string, namespace: string, name: string, wantedPort?: number): Promise<InstanceState> {
    const existing = await this.readState(dir);
    if (existing) return existing;
    const state: InstanceState = {
      namespace,
      name,
      port: wantedPort ?? (await freePort()),
      superuser: localSuperuser,
      superuserPassword: generatePassword(),
      appPassword: generatePassword(),
      createdAt: new Date().toISOString(),
    };
    await this.writeState(dir, state);
    return state;
  }

  /** Make the root and instance directories exist and reachable by the server's user. */
  private async prepareDirectories(dir: string): Promise<void> {
    const mode = this.runAs ? 0o711 : 0o700;
    await mkdir(this.root, { recursive: true, mode });
    await mkdir(dir, { recursive: true, mode });
    if (!this.runAs) return;
    // Only search permission, and only on directories this provider owns.
    await chmod(this.root, 0o711);
    await chmod(dir, 0o711);
    const blocked = await untraversableAncestor(dir, this.runAs);
    if (blocked) {
      throw new Error(
        `PostgreSQL runs as user "${this.runAs.name}" (uid ${this.runAs.uid}) because Conductor runs as root, and that user cannot reach ${dir}: ` +
          `${blocked} is not searchable by it (chmod o+x ${blocked}), or choose an instances directory it can reach, or run Conductor as another user`,
      );
    }
  }

  private async giveToServerUser(path: string): Promise<void> {
    if (this.runAs) await chown(path, this.runAs.uid, this.runAs.gid);
  }

  private async runProgram(program: string, args: string[], cwd: string): Promise<void> {
    await new Promise<void>((resolvePromise, reject) => {
      const child = spawn(program, args, {
        cwd,
        env: serverEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(this.runAs ? { uid: this.runAs.uid, gid: this.runAs.gid } : {}),
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        if (code === 0) resolvePromise();
        else reject(new Error(`${program} ${args.join(' ')} failed (${signal ?? `exit ${code}`}): ${output.trim().split('\n').slice(-5).join(' | ')}`));
      });
    });
  }

  /** initdb builds PGDATA in data.init and renames it to data once complete. */
  private async ensureInitialized(dir: string, state: InstanceState): Promise<void> {
    const files = this.files(dir);
    if ((await this.dataVersion(dir)) !== undefined) return;
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
      await this.runProgram(this.binaries.initdb, args, dir);
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
   * free one when something else took it.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
  ): Promise<{ pid: number; port: number; state: InstanceState; started: boolean }> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      await this.prepareDirectories(full);
      let state = await this.ensureState(full, identity.namespace, identity.name, identity.port);
      const live = await this.findPostmaster(full);
      if (live && (identity.port === undefined || identity.port === live.port)) {
        // A server just killed may still look alive for a moment: only a ready one counts.
        const readiness = await this.awaitReady(state, live.port, live.pid, () => undefined);
        if (readiness === 'ready') return { pid: live.pid, port: live.port, state, started: false };
        if (readiness === 'timeout') throw new Error(`PostgreSQL in ${full} (pid ${live.pid}) runs but does not accept connections`);
        this.running.delete(full);
      } else if (live) {
        await this.stopProcess(full, live); // a pinned port changed: restart there
      }
      await this.ensureInitialized(full, state);
      const dataVersion = await this.dataVersion(full);
      const binaryMajor = parseVersion(this.binaries.version)?.major;
      if (dataVersion !== undefined && String(binaryMajor) !== dataVersion.split('.')[0]) {
        throw new Error(
          `data directory ${this.files(full).data} is PostgreSQL ${dataVersion} but the binaries in ${this.binaries.dir} are ${this.binaries.version}: ` +
            'point CONDUCTOR_POSTGRES_BIN at binaries of the same major version',
        );
      }
      for (let attempt = 1; ; attempt++) {
        let port = identity.port ?? state.port;
        if (identity.port === undefined && !(await waitForFreePort(port))) port = await freePort();
        if (port !== state.port) {
          state = { ...state, port };
          await this.writeState(full, state);
        }
        await this.clearStaleLock(full);
        const outcome = await this.startProcess(full, state, port);
        if (outcome.ok) return { pid: outcome.pid, port, state, started: true };
        const retry =
          attempt < maxStartAttempts &&
          (transientStartFailures.some((p) => p.test(outcome.log)) || (identity.port === undefined && portTaken.test(outcome.log)));
        if (!retry) throw new Error(`PostgreSQL in ${full} did not start: ${outcome.reason}${outcome.log ? `; log: ${outcome.log}` : ''}`);
        this.logger.info({ dir: full, attempt, reason: outcome.reason }, 'PostgreSQL did not start; trying again');
        await sleep(200 * attempt);
      }
    });
  }

  private async startProcess(
    dir: string,
    state: InstanceState,
    port: number,
  ): Promise<{ ok: true; pid: number } | { ok: false; reason: string; log: string }> {
    const files = this.files(dir);
    const log = await open(files.log, 'a', 0o600);
    let child: ChildProcess;
    let started: Promise<Error | undefined>;
    try {
      child = spawn(
        this.binaries.postgres,
        ['-D', files.data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
        {
          cwd: files.data,
          env: serverEnv(),
          detached: true,
          stdio: ['ignore', log.fd, log.fd],
          ...(this.runAs ? { uid: this.runAs.uid, gid: this.runAs.gid } : {}),
        },
      );
      // Listen before anything else is awaited: 'spawn' and 'error' come on the next tick.
      started = new Promise<Error | undefined>((r) => {
        child.once('spawn', () => r(undefined));
        child.once('error', r);
      });
    } finally {
      await log.close();
    }
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = signal ?? `exit ${code}`));
    const spawnError = await started;
    if (spawnError || child.pid === undefined) return { ok: false, reason: spawnError?.message ?? 'no pid', log: '' };
    const pid = child.pid;
    child.unref();
    await writeText(files.pid, `${pid}\n`);
    this.logger.info({ dir, pid, port }, 'started a PostgreSQL server');

    const readiness = await this.awaitReady(state, port, pid, () => exited);
    if (readiness === 'ready') {
      this.running.set(dir, { pid, port, child });
      return { ok: true, pid };
    }
    if (readiness === 'timeout') {
      await this.stopProcess(dir, { pid, port, child });
      return { ok: false, reason: `the server did not accept connections within ${this.startTimeoutMs} ms`, log: await readTail(files.log, 4) };
    }
    return { ok: false, reason: `the server exited (${exited ?? 'gone'})`, log: await readTail(files.log, 4) };
  }

  /**
   * awaitReady polls until the server accepts the superuser's connections, the process is
   * gone (`exited` says so for a child; otherwise its pid is checked), or time runs out.
   */
  private async awaitReady(
    state: InstanceState,
    port: number,
    pid: number,
    exited: () => string | undefined,
  ): Promise<'ready' | 'gone' | 'timeout'> {
    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      if (exited() !== undefined || !(await isAlive(pid))) return 'gone';
      try {
        await withClient({ ...superuserConfig(state, port), connectionTimeoutMillis: 2000 }, (c) => c.query('SELECT 1'));
        return 'ready';
      } catch {
        // starting up, shutting down, or not listening yet
      }
      if (Date.now() >= deadline) return 'timeout';
      await sleep(100);
    }
  }

  /** stopProcess asks for a fast shutdown, then an immediate one, then kills. */
  private async stopProcess(dir: string, server: Running): Promise<void> {
    for (const [signal, waitMs] of [
      ['SIGINT', 20_000],
      ['SIGQUIT', 5_000],
      ['SIGKILL', 5_000],
    ] as const) {
      try {
        process.kill(server.pid, signal);
      } catch {
        break; // already gone
      }
      if (await waitForExit(server.pid, waitMs)) break;
    }
    this.running.delete(dir);
    await rm(this.files(dir).pid, { force: true });
    this.logger.info({ dir, pid: server.pid }, 'stopped a PostgreSQL server');
  }

  /** stop stops the instance's server if it runs; the data stays. */
  async stop(dir: string): Promise<void> {
    const full = this.checkDir(dir);
    await this.locks.run(full, async () => {
      const live = await this.findPostmaster(full);
      if (live) await this.stopProcess(full, live);
    });
  }

  /** remove stops the server and deletes the instance directory with all its data. */
  async remove(dir: string): Promise<void> {
    const full = this.checkDir(dir);
    await this.locks.run(full, async () => {
      const live = await this.findPostmaster(full);
      if (live) await this.stopProcess(full, live);
      await rm(full, { recursive: true, force: true });
      this.logger.info({ dir: full }, 'removed a PostgreSQL instance directory');
    });
  }

  /** stopAll stops every server this supervisor started or adopted (on shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((dir) => this.stop(dir)));
  }

  /** list returns the instances under the root (for discovery). */
  async list(): Promise<{ dir: string; state: InstanceState }[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const found: { dir: string; state: InstanceState }[] = [];
    for (const name of names.sort()) {
      const dir = join(this.root, name);
      if (!(await stat(dir).then((s) => s.isDirectory(), () => false))) continue;
      const state = await this.readState(dir).catch(() => undefined);
      if (state) found.push({ dir, state });
    }
    return found;
  }

  /** trackedPids lists the servers currently tracked (for tests and diagnostics). */
  trackedPids(): number[] {
    return [...this.running.values()].map((r) => r.pid);
  }
}

/** The environment of server processes: nothing of Conductor's own (tokens, PG* settings). */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}
