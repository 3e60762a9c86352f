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
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { distFile } from '../../../machinery/package-files.js';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { abandonStart, awaitDaemonReady, spawnDaemon } from '../process/daemons.js';
import { isAlive, processCommand, readTail } from '../process/processes.js';
import { ProcessSupervisor, readStateFile, startWithRetries, writeStateFile, type StartOutcome } from '../process/supervisor.js';
import { stopDaemon } from '../process/daemons.js';
import { writeFileAtomic } from '../process/processes.js';
import { giveTo, giveTreeTo, prepareServerDirectories, type RunAs } from '../process/run-as.js';
import { claimKeyPair, newS3Keys, parseS3Keys, type ClaimKey, type S3Keys } from './s3-keys.js';
import type { KeyPair } from './sigv4.js';
import { S3Admin } from './s3-admin.js';

/** The environment variable naming another directory for S3Server data. */
export const s3ServersDirEnv = 'CONDUCTOR_S3_SERVERS_DIR';

/**
 * An S3rverProgram is how a server process is started: node and the gateway script
 * (s3-gateway-main.js, which runs s3rver in process behind SigV4 checks), and s3rver's own
 * command script (what earlier Conductors ran, unauthenticated: such a process is stopped).
 */
export interface S3rverProgram {
  node: string;
  script: string;
  s3rverScript: string;
  version: string;
}

/** The gateway script the build writes beside this module's compiled form (dist/src/…/s3-gateway-main.js). */
const gatewayScript = 'src/providers/local/s3/s3-gateway-main.js';

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
  return { node: process.execPath, script: distFile(gatewayScript), s3rverScript: script, version: pkg.version ?? 'unknown' };
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
  /** The user the gateway runs as (needed when Conductor is root: it never runs as root). */
  runAs?: RunAs;
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

export class S3Servers extends ProcessSupervisor<ServerState, Running> {
  readonly program: S3rverProgram;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly runAs: RunAs | undefined;

  constructor(options: S3ServersOptions) {
    super(options.root, 'S3 server directory');
    this.runAs = options.runAs;
    this.program = options.program;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
  }

  /** logFile is the server's log (its stdout and stderr) in the directory `dir`. */
  logFile(dir: string): string {
    return this.files(dir).log;
  }

  private files(dir: string) {
    return {
      state: join(dir, 'server.json'),
      data: join(dir, 'data'),
      keys: join(dir, 'keys.json'),
      pid: join(dir, 's3rver.pid'),
      log: join(dir, 's3rver.log'),
    };
  }

  /** readState reads server.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<ServerState | undefined> {
    const parsed = await readStateFile<ServerState>(this.files(dir).state);
    if (parsed === undefined) return undefined;
    if (typeof parsed.port !== 'number') throw new Error(`${this.files(dir).state} is not a valid S3 server state: want a port`);
    return parsed as ServerState;
  }

  private async writeState(dir: string, state: ServerState): Promise<void> {
    await writeStateFile(this.files(dir).state, state);
  }

  /** isS3rverOf checks that pid is a live gateway serving `data`; an unauthenticated s3rver an earlier Conductor ran on it is stopped. */
  private async isS3rverOf(pid: number, data: string): Promise<boolean> {
    if (!(await isAlive(pid))) return false;
    const argv = await processCommand(pid);
    if (argv === undefined) return false; // cannot tell: do not adopt
    if (argv.includes(this.program.s3rverScript) && argv.includes(data)) {
      this.logger.info({ pid, data }, 'stopping an s3rver that serves without authentication (started by an earlier Conductor)');
      await stopDaemon(pid);
      return false;
    }
    return argv.includes(this.program.script) && argv.includes(data);
  }

  /** keysOf reads a server's keys.json, making one with a fresh admin key when there is none. */
  private async keysOf(dir: string): Promise<S3Keys> {
    const file = this.files(dir).keys;
    const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (text !== undefined) return parseS3Keys(text);
    const keys = newS3Keys();
    await writeFileAtomic(file, `${JSON.stringify(keys, null, 2)}\n`, 0o600);
    await giveTo(file, this.runAs);
    return keys;
  }

  private async writeKeys(dir: string, keys: S3Keys): Promise<void> {
    await writeFileAtomic(this.files(dir).keys, `${JSON.stringify(keys, null, 2)}\n`, 0o600);
    // The gateway (the server user) reads keys.json again when it changes.
    await giveTo(this.files(dir).keys, this.runAs);
  }

