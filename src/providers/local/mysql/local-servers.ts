/**
 * MariaDbServers supervises dedicated MariaDB server processes, one per directory under the
 * instances root:
 *
 *   <root>/<namespace>_<name>/
 *     instance.json   port and passwords (mode 0600; written atomically)
 *     data/           the data directory, made by mariadb-install-db (built in data.init/
 *                     and renamed when complete)
 *     mariadbd.pid    pid of the server (written by Conductor at spawn and by the server)
 *     mariadbd.log    the server's error log and output
 *     init.sql        while a server starts: makes Conductor's admin account exist
 *
 * Conductor administers an instance as `conductor`@`127.0.0.1` over TCP; the account is
 * (re)made by the init file at every start, so an instance whose admin account was dropped
 * by hand heals on restart. Every operation is idempotent and safe after a crash: an
 * interrupted mariadb-install-db is redone, a server that outlived a previous Conductor is
 * adopted (found through its pid file and checked to run on this data directory), the
 * chosen port is kept across restarts. Servers are detached so a Conductor restart does not
 * take them down; `stopAll` stops those it started or adopted.
 *
 * MariaDB runs as root when told to (`--user=root`), so unlike PostgreSQL no other user is
 * needed when Conductor runs as root.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import mysql from 'mysql2/promise';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { instanceDirectoryName } from '../postgresql/names.js';
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
import { generatePassword, withConnection, type ConnectConfig } from './admin.js';
import type { MariaDbBinaries } from './binaries.js';
import { localAdminUser } from './kinds.js';

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

/** initSql makes the admin account exist with the stored password and every privilege. */
export function initSql(state: MariaDbInstanceState): string {
  const account = `${mysql.escape(state.adminUser)}@'127.0.0.1'`;
  const password = mysql.escape(state.adminPassword);
  return [
    `CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${password};`,
    `ALTER USER ${account} IDENTIFIED BY ${password};`,
    `GRANT ALL PRIVILEGES ON *.* TO ${account} WITH GRANT OPTION;`,
    '',
  ].join('\n');
}

export class MariaDbServers {
  readonly root: string;
  private readonly binaries: MariaDbBinaries;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly serverArgs: string[];
  private readonly running = new Map<string, Running>();
  private readonly locks = new KeyedMutex();

  constructor(options: MariaDbServersOptions) {
    this.root = resolve(options.root);
    this.binaries = options.binaries;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.serverArgs = options.serverArgs ?? [];
  }

  /** dirFor is the directory of the instance for a resource. */
  dirFor(namespace: string, name: string): string {
    return join(this.root, instanceDirectoryName(namespace, name));
  }

  private files(dir: string) {
    const inDir = join(dir, 'mysqld.sock');
    return {
      state: join(dir, 'instance.json'),
      data: join(dir, 'data'),
      dataInit: join(dir, 'data.init'),
      pid: join(dir, 'mariadbd.pid'),
      log: join(dir, 'mariadbd.log'),
      init: join(dir, 'init.sql'),
      socket:
        inDir.length <= maxSocketPath
          ? inDir
          : join(tmpdir(), `conductor-mariadb-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.sock`),
    };
  }

  private checkDir(dir: string): string {
    const full = resolve(dir);
    const rel = relative(this.root, full);
    if (rel === '' || rel.startsWith('..') || rel.includes(sep)) throw new Error(`instance directory ${full} is not directly under ${this.root}`);
    return full;
  }

