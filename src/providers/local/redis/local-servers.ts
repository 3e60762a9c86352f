/**
 * RedisServers supervises dedicated redis-server processes, one per directory under the
 * instances root:
 *
 *   <root>/<namespace>_<name>/
 *     instance.json   port and password (mode 0600; written atomically)
 *     redis.conf      the server's configuration, rewritten before every start (mode 0600)
 *     data/           the server's working directory: append-only file and snapshots
 *     redis.pid       pid of the server Conductor started
 *     redis.log       the server's output
 *
 * When Conductor runs as root the servers run as another user (`runAs`: `CONDUCTOR_REDIS_USER`,
 * else `redis`, else `nobody`), never as root: data/ (0700) and redis.conf (0600, it holds the
 * password the server reads) are that user's; the instance directory (0711) and
 * instance.json stay root's.
 *
 * Every operation is idempotent and safe after a crash: a server that outlived a previous
 * Conductor is adopted (found through the pid file and checked to run in this data
 * directory), a stale pid file is ignored, the chosen port is kept across restarts. Servers
 * are detached so a Conductor restart does not take them down; `stopAll` stops those this
 * supervisor started or adopted.
 */
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { abandonStart, awaitDaemonReady, startDaemon, stopDaemon, type Readiness } from '../process/daemons.js';
import { readTail, sleep, writeFileAtomic } from '../process/processes.js';
import { keepPort, ProcessSupervisor, readStateFile, writeStateFile, type TrackedServer } from '../process/supervisor.js';
import { configGet, generatePassword, withRedis, type RedisCommands } from './admin.js';
import type { RedisBinary } from './binaries.js';
import { defaultEvictionPolicy, redisEvictionPolicies } from './kinds.js';
import { redisInteger, redisMemory, redisString, redisWord } from '../config-formats/index.js';
import { giveTo, giveTreeTo, prepareServerDirectories, type RunAs } from '../process/run-as.js';

/** RedisInstanceState is what a dedicated instance keeps in instance.json. */
export interface RedisInstanceState {
  namespace: string;
  name: string;
  port: number;
  /** The password of the `default` user (rotated when the instance is scrubbed). */
  password: string;
  createdAt: string;
}

/** RedisSettings are the server settings taken from the resource's spec. */
export interface RedisSettings {
  evictionPolicy?: string;
  maxMemory?: string;
}

/** RedisInstanceStatus is what `status` finds, without changing anything. */
export interface RedisInstanceStatus {
  provisioned: boolean;
  running: boolean;
  pid?: number;
  port?: number;
  state?: RedisInstanceState;
}

export interface RedisServersOptions {
  /** The directory holding one subdirectory per instance. */
  root: string;
  binary: RedisBinary;
  logger?: ProviderLogger;
  /** How long a start may take before it fails; default 30 s. */
  startTimeoutMs?: number;
  /** The user servers run as (needed when Conductor is root: servers never run as root). */
  runAs?: RunAs;
}

const maxStartAttempts = 5;
const portTaken = /Address already in use|bind: /i;