  /** claimKey makes a claim's key (limited to `bucket`) exist in keys.json and returns it. */
  async claimKey(dir: string, claim: { namespace: string; name: string; uid?: string }, bucket: string): Promise<KeyPair> {
    return this.locked(dir, async (full) => {
      await prepareServerDirectories(this.root, full, this.runAs, 'the S3 gateway');
      const keys = await this.keysOf(full);
      const pair = claimKeyPair(keys.admin.secretAccessKey, claim);
      const want: ClaimKey = { secretAccessKey: pair.secretAccessKey, bucket, claim: `${claim.namespace}/${claim.name}` };
      const have = keys.claims[pair.accessKeyId];
      if (!have || have.secretAccessKey !== want.secretAccessKey || have.bucket !== bucket) {
        keys.claims[pair.accessKeyId] = want;
        await this.writeKeys(full, keys);
      }
      return pair;
    });
  }

  /** hasClaimKey says whether keys.json holds the claim's key for `bucket`. */
  async hasClaimKey(dir: string, claim: { namespace: string; name: string; uid?: string }, bucket: string): Promise<boolean> {
    return this.locked(dir, async (full) => {
      const keys = await this.keysOf(full);
      const pair = claimKeyPair(keys.admin.secretAccessKey, claim);
      return keys.claims[pair.accessKeyId]?.bucket === bucket;
    });
  }

  /** removeClaimKey takes a claim's key out of keys.json (the gateway refuses it from then on). */
  async removeClaimKey(dir: string, claim: { namespace: string; name: string; uid?: string }): Promise<void> {
    await this.locked(dir, async (full) => {
      const keys = await this.keysOf(full);
      const { accessKeyId } = claimKeyPair(keys.admin.secretAccessKey, claim);
      if (!(accessKeyId in keys.claims)) return;
      delete keys.claims[accessKeyId];
      await this.writeKeys(full, keys);
    });
  }

  /** The live server of a directory: the one tracked, or one its pid file points at. */
  private async findServer(dir: string, state: ServerState): Promise<Running | undefined> {
    const tracked = await this.trackedAlive(dir);
    if (tracked) return tracked;
    return this.adoptOrNull(
      dir,
      [this.files(dir).pid],
      async (pid) => {
        if (!(await this.isS3rverOf(pid, this.files(dir).data))) return undefined;
        const argv = (await processCommand(pid)) ?? [];
        const portArg = Number(argv[argv.indexOf('--port') + 1]);
        return { pid, port: Number.isInteger(portArg) && portArg > 0 ? portArg : state.port };
      },
      ({ pid, port }) => this.logger.info({ dir, pid, port }, 'adopted a running s3rver'),
    );
  }

  /** liveFor is the live server of a directory; without a state only a tracked one counts. */
  private async liveFor(dir: string, state: ServerState | undefined): Promise<Running | undefined> {
    return state ? this.findServer(dir, state) : this.tracked(dir);
  }

