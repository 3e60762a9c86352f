/**
 * Listeners supervises listener processes (a proxy or haproxy per resource), one directory
 * per resource under its root:
 *
 *   <root>/<namespace>_<name>/
 *     listener.json   port, and the hash of the config the process serves (written atomically)
 *     <config file>   the process's config (proxy.json or haproxy.cfg)
 *     listener.pid    pid of the process Conductor started
 *     listener.log    its output
 *
 * Every operation is idempotent and safe after a crash: a process that outlived a previous
 * Conductor is adopted (its pid file names it and its command line names this directory's
 * config), the port chosen once is kept across restarts (a new one only when something else
 * took it), a config change is written and reloaded in place, a process that died is
 * started again. Processes are detached, so a Conductor restart does not take them down.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { giveTo, prepareServerDirectories, type RunAs } from '../process/run-as.js';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { silentProviderLogger, type ProviderLogger } from '../../spi.js';
import { abandonStart, abortableSleep, awaitDaemonReady, spawnDaemon, type Readiness } from '../process/daemons.js';
import { freePort, isAlive, KeyedMutex, portIsFree, processCommand, sleep, writeFileAtomic } from '../process/processes.js';
import { ProcessSupervisor, readStateFile, writeStateFile, type StartOutcome } from '../process/supervisor.js';
import { configHash } from './proxy-config.js';
import type { ListenerProtocol } from './kinds.js';
import type { Backend } from './targets.js';

/** The files of one listener. */
export interface ListenerFiles {
  dir: string;
  state: string;
  config: string;
  pid: string;
  log: string;
}

/** A DesiredListener is what a listener should serve. */
export interface DesiredListener {
  namespace: string;
  name: string;
  /** Used when the listener is first created and the port is free. */
  preferredPort?: number;
  protocol: ListenerProtocol;
  backends: Backend[];
  /** The spec allows link-local and metadata targets (the forwarder then resolves names without filtering). */
  allowLinkLocal?: boolean;
}

/** A ListenerEngine is the server program behind a kind of listener. */
export interface ListenerEngine {
  /** The server's name in messages, e.g. `haproxy`. */
  readonly server: string;
  /** The config file's name in the listener directory. */
  readonly configFileName: string;
  /** render writes the config text for a listener on `address:port`. */
  render(desired: DesiredListener, address: string, port: number): string;
  /** command is how the server is started with the config in `files`. */
  command(files: ListenerFiles): { program: string; args: string[] };
  /**
   * check validates the config file before it is used; it throws saying what is wrong, or
   * the signal's reason when `signal` aborts (the checking program is killed).
   */
  check?(files: ListenerFiles, signal?: AbortSignal): Promise<void>;
  /**
   * reload makes a running server serve the config file (whose text hashes to `hash`); when
   * `signal` aborts it stops waiting for the server to report the reload.
   */
  reload(pid: number, files: ListenerFiles, hash: string, signal?: AbortSignal): Promise<void>;
  /** The signal that asks the server to stop. */
  readonly stopSignal: NodeJS.Signals;
  /** Files in the listener directory the server writes itself (made and handed to its user beforehand). */
  writes?(files: ListenerFiles): string[];
}

/** ListenerState is what a listener keeps in listener.json. */
export interface ListenerState {
  namespace: string;
  name: string;
  port: number;
  /** The hash of the config the running process was last made to serve. */
  appliedHash?: string;
  createdAt: string;
}

/** ListenerStatus is what `status` finds, without changing anything. */
export interface ListenerStatus {
  provisioned: boolean;
  running: boolean;
  /** The process runs and accepts connections on the port. */
  accepting: boolean;
  pid?: number;
  state?: ListenerState;
}

export interface ListenersOptions {
  /** The directory holding one subdirectory per listener. */
  root: string;
  engine: ListenerEngine;
  /** The address listeners bind; default 127.0.0.1. */
  address?: string;
  logger?: ProviderLogger;
  /** How long a start may take before it fails; default 15 s. */
  startTimeoutMs?: number;
  /** The user listeners run as (needed when Conductor is root: listeners never run as root). */
  runAs?: RunAs;
}

interface Running {
  pid: number;
  child?: ChildProcess;
}

const maxStartAttempts = 5;

/**
 * The ports listener states of this process hold, across every supervisor (the forwarder's
 * and haproxy's), so two listeners created at once never choose the same port; choices are
 * made one at a time.
 */
const claimedPorts = new Map<number, string>();
const portChoice = new KeyedMutex();

function claimPort(port: number, dir: string): void {
  for (const [p, owner] of claimedPorts) if (owner === dir && p !== port) claimedPorts.delete(p);
  claimedPorts.set(port, dir);
}

function releasePorts(dir: string): void {
  for (const [p, owner] of claimedPorts) if (owner === dir) claimedPorts.delete(p);
}