/** renderRedisConfig writes the configuration file of a dedicated instance. */
export function renderRedisConfig(state: RedisInstanceState, dataDir: string, settings: RedisSettings): string {
  const lines = [
    '# Written by Conductor before every start; edits are overwritten.',
    'bind 127.0.0.1',
    `port ${redisInteger(state.port, 1, 65535)}`,
    'protected-mode yes',
    'daemonize no',
    'logfile ""',
    `dir ${redisString(dataDir)}`,
    'appendonly yes',
    'appendfsync everysec',
    `requirepass ${redisString(state.password)}`,
    `maxmemory-policy ${redisWord(settings.evictionPolicy || defaultEvictionPolicy, redisEvictionPolicies)}`,
    `maxmemory ${redisMemory(settings.maxMemory || '0')}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A RedisServers supervises the dedicated redis-server processes of one provider. */
export class RedisServers extends ProcessSupervisor<RedisInstanceState, TrackedServer> {
  private readonly binary: RedisBinary;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly runAs: RunAs | undefined;

  constructor(options: RedisServersOptions) {
    super(options.root, 'instance directory');
    this.runAs = options.runAs;
    this.binary = options.binary;
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
  }

  /** logFile is the server's log (its stdout and stderr) in the directory `dir`. */
  logFile(dir: string): string {
    return this.files(dir).log;
  }

  private files(dir: string) {
    return {
      state: join(dir, 'instance.json'),
      config: join(dir, 'redis.conf'),
      data: join(dir, 'data'),
      pid: join(dir, 'redis.pid'),
      log: join(dir, 'redis.log'),
    };
  }

  /** readState reads instance.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<RedisInstanceState | undefined> {
    const parsed = await readStateFile<RedisInstanceState>(this.files(dir).state);
    if (parsed === undefined) return undefined;
    if (typeof parsed.port !== 'number' || typeof parsed.password !== 'string') {
      throw new Error(`${this.files(dir).state} is not a valid instance state: want port and password`);
    }
    return parsed as RedisInstanceState;
  }

  private async writeState(dir: string, state: RedisInstanceState): Promise<void> {
    await writeStateFile(this.files(dir).state, state);
  }

  /** A live server of this directory, tracked from now on when an earlier Conductor started it. */
  protected findLive(dir: string): Promise<TrackedServer | undefined> {
    const daemon = { pidFile: this.files(dir).pid, program: this.binary.path, cwd: this.files(dir).data };
    return this.findTrackedDaemon(
      dir,
      daemon,
      (pid) => ({ pid }),
      (pid) => this.logger.info({ dir, pid }, 'adopted a running Redis server'),
    );
  }

  /** status reports what is there, changing nothing (apart from adopting a live server). */
  async status(dir: string): Promise<RedisInstanceStatus> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, running: false };
      const pid = (await this.findLive(full))?.pid;
      return { provisioned: true, running: pid !== undefined, pid, port: state.port, state };
    });
  }

  /** withServer runs commands on a running instance as its `default` user (until `signal` aborts: see withRedis). */
  async withServer<T>(state: RedisInstanceState, fn: (redis: RedisCommands) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withRedis({ host: '127.0.0.1', port: state.port, password: state.password }, fn, signal);
  }

  private ensureState(dir: string, namespace: string, name: string, wantedPort?: number): Promise<RedisInstanceState> {
    const create = (port: number): RedisInstanceState => ({
      namespace,
      name,
      port,
      password: generatePassword(),
      createdAt: new Date().toISOString(),
    });
    return this.readOrCreateState(dir, wantedPort, create, (d, state) => this.writeState(d, state));
  }

  /**
   * ensureRunning makes the instance exist and its server run with `settings`, adopting a
   * live one. `port` pins the port; otherwise the stored port is reused, or replaced by a
   * free one when something else took it. When `signal` aborts, the wait for the server
   * ends with the signal's reason, and a server this call started is killed.
   */
  async ensureRunning(
    dir: string,
    identity: { namespace: string; name: string; port?: number },
    settings: RedisSettings,
    signal?: AbortSignal,
  ): Promise<{ pid: number; port: number; state: RedisInstanceState; started: boolean }> {
    return this.locked(dir, async (full) => {
      const files = this.files(full);
      await prepareServerDirectories(this.root, full, this.runAs, 'Redis');
      await mkdir(files.data, { recursive: true, mode: 0o700 });
      await chmod(files.data, 0o700);
      await giveTreeTo(files.data, this.runAs);
      let state = await this.ensureState(full, identity.namespace, identity.name, identity.port);
      const live = (await this.findLive(full))?.pid;
      if (live !== undefined) {
        if (identity.port === undefined || identity.port === state.port) {
          if ((await this.awaitReady(state, live, () => undefined, signal)) === 'ready') {
            await this.applySettings(full, state, settings);
            return { pid: live, port: state.port, state, started: false };
          }
        }
        await this.stopServer(full, live); // not answering, or a pinned port changed: start again
      }
      for (let attempt = 1; ; attempt++) {
        state = await keepPort(state, identity.port, (next) => this.writeState(full, next));
        const port = state.port;
        await this.writeConfig(files.config, renderRedisConfig(state, files.data, settings));
        const started = await startDaemon({
          program: this.binary.path,
          args: [files.config],
          cwd: files.data,
          logFile: files.log,
          pidFile: files.pid,
          runAs: this.runAs,
        });
        this.logger.info({ dir: full, pid: started.pid, port }, 'started a Redis server');
        let readiness: Readiness;
        try {
          readiness = await this.awaitReady(state, started.pid, started.exited, signal);
        } catch (err) {
          await abandonStart(started.pid, files.pid);
          this.logger.info({ dir: full, pid: started.pid }, 'killed a Redis server whose start was cancelled');
          throw err;
        }
        if (readiness === 'ready') {
          this.track(full, { pid: started.pid, child: started.child });
          return { pid: started.pid, port, state, started: true };
        }
        if (readiness === 'timeout') await stopDaemon(started.pid, files.pid);
        const log = await readTail(files.log, 4);
        const reason = readiness === 'timeout' ? `it did not answer within ${this.startTimeoutMs} ms` : `it exited (${started.exited() ?? 'gone'})`;
        if (attempt >= maxStartAttempts || identity.port !== undefined || !portTaken.test(log)) {
          throw new Error(`redis-server in ${full} did not start: ${reason}${log ? `; log: ${log}` : ''}`);
        }
        await sleep(100 * attempt);
        signal?.throwIfAborted();
      }
    });
  }

  /** applySettings changes a running server's eviction settings in place (and in its config file). */
  private async applySettings(dir: string, state: RedisInstanceState, settings: RedisSettings): Promise<void> {
    const files = this.files(dir);
    const wanted = renderRedisConfig(state, files.data, settings);
    const current = await readFile(files.config, 'utf8').catch(() => '');
    if (current === wanted) return;
    await this.withServer(state, async (r) => {
      await r.send(['CONFIG', 'SET', 'maxmemory-policy', settings.evictionPolicy || defaultEvictionPolicy]);
      await r.send(['CONFIG', 'SET', 'maxmemory', settings.maxMemory || '0']);
      await r.send(['CONFIG', 'SET', 'requirepass', state.password]);
    });
    await this.writeConfig(files.config, wanted);
  }

  /** writeConfig replaces redis.conf (0600), the server user's: the server reads it at start and rewrites nothing. */
  private async writeConfig(path: string, text: string): Promise<void> {
    await writeFileAtomic(path, text);
    await giveTo(path, this.runAs);
  }

  /**
   * rotatePassword gives a running server a new password: set on the server first (with the
   * old one), then stored. A crash in between leaves a server that refuses the stored
   * password, which ensureRunning restarts with the stored configuration.
   */
  async rotatePassword(dir: string, password: string, settings: RedisSettings): Promise<RedisInstanceState> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) throw new Error(`no Redis instance in ${full}`);
      await this.withServer(state, (r) => r.send(['CONFIG', 'SET', 'requirepass', password]));
      const next = { ...state, password };
      await this.writeState(full, next);
      await this.writeConfig(this.files(full).config, renderRedisConfig(next, this.files(full).data, settings));
      return next;
    });
  }

  /** serverSettings reads the eviction settings a running server has. */
  async serverSettings(state: RedisInstanceState, signal?: AbortSignal): Promise<{ evictionPolicy: string; maxMemory: string; version: string }> {
    return this.withServer(
      state,
      async (r) => {
        const info = String(await r.send(['INFO', 'server']));
        return {
          evictionPolicy: (await configGet(r, 'maxmemory-policy')) ?? '',
          maxMemory: (await configGet(r, 'maxmemory')) ?? '',
          version: /redis_version:(\S+)/.exec(info)?.[1] ?? '',
        };
      },
      signal,
    );
  }

  /** awaitReady polls until the server answers PING with its password, exits, or time runs out. */
  private awaitReady(state: RedisInstanceState, pid: number, exited: () => string | undefined, signal?: AbortSignal): Promise<Readiness> {
    const probe = () =>
      withRedis({ host: '127.0.0.1', port: state.port, password: state.password, connectTimeoutMs: 1000 }, (r) => r.send(['PING'])).then(
        (reply) => reply === 'PONG',
        () => false, // starting up, or not listening yet
      );
    return awaitDaemonReady(pid, exited, probe, this.startTimeoutMs, 50, signal);
  }

  private async stopServer(dir: string, pid: number): Promise<void> {
    await stopDaemon(pid, this.files(dir).pid);
    this.forget(dir);
    this.logger.info({ dir, pid }, 'stopped a Redis server');
  }

  protected stopLive(dir: string, server: TrackedServer): Promise<void> {
    return this.stopServer(dir, server.pid);
  }

  /** afterDelete logs a removed instance directory. */
  protected override afterDelete(dir: string): void {
    this.logger.info({ dir }, 'removed a Redis instance directory');
  }
}
