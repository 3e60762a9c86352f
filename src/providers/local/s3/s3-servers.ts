/**
 * S3Servers supervises s3rver processes (node child processes), one per directory under
 * the root:
 *
 *   <root>/<namespace>_<name>/
 *     server.json   the kept port (written atomically)
 *     data/         s3rver's files: one directory per bucket
 *     s3rver.pid    pid of the process Conductor started
 *     s3rver.log    its output
 *
 * Every operation is idempotent and safe after a crash: a process that outlived a previous
 * Conductor is adopted (found through the pid file and checked to be s3rver serving this
 * data directory), the chosen port is kept across restarts. Processes are detached so a
 * Conductor restart does not take them down; `stopAll` stops those it started or adopted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { instanceDirectoryName } from '../postgresql/names.js';
import { freePort, isAlive, KeyedMutex, waitForFreePort, processCommand, readTail, sleep, waitForExit, writeFileAtomic, writeText } from '../process/processes.js';
import { s3rverKeyPair } from './kinds.js';
import { S3Admin } from './s3-admin.js';

/** The environment variable naming another directory for S3Server data. */
export const s3ServersDirEnv = 'CONDUCTOR_S3_SERVERS_DIR';

/** An S3rverProgram is how an s3rver process is started: node and s3rver's command script. */
export interface S3rverProgram {
  node: string;
  script: string;
  version: string;
}

/** resolveS3rver finds the installed s3rver package's command; it throws when there is none. */
export async function resolveS3rver(): Promise<S3rverProgram> {
  const require = createRequire(import.meta.url);
  let manifest: string;
  try {
    manifest = require.resolve('s3rver/package.json');
  } catch {
    throw new Error('the npm package s3rver is not installed: want s3rver 3.x in node_modules');
  }
  const pkg = JSON.parse(await readFile(manifest, 'utf8')) as { version?: string; bin?: Record<string, string> | string };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin?.s3rver ?? 'bin/s3rver.js');
  const script = join(dirname(manifest), bin);
  await stat(script).catch(() => {
    throw new Error(`s3rver's command ${script} is missing: want a complete s3rver package`);
  });
  return { node: process.execPath, script, version: pkg.version ?? 'unknown' };
}

/** ServerState is what an S3 server keeps in server.json. */
export interface ServerState {
  namespace: string;
  name: string;
  port: number;
  createdAt: string;
}

/** S3ServerStatus is what `status` finds, without changing anything. */
export interface S3ServerStatus {
  provisioned: boolean;
  running: boolean;
  pid?: number;
  port?: number;
  state?: ServerState;
}

export interface S3ServersOptions {
  root: string;
  program: S3rverProgram;
  logger?: ProviderLogger;
  /** How long a start may take; default 30 s. */
  startTimeoutMs?: number;
}

interface Running {
  pid: number;
  port: number;
  child?: ChildProcess;
}

const maxStartAttempts = 5;

/** endpointFor is the base URL of a server listening on `port`. */
export function endpointFor(port: number): string {
  return `http://127.0.0.1:${port}`;
}

export class S3Servers {
  readonly root: string;
  readonly program: S3rverProgram;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly running = new Map<string, Running>();
  private readonly locks = new KeyedMutex();

  constructor(options: S3ServersOptions) {
    this.root = resolve(options.root);
    this.program = options.program;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
  }

  /** dirFor is the directory of the server for a resource. */
  dirFor(namespace: string, name: string): string {
    return join(this.root, instanceDirectoryName(namespace, name));
  }

  private files(dir: string) {
    return { state: join(dir, 'server.json'), data: join(dir, 'data'), pid: join(dir, 's3rver.pid'), log: join(dir, 's3rver.log') };
  }

  private checkDir(dir: string): string {
    const full = resolve(dir);
    const rel = relative(this.root, full);
    if (rel === '' || rel.startsWith('..') || rel.includes(sep)) throw new Error(`S3 server directory ${full} is not directly under ${this.root}`);
    return full;
  }