  /** readState reads instance.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<MariaDbInstanceState | undefined> {
    let text: string;
    try {
      text = await readFile(this.files(dir).state, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const parsed = JSON.parse(text) as Partial<MariaDbInstanceState>;
    if (typeof parsed.port !== 'number' || typeof parsed.adminPassword !== 'string' || typeof parsed.appPassword !== 'string') {
      throw new Error(`${this.files(dir).state} is not a valid instance state: want port, adminPassword and appPassword`);
    }
    return { adminUser: localAdminUser, ...parsed } as MariaDbInstanceState;
  }

  private async writeState(dir: string, state: MariaDbInstanceState): Promise<void> {
    await writeFileAtomic(this.files(dir).state, `${JSON.stringify(state, null, 2)}\n`, 0o600);
  }

  /** updateState changes stored fields (e.g. a rotated password) and returns the new state. */
  async updateState(dir: string, patch: Partial<Pick<MariaDbInstanceState, 'appPassword' | 'port'>>): Promise<MariaDbInstanceState> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      const state = await this.readState(full);
      if (!state) throw new Error(`instance ${full} has no instance.json: it was never created`);
      const next = { ...state, ...patch };
      await this.writeState(full, next);
      return next;
    });
  }

  private async initialized(dir: string): Promise<boolean> {
    return stat(join(this.files(dir).data, 'mysql')).then((s) => s.isDirectory(), () => false);
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
  private async findServer(dir: string): Promise<Running | undefined> {
    const files = this.files(dir);
    const tracked = this.running.get(dir);
    if (tracked && (await this.isServerOf(tracked.pid, files.data))) return tracked;
    this.running.delete(dir);
    const pid = Number((await readFile(files.pid, 'utf8').catch(() => '')).trim());
    if (!(await this.isServerOf(pid, files.data))) return undefined;
    const argv = (await processCommand(pid)) ?? [];
    const portArg = argv.find((a) => a.startsWith('--port='));
    const state = await this.readState(dir);
    const port = portArg ? Number(portArg.slice('--port='.length)) : state?.port;
    if (!port) return undefined;
    const adopted = { pid, port };
    this.running.set(dir, adopted);
    this.logger.info({ dir, pid, port }, 'adopted a running MariaDB server');
    return adopted;
  }

  /** status reports what is there, changing nothing (apart from adopting a live server). */
  async status(dir: string): Promise<MariaDbServerStatus> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, initialized: false, running: false };
      const live = await this.findServer(full);
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

  private async ensureState(dir: string, namespace: string, name: string, wantedPort?: number): Promise<MariaDbInstanceState> {
    const existing = await this.readState(dir);
    if (existing) return existing;
    const state: MariaDbInstanceState = {
      namespace,
      name,
      port: wantedPort ?? (await freePort()),
      adminUser: localAdminUser,
      adminPassword: generatePassword(),
      appPassword: generatePassword(),
      createdAt: new Date().toISOString(),
    };
    await this.writeState(dir, state);
    return state;
  }

  private rootArgs(): string[] {
    return process.geteuid?.() === 0 ? ['--user=root'] : [];
  }

  private async runProgram(program: string, args: string[], cwd: string): Promise<void> {
    await new Promise<void>((resolvePromise, reject) => {
      const child = spawn(program, args, { cwd, env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
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

  /** ensureInitialized runs mariadb-install-db into data.init and renames it to data once complete. */
  private async ensureInitialized(dir: string): Promise<void> {
    if (await this.initialized(dir)) return;
    const files = this.files(dir);
    await rm(files.dataInit, { recursive: true, force: true });
    await mkdir(files.dataInit, { mode: 0o700 });
    this.logger.info({ dir, installDb: this.binaries.installDb }, 'initializing a MariaDB data directory');
    await this.runProgram(
      this.binaries.installDb,
      ['--no-defaults', `--datadir=${files.dataInit}`, '--auth-root-authentication-method=socket', '--skip-test-db', ...this.rootArgs()],
      dir,
    );
    // An incomplete data directory left by a crash is thrown away above; a complete one is kept.
    await rm(files.data, { recursive: true, force: true });
    await rename(files.dataInit, files.data);
  }

  /**
   * ensureRunning makes the instance exist (state, data directory) and its server run,
   * adopting a live one. `port` pins the port; otherwise the stored port is reused, or
   * replaced by a free one when something else took it.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
  ): Promise<{ pid: number; port: number; state: MariaDbInstanceState; started: boolean }> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      await mkdir(full, { recursive: true, mode: 0o700 });
      let state = await this.ensureState(full, identity.namespace, identity.name, identity.port);
      const live = await this.findServer(full);
      if (live && (identity.port === undefined || identity.port === live.port)) {
        // A server just killed may still look alive for a moment: only a ready one counts.
        const readiness = await this.awaitReady(state, live.port, live.pid, () => undefined);
        if (readiness === 'ready') return { pid: live.pid, port: live.port, state, started: false };
        if (readiness === 'timeout') throw new Error(`MariaDB in ${full} (pid ${live.pid}) runs but does not accept connections`);
        this.running.delete(full);
      } else if (live) {
        await this.stopProcess(full, live); // a pinned port changed: restart there
      }
      await this.ensureInitialized(full);
      for (let attempt = 1; ; attempt++) {
        let port = identity.port ?? state.port;
        // The kept port, unless something else holds it (a killed server's port frees a moment later).
        if (identity.port === undefined && !(await waitForFreePort(port))) port = await freePort();
        if (port !== state.port) {
          state = { ...state, port };
          await this.writeState(full, state);
        }
        const outcome = await this.startProcess(full, state, port);
        if (outcome.ok) return { pid: outcome.pid, port, state, started: true };
        const retry =
          attempt < maxStartAttempts &&
          (transientStartFailures.some((p) => p.test(outcome.log)) || (identity.port === undefined && portTaken.test(outcome.log)));
        if (!retry) throw new Error(`MariaDB in ${full} did not start: ${outcome.reason}${outcome.log ? `; log: ${outcome.log}` : ''}`);
        this.logger.info({ dir: full, attempt, reason: outcome.reason }, 'MariaDB did not start; trying again');
        await sleep(200 * attempt);
      }
    });
  }

  private async startProcess(
    dir: string,
    state: MariaDbInstanceState,
    port: number,
  ): Promise<{ ok: true; pid: number } | { ok: false; reason: string; log: string }> {
    const files = this.files(dir);
    await writeFileAtomic(files.init, initSql(state), 0o600);
    const args = [
      '--no-defaults',
      `--datadir=${files.data}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${files.socket}`,
      `--pid-file=${files.pid}`,
      `--log-error=${files.log}`,
      `--init-file=${files.init}`,
      '--skip-name-resolve',
      '--character-set-server=utf8mb4',
      ...this.rootArgs(),
      ...this.serverArgs,
    ];
    const log = await open(files.log, 'a', 0o600);
    let child: ChildProcess;
    let started: Promise<Error | undefined>;
    try {
      child = spawn(this.binaries.server, args, { cwd: dir, env: serverEnv(), detached: true, stdio: ['ignore', log.fd, log.fd] });
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
    if (spawnError || child.pid === undefined) {
      await rm(files.init, { force: true });
      return { ok: false, reason: spawnError?.message ?? 'no pid', log: '' };
    }
    const pid = child.pid;
    child.unref();
    await writeText(files.pid, `${pid}\n`);
    this.logger.info({ dir, pid, port }, 'started a MariaDB server');
    const readiness = await this.awaitReady(state, port, pid, () => exited);
    await rm(files.init, { force: true });
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

  /** awaitReady polls until the admin can log in, the process is gone, or time runs out. */
  private async awaitReady(state: MariaDbInstanceState, port: number, pid: number, exited: () => string | undefined): Promise<'ready' | 'gone' | 'timeout'> {
    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      if (exited() !== undefined || !(await isAlive(pid))) return 'gone';
      try {
        await withConnection(adminConfig(state, port), (c) => c.query('SELECT 1'));
        return 'ready';
      } catch {
        // starting up, shutting down, or not listening yet
      }
      if (Date.now() >= deadline) return 'timeout';
      await sleep(100);
    }
  }

  /** stopProcess asks for a normal shutdown, then kills. */
  private async stopProcess(dir: string, server: Running): Promise<void> {
    for (const [signal, waitMs] of [
      ['SIGTERM', 30_000],
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
    this.logger.info({ dir, pid: server.pid }, 'stopped a MariaDB server');
  }

  /** stop stops the instance's server if it runs; the data stays. */
  async stop(dir: string): Promise<void> {
    const full = this.checkDir(dir);
    await this.locks.run(full, async () => {
      const live = await this.findServer(full);
      if (live) await this.stopProcess(full, live);
    });
  }

  /** remove stops the server and deletes the instance directory with all its data. */
  async remove(dir: string): Promise<void> {
    const full = this.checkDir(dir);
    await this.locks.run(full, async () => {
      const live = await this.findServer(full);
      if (live) await this.stopProcess(full, live);
      await rm(this.files(full).socket, { force: true });
      await rm(full, { recursive: true, force: true });
      this.logger.info({ dir: full }, 'removed a MariaDB instance directory');
    });
  }

  /** stopAll stops every server this supervisor started or adopted (on shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((dir) => this.stop(dir)));
  }

  /** list returns the instances under the root (for discovery). */
  async list(): Promise<{ dir: string; state: MariaDbInstanceState }[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const found: { dir: string; state: MariaDbInstanceState }[] = [];
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

/** The environment of server processes: nothing of Conductor's own (tokens, MYSQL_* settings). */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}