/** choosePort picks `preferred` when no other listener holds it and it is free, else a free unclaimed port. */
function choosePort(dir: string, preferred: number | undefined): Promise<number> {
  return portChoice.run('ports', async () => {
    const heldByOther = (p: number) => (claimedPorts.get(p) ?? dir) !== dir;
    let port: number | undefined;
    if (preferred !== undefined && !heldByOther(preferred) && (await portIsFree(preferred))) port = preferred;
    for (let i = 0; port === undefined && i < 50; i++) {
      const candidate = await freePort();
      if (!heldByOther(candidate)) port = candidate;
    }
    if (port === undefined) throw new Error('cannot find a free port that no other listener holds');
    claimPort(port, dir);
    return port;
  });
}

/** accepts says whether something accepts TCP connections on host:port right now. */
export function accepts(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * portFreeSoon says whether a port can be bound within a short while: the listening socket
 * of a process that just died may be released a few milliseconds after the process is gone.
 */
async function portFreeSoon(port: number, withinMs = 1000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await portIsFree(port)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
}

export class Listeners extends ProcessSupervisor<ListenerState, Running> {
  readonly address: string;
  readonly engine: ListenerEngine;
  private readonly logger: ProviderLogger;
  private readonly startTimeoutMs: number;
  private readonly runAs: RunAs | undefined;

  constructor(options: ListenersOptions) {
    super(options.root, 'listener directory');
    this.runAs = options.runAs;
    this.engine = options.engine;
    this.address = options.address ?? '127.0.0.1';
    this.logger = options.logger ?? silentProviderLogger;
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
  }

  /** logFile is the listener's log (its stdout and stderr) in the directory `dir`. */
  logFile(dir: string): string {
    return this.files(dir).log;
  }

  /** files names the files of a listener directory. */
  files(dir: string): ListenerFiles {
    return {
      dir,
      state: join(dir, 'listener.json'),
      config: join(dir, this.engine.configFileName),
      pid: join(dir, 'listener.pid'),
      log: join(dir, 'listener.log'),
    };
  }

  /** readState reads listener.json, or returns undefined when there is none. */
  async readState(dir: string): Promise<ListenerState | undefined> {
    const parsed = await readStateFile<ListenerState>(this.files(dir).state);
    if (parsed === undefined) return undefined;
    if (typeof parsed.port !== 'number' || typeof parsed.namespace !== 'string' || typeof parsed.name !== 'string') {
      throw new Error(`${this.files(dir).state} is not a valid listener state: want namespace, name and port`);
    }
    if (!claimedPorts.has(parsed.port)) claimPort(parsed.port, resolve(dir));
    return parsed as ListenerState;
  }

  private async writeState(dir: string, state: ListenerState): Promise<void> {
    await writeStateFile(this.files(dir).state, state);
    claimPort(state.port, resolve(dir));
  }

  /** A live process of this listener: the one we track, or the one the pid file names. */
  protected async findLive(dir: string): Promise<Running | undefined> {
    const files = this.files(dir);
    const tracked = await this.trackedAlive(dir);
    if (tracked) return tracked;
    return this.adoptOrNull(
      dir,
      [files.pid],
      async (pid) => {
        if (!(await isAlive(pid))) return undefined;
        const argv = await processCommand(pid);
        if (argv === undefined || !argv.includes(files.config)) return undefined; // not ours (or cannot tell): do not adopt
        return { pid };
      },
      ({ pid }) => this.logger.info({ dir, pid, server: this.engine.server }, 'adopted a running listener process'),
    );
  }

  /** desiredHash is the hash of the config a listener on `port` should serve. */
  desiredHash(desired: DesiredListener, port: number): string {
    return configHash(this.engine.render(desired, this.address, port));
  }

  /** status reports what is there, changing nothing (apart from adopting a live process). */
  async status(dir: string): Promise<ListenerStatus> {
    return this.locked(dir, async (full) => {
      const state = await this.readState(full);
      if (!state) return { provisioned: false, running: false, accepting: false };
      const live = await this.findLive(full);
      const accepting = live !== undefined && (await accepts(this.address, state.port, 2000));
      return { provisioned: true, running: live !== undefined, accepting, pid: live?.pid, state };
    });
  }

  /**
   * ensure makes the listener exist, run and serve `desired`: a running process gets the new
   * config reloaded in place; a missing or unresponsive one is started (on the kept port, or
   * a free one when something else took it). When `signal` aborts, the waits end with the
   * signal's reason, and a process this call started (with its workers) is killed.
   */
  async ensure(dir: string, desired: DesiredListener, signal?: AbortSignal): Promise<{ pid: number; port: number; started: boolean; reloaded: boolean }> {
    return this.locked(dir, async (full) => {
      const files = this.files(full);
      await prepareServerDirectories(this.root, full, this.runAs, this.engine.server);
      let state = await this.readState(full);
      if (!state) {
        // An unprivileged listener cannot bind a port below 1024: it gets a free one instead.
        const preferred = this.runAs && desired.preferredPort !== undefined && desired.preferredPort < 1024 ? undefined : desired.preferredPort;
        const port = await choosePort(full, preferred);
        state = { namespace: desired.namespace, name: desired.name, port, createdAt: new Date().toISOString() };
        await this.writeState(full, state);
      }
      let live = await this.findLive(full);
      if (live && !(await this.acceptsPatiently(state.port, signal))) {
        // A process that no longer serves its port (killed a moment ago, or stuck) is replaced.
        await this.stopLive(full, live);
        live = undefined;
      }
      if (live) {
        const text = this.engine.render(desired, this.address, state.port);
        const hash = configHash(text);
        const onDisk = await readFile(files.config, 'utf8').catch(() => undefined);
        if (state.appliedHash === hash && onDisk === text) return { pid: live.pid, port: state.port, started: false, reloaded: false };
        await this.writeConfig(files.config, text);
        await this.engine.check?.(files, signal);
        await this.engine.reload(live.pid, files, hash, signal);
        state = { ...state, appliedHash: hash };
        await this.writeState(full, state);
        this.logger.info({ dir: full, pid: live.pid, server: this.engine.server }, 'reloaded a listener with a new config');
        return { pid: live.pid, port: state.port, started: false, reloaded: true };
      }
      for (let attempt = 1; ; attempt++) {
        signal?.throwIfAborted();
        if (!(await portFreeSoon(state.port))) {
          const port = await choosePort(full, undefined);
          this.logger.info({ dir: full, was: state.port, port }, "the listener's port is taken; moving to a free one");
          state = { ...state, port };
          await this.writeState(full, state);
        }
        const text = this.engine.render(desired, this.address, state.port);
        await this.writeConfig(files.config, text);
        await this.engine.check?.(files, signal);
        const outcome = await this.startProcess(full, state.port, signal);
        if (outcome.ok) {
          state = { ...state, appliedHash: configHash(text) };
          await this.writeState(full, state);
          return { pid: outcome.pid, port: state.port, started: true, reloaded: false };
        }
        if (attempt >= maxStartAttempts || (await portIsFree(state.port))) {
          throw new Error(`${this.engine.server} for ${full} did not start: ${outcome.reason}${outcome.log ? `; log: ${outcome.log}` : ''}`);
        }
        this.logger.info({ dir: full, attempt, reason: outcome.reason }, 'a listener did not start (its port was taken); trying again');
        await abortableSleep(100 * attempt, signal);
      }
    });
  }

  /** acceptsPatiently gives a busy process a few chances before it counts as not serving. */
  private async acceptsPatiently(port: number, signal?: AbortSignal): Promise<boolean> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      signal?.throwIfAborted();
      if (await accepts(this.address, port, 2000)) return true;
      if (attempt < 3) await abortableSleep(250, signal);
    }
    return false;
  }

  /** writeConfig replaces the config (0600), the listener user's: the server reads it at start and on reload. */
  private async writeConfig(path: string, text: string): Promise<void> {
    await writeFileAtomic(path, text, 0o600);
    await giveTo(path, this.runAs);
  }

  private async startProcess(dir: string, port: number, signal?: AbortSignal): Promise<StartOutcome> {
    const files = this.files(dir);
    const { program, args } = this.engine.command(files);
    if (this.runAs) {
      // The directory stays root's (0711): a file the server writes itself must exist and be its user's.
      for (const path of this.engine.writes?.(files) ?? []) {
        await writeFile(path, '', { mode: 0o600, flag: 'a' });
        await giveTo(path, this.runAs);
      }
    }
    const started = await spawnDaemon({ program, args, cwd: dir, logFile: files.log, pidFile: files.pid, runAs: this.runAs });
    if ('error' in started) return { ok: false, reason: started.error, log: '' };
    const { pid, child, exited } = started;
    let readiness: Readiness;
    try {
      readiness = await awaitDaemonReady(pid, exited, () => accepts(this.address, port, 500), this.startTimeoutMs, 50, signal);
    } catch (err) {
      await abandonStart(pid, files.pid);
      this.logger.info({ dir, pid, server: this.engine.server }, 'killed a listener process whose start was cancelled');
      throw err;
    }
    const outcome = await this.settleStart(dir, { pid, child }, readiness, {
      logFile: files.log,
      exited,
      timedOut: `nothing accepted connections on port ${port} within ${this.startTimeoutMs} ms`,
      exitedAs: 'the process exited',
    });
    if (outcome.ok) this.logger.info({ dir, pid, port, server: this.engine.server }, 'started a listener process');
    return outcome;
  }

  /** stopProcess asks the process to stop, then kills it. */
  protected async stopLive(dir: string, proc: Running): Promise<void> {
    await this.stopTracked(dir, proc, this.files(dir).pid, [
      [this.engine.stopSignal, 5_000],
      ['SIGKILL', 5_000],
    ]);
    this.logger.info({ dir, pid: proc.pid, server: this.engine.server }, 'stopped a listener process');
  }

  /** afterDelete releases the ports a removed listener held. */
  protected override afterDelete(dir: string): void {
    releasePorts(dir);
    this.logger.info({ dir, server: this.engine.server }, 'removed a listener');
  }
}