  /** status reports what is there, changing nothing (apart from adopting a live server). */
  async status(dir: string): Promise<S3ServerStatus> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, running: false };
      const live = await this.findServer(full, state);
      return { provisioned: true, running: live !== undefined, pid: live?.pid, port: live?.port ?? state.port, state };
    });
  }

  /**
   * admin is an S3 client for the server of `dir` on `port`, with Conductor's own key (every
   * bucket); its requests end when `signal` aborts.
   */
  async admin(dir: string, port: number, region: string, signal?: AbortSignal): Promise<S3Admin> {
    const keys = await this.keysOf(this.checkDir(dir));
    return new S3Admin({ endpoint: endpointFor(port), region, credentials: keys.admin, timeoutMs: 5_000, ...(signal ? { signal } : {}) });
  }

  /**
   * ensureRunning makes the server exist and run, adopting a live one. `port` pins the port;
   * otherwise the stored port is reused, or replaced by a free one when something else took it.
   * When `signal` aborts, the wait for the server ends with the signal's reason, and a
   * gateway this call started is killed.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
    signal?: AbortSignal,
  ): Promise<{ pid: number; port: number; started: boolean }> {
    return this.locked(dir, async (full) => {
      const files = this.files(full);
      await prepareServerDirectories(this.root, full, this.runAs, 'the S3 gateway');
      await mkdir(files.data, { recursive: true, mode: 0o700 });
      // Buckets an earlier version's root gateway wrote become the server user's.
      await giveTreeTo(files.data, this.runAs);
      await giveTreeTo(files.keys, this.runAs);
      await this.keysOf(full);
      const create = (port: number): ServerState => ({ namespace: identity.namespace, name: identity.name, port, createdAt: new Date().toISOString() });
      const state = await this.readOrCreateState(full, identity.port, create, (d, next) => this.writeState(d, next));
      const live = await this.findServer(full, state);
      if (live && (identity.port === undefined || identity.port === live.port)) {
        if (await this.awaitReady(full, live.port, live.pid, () => undefined, signal)) return { pid: live.pid, port: live.port, started: false };
        throw new Error(`s3rver in ${full} (pid ${live.pid}) runs but does not answer on port ${live.port}`);
      }
      if (live) await this.stopLive(full, live);
      const started = await startWithRetries({
        server: 's3rver',
        dir: full,
        state,
        pinned: identity.port,
        write: (next) => this.writeState(full, next),
        start: (next) => this.startProcess(full, next.port, signal),
        signal,
        maxAttempts: maxStartAttempts,
        portTaken: /EADDRINUSE/,
        backoffMs: 100,
      });
      return { pid: started.pid, port: started.state.port, started: true };
    });
  }

  private async startProcess(dir: string, port: number, signal?: AbortSignal): Promise<StartOutcome> {
    const files = this.files(dir);
    const args = [this.program.script, '--directory', files.data, '--address', '127.0.0.1', '--port', String(port), '--keys', files.keys];
    const started = await spawnDaemon({
      program: this.program.node,
      args,
      cwd: dir,
      env: serverEnv(),
      logFile: files.log,
      pidFile: files.pid,
      runAs: this.runAs,
    });
    if ('error' in started) return { ok: false, reason: started.error, log: '' };
    const { pid, child, exited } = started;
    this.logger.info({ dir, pid, port }, 'started s3rver');
    let ready: boolean;
    try {
      ready = await this.awaitReady(dir, port, pid, exited, signal);
    } catch (err) {
      await abandonStart(pid, files.pid);
      this.logger.info({ dir, pid }, 'killed an S3 gateway whose start was cancelled');
      throw err;
    }
    if (ready) {
      this.track(dir, { pid, port, child });
      return { ok: true, pid };
    }
    const gone = exited() !== undefined || !(await isAlive(pid));
    if (!gone) await this.stopLive(dir, { pid, port, child });
    const reason = gone ? `the process exited (${exited() ?? 'gone'})` : `it did not answer within ${this.startTimeoutMs} ms`;
    return { ok: false, reason, log: await readTail(files.log, 4) };
  }

  /**
   * awaitReady polls until the server answers S3 requests (true), or it is gone or time runs
   * out (false); an abort of `signal` ends the wait (and a probe under way) with its reason.
   */
  private async awaitReady(dir: string, port: number, pid: number, exited: () => string | undefined, signal?: AbortSignal): Promise<boolean> {
    const admin = await this.admin(dir, port, 'us-east-1', signal);
    const probe = () =>
      admin.listBuckets().then(
        () => true,
        () => false, // not listening yet (or aborted: the wait below says so)
      );
    return (await awaitDaemonReady(pid, exited, probe, this.startTimeoutMs, 50, signal)) === 'ready';
  }

  protected async stopLive(dir: string, server: Running): Promise<void> {
    await this.stopTracked(dir, server, this.files(dir).pid, [
      ['SIGTERM', 5_000],
      ['SIGKILL', 5_000],
    ]);
    this.logger.info({ dir, pid: server.pid }, 'stopped s3rver');
  }

  protected async findLive(dir: string): Promise<Running | undefined> {
    return this.liveFor(dir, await this.readState(dir));
  }

  /** findForRemoval tolerates an unreadable server.json: the directory goes anyway. */
  protected override async findForRemoval(dir: string): Promise<Running | undefined> {
    return this.liveFor(dir, await this.readState(dir).catch(() => undefined));
  }

  /** afterDelete logs a removed server directory. */
  protected override afterDelete(dir: string): void {
    this.logger.info({ dir }, 'removed an S3 server directory');
  }
}

/** The environment of server processes: nothing of Conductor's own (tokens, AWS settings). */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', NODE_NO_WARNINGS: '1' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}