  /** readState reads server.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<ServerState | undefined> {
    let text: string;
    try {
      text = await readFile(this.files(dir).state, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const parsed = JSON.parse(text) as Partial<ServerState>;
    if (typeof parsed.port !== 'number') throw new Error(`${this.files(dir).state} is not a valid S3 server state: want a port`);
    return parsed as ServerState;
  }

  private async writeState(dir: string, state: ServerState): Promise<void> {
    await writeFileAtomic(this.files(dir).state, `${JSON.stringify(state, null, 2)}\n`, 0o600);
  }

  /** isS3rverOf checks that pid is a live s3rver serving `data`. */
  private async isS3rverOf(pid: number, data: string): Promise<boolean> {
    if (!(await isAlive(pid))) return false;
    const argv = await processCommand(pid);
    if (argv === undefined) return false; // cannot tell: do not adopt
    return argv.includes(this.program.script) && argv.includes(data);
  }

  /** The live server of a directory: the one tracked, or one its pid file points at. */
  private async findServer(dir: string, state: ServerState): Promise<Running | undefined> {
    const tracked = this.running.get(dir);
    if (tracked && (await isAlive(tracked.pid))) return tracked;
    this.running.delete(dir);
    const pid = Number((await readFile(this.files(dir).pid, 'utf8').catch(() => '')).trim());
    if (!(await this.isS3rverOf(pid, this.files(dir).data))) return undefined;
    const argv = (await processCommand(pid)) ?? [];
    const portArg = Number(argv[argv.indexOf('--port') + 1]);
    const adopted: Running = { pid, port: Number.isInteger(portArg) && portArg > 0 ? portArg : state.port };
    this.running.set(dir, adopted);
    this.logger.info({ dir, pid, port: adopted.port }, 'adopted a running s3rver');
    return adopted;
  }

  /** status reports what is there, changing nothing (apart from adopting a live server). */
  async status(dir: string): Promise<S3ServerStatus> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, running: false };
      const live = await this.findServer(full, state);
      return { provisioned: true, running: live !== undefined, pid: live?.pid, port: live?.port ?? state.port, state };
    });
  }

  /** admin is an S3 client for the server on `port`. */
  admin(port: number, region: string): S3Admin {
    return new S3Admin({ endpoint: endpointFor(port), region, credentials: s3rverKeyPair, timeoutMs: 5_000 });
  }

  /**
   * ensureRunning makes the server exist and run, adopting a live one. `port` pins the port;
   * otherwise the stored port is reused, or replaced by a free one when something else took it.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
  ): Promise<{ pid: number; port: number; started: boolean }> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      const files = this.files(full);
      await mkdir(files.data, { recursive: true, mode: 0o700 });
      let state = await this.readState(full);
      if (!state) {
        state = { namespace: identity.namespace, name: identity.name, port: identity.port ?? (await freePort()), createdAt: new Date().toISOString() };
        await this.writeState(full, state);
      }
      const live = await this.findServer(full, state);
      if (live && (identity.port === undefined || identity.port === live.port)) {
        if (await this.awaitReady(live.port, live.pid, () => undefined)) return { pid: live.pid, port: live.port, started: false };
        throw new Error(`s3rver in ${full} (pid ${live.pid}) runs but does not answer on port ${live.port}`);
      }
      if (live) await this.stopProcess(full, live);
      for (let attempt = 1; ; attempt++) {
        let port: number = identity.port ?? state.port;
        if (identity.port === undefined && !(await waitForFreePort(port))) port = await freePort();
        if (port !== state.port) {
          state = { ...state, port };
          await this.writeState(full, state);
        }
        const outcome = await this.startProcess(full, port);
        if (outcome.ok) return { pid: outcome.pid, port, started: true };
        const retry = attempt < maxStartAttempts && identity.port === undefined && /EADDRINUSE/.test(outcome.log);
        if (!retry) throw new Error(`s3rver in ${full} did not start: ${outcome.reason}${outcome.log ? `; log: ${outcome.log}` : ''}`);
        await sleep(100 * attempt);
      }
    });
  }

  private async startProcess(dir: string, port: number): Promise<{ ok: true; pid: number } | { ok: false; reason: string; log: string }> {
    const files = this.files(dir);
    const log = await open(files.log, 'a', 0o600);
    let child: ChildProcess;
    let spawned: Promise<Error | undefined>;
    try {
      const args = [this.program.script, '--directory', files.data, '--address', '127.0.0.1', '--port', String(port), '--silent', '--no-vhost-buckets'];
      child = spawn(this.program.node, args, { cwd: dir, env: serverEnv(), detached: true, stdio: ['ignore', log.fd, log.fd] });
      spawned = new Promise<Error | undefined>((r) => {
        child.once('spawn', () => r(undefined));
        child.once('error', r);
      });
    } finally {
      await log.close();
    }
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = signal ?? `exit ${code}`));
    const spawnError = await spawned;
    if (spawnError || child.pid === undefined) return { ok: false, reason: spawnError?.message ?? 'no pid', log: '' };
    const pid = child.pid;
    child.unref();
    await writeText(files.pid, `${pid}\n`);
    this.logger.info({ dir, pid, port }, 'started s3rver');
    if (await this.awaitReady(port, pid, () => exited)) {
      this.running.set(dir, { pid, port, child });
      return { ok: true, pid };
    }
    const gone = exited !== undefined || !(await isAlive(pid));
    if (!gone) await this.stopProcess(dir, { pid, port, child });
    const reason = gone ? `the process exited (${exited ?? 'gone'})` : `it did not answer within ${this.startTimeoutMs} ms`;
    return { ok: false, reason, log: await readTail(files.log, 4) };
  }

  /** awaitReady polls until the server answers S3 requests (true), or it is gone or time runs out (false). */
  private async awaitReady(port: number, pid: number, exited: () => string | undefined): Promise<boolean> {
    const deadline = Date.now() + this.startTimeoutMs;
    const admin = this.admin(port, 'us-east-1');
    for (;;) {
      if (exited() !== undefined || !(await isAlive(pid))) return false;
      try {
        await admin.listBuckets();
        return true;
      } catch {
        // not listening yet
      }
      if (Date.now() >= deadline) return false;
      await sleep(50);
    }
  }

  private async stopProcess(dir: string, server: Running): Promise<void> {
    for (const [signal, waitMs] of [
      ['SIGTERM', 5_000],
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
    this.logger.info({ dir, pid: server.pid }, 'stopped s3rver');
  }

  /** stop stops the server if it runs; its data stays. */
  async stop(dir: string): Promise<void> {
    const full = this.checkDir(dir);
    await this.locks.run(full, async () => {
      const state = await this.readState(full);
      const live = state ? await this.findServer(full, state) : this.running.get(full);
      if (live) await this.stopProcess(full, live);
    });
  }

  /** remove stops the server and deletes its directory with every bucket. */
  async remove(dir: string): Promise<void> {
    const full = this.checkDir(dir);
    await this.locks.run(full, async () => {
      const state = await this.readState(full).catch(() => undefined);
      const live = state ? await this.findServer(full, state) : this.running.get(full);
      if (live) await this.stopProcess(full, live);
      await rm(full, { recursive: true, force: true });
      this.logger.info({ dir: full }, 'removed an S3 server directory');
    });
  }

  /** stopAll stops every server this supervisor started or adopted (on shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((dir) => this.stop(dir)));
  }

  /** list returns the servers under the root (for discovery). */
  async list(): Promise<{ dir: string; state: ServerState }[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const found: { dir: string; state: ServerState }[] = [];
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

/** The environment of server processes: nothing of Conductor's own (tokens, AWS settings). */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', NODE_NO_WARNINGS: '1' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}
