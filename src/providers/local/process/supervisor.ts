/**
 * The mechanics every supervisor of local server processes shares: one directory per
 * resource under a root, a lock per directory, the servers this Conductor started or
 * adopted, adoption through pid files after a restart, stopping, removing, listing, the
 * state file of a directory, and the port kept across restarts.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { instanceDirectoryName } from './instance-names.js';
import { findDaemon, sendStopSignals, type Readiness, type StopSignals } from './daemons.js';
import type { ProviderLogger } from '../../spi.js';
import { freePort, isAlive, KeyedMutex, readTail, sleep, waitForFreePort, writeFileAtomic } from './processes.js';

/** A TrackedServer is a server process a supervisor knows of; kinds add what they need. */
export interface TrackedServer {
  pid: number;
  /**
   * The process handle when this supervisor started the server. Its exit is known even after
   * the pid has been reused by another process, which a check of the pid alone cannot tell.
   */
  child?: ChildProcess;
}

/**
 * A ProcessSupervisor is the base of a supervisor of one local server kind: it names and
 * checks the directories under its root, runs the operations on one directory one at a
 * time, and tracks the servers started or adopted so `stopAll` can stop them on shutdown.
 * A kind says how to read a directory's state, find its live server and stop it.
 */
export abstract class ProcessSupervisor<S, R extends TrackedServer> {
  readonly root: string;
  private readonly running = new Map<string, R>();
  private readonly locks = new KeyedMutex();

  /** `what` names a directory in errors, e.g. `instance directory`. */
  constructor(
    root: string,
    private readonly what: string,
  ) {
    this.root = resolve(root);
  }

  /** readState reads a directory's state file, or returns undefined when there is none. */
  abstract readState(dir: string): Promise<S | undefined>;

  /** findLive returns the live server of a directory (tracked or adopted); called under its lock. */
  protected abstract findLive(dir: string): Promise<R | undefined>;

  /** stopLive stops a server `findLive` returned; called under its directory's lock. */
  protected abstract stopLive(dir: string, server: R): Promise<void>;

  /** findForRemoval is the server `remove` stops; by default `findLive`'s. */
  protected findForRemoval(dir: string): Promise<R | undefined> {
    return this.findLive(dir);
  }

  /** beforeDelete runs in `remove` after the server stopped, before the directory is deleted. */
  protected async beforeDelete(_dir: string): Promise<void> {}

  /** afterDelete runs in `remove` after the directory is deleted, still under its lock. */
  protected afterDelete(_dir: string): void {}

  /**
   * readOrCreateState returns a directory's state; when there is none it first stores
   * `create(port)` through `write`, on `wantedPort` or else on a port free right now.
   */
  protected async readOrCreateState(
    dir: string,
    wantedPort: number | undefined,
    create: (port: number) => S,
    write: (dir: string, state: S) => Promise<void>,
  ): Promise<S> {
    const existing = await this.readState(dir);
    if (existing) return existing;
    const state = create(wantedPort ?? (await freePort()));
    await write(dir, state);
    return state;
  }

  /** dirFor is the directory of the resource `namespace/name`. */
  dirFor(namespace: string, name: string): string {
    return join(this.root, instanceDirectoryName(namespace, name));
  }

  /** checkDir resolves `dir` and throws unless it lies directly under the root. */
  protected checkDir(dir: string): string {
    const full = resolve(dir);
    const rel = relative(this.root, full);
    if (rel === '' || rel.startsWith('..') || rel.includes(sep)) throw new Error(`${this.what} ${full} is not directly under ${this.root}`);
    return full;
  }

  /** locked checks `dir` and runs `fn` with its full path under the directory's lock. */
  protected locked<T>(dir: string, fn: (full: string) => Promise<T>): Promise<T> {
    const full = this.checkDir(dir);
    return this.locks.run(full, () => fn(full));
  }

  /** tracked returns the server tracked for a directory. */
  protected tracked(dir: string): R | undefined {
    return this.running.get(dir);
  }

  /** track records the server of a directory (started or adopted). */
  protected track(dir: string, server: R): void {
    this.running.set(dir, server);
  }

  /** forget stops tracking the server of a directory. */
  protected forget(dir: string): void {
    this.running.delete(dir);
  }

  /**
   * trackedAlive returns the tracked server of a directory when it has not exited (for a child
   * of ours) and `stillOurs` (by default: its pid is alive) agrees; otherwise it stops tracking
   * it and returns undefined.
   */
  protected async trackedAlive(dir: string, stillOurs: (server: R) => Promise<boolean> = (s) => isAlive(s.pid)): Promise<R | undefined> {
    const tracked = this.running.get(dir);
    if (tracked && !childExited(tracked) && (await stillOurs(tracked))) return tracked;
    this.running.delete(dir);
    return undefined;
  }

  /**
   * adoptOrNull reads the pid in each pid file in turn (its first line) and adopts the first
   * one `identify` recognises as this directory's server, tracking it and telling `adopted`;
   * it returns undefined when none is.
   */
  protected async adoptOrNull(
    dir: string,
    pidFiles: readonly string[],
    identify: (pid: number) => Promise<R | undefined>,
    adopted: (server: R) => void,
  ): Promise<R | undefined> {
    for (const pidFile of pidFiles) {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      const server = await identify(Number(text.split('\n')[0]));
      if (server === undefined) continue;
      this.running.set(dir, server);
      adopted(server);
      return server;
    }
    return undefined;
  }

  /**
   * stopTracked stops a server with `signals` (each followed by a wait), stops tracking it
   * and removes its pid file, whether or not the process went.
   */
  protected async stopTracked(dir: string, server: R, pidFile: string, signals: StopSignals): Promise<void> {
    await sendStopSignals(server.pid, signals);
    this.running.delete(dir);
    await rm(pidFile, { force: true });
  }

  /**
   * settleStart turns how the wait for a just started server ended into a StartOutcome: a
   * ready server is tracked; one that did not get ready in time is stopped (`stopLive`);
   * a failure carries the reason (`timedOut`, or `exited` with how the process ended) and
   * the tail of `logFile`.
   */
  protected async settleStart(
    dir: string,
    server: R,
    readiness: Readiness,
    failure: { logFile: string; exited: () => string | undefined; timedOut: string; exitedAs: string },
  ): Promise<StartOutcome> {
    if (readiness === 'ready') {
      this.running.set(dir, server);
      return { ok: true, pid: server.pid };
    }
    if (readiness === 'timeout') {
      await this.stopLive(dir, server);
      return { ok: false, reason: failure.timedOut, log: await readTail(failure.logFile, 4) };
    }
    return { ok: false, reason: `${failure.exitedAs} (${failure.exited() ?? 'gone'})`, log: await readTail(failure.logFile, 4) };
  }

  /** stop stops the server of a directory if one runs; the directory stays. */
  async stop(dir: string): Promise<void> {
    await this.locked(dir, async (full) => {
      const live = await this.findLive(full);
      if (live) await this.stopLive(full, live);
    });
  }

  /** remove stops the server of a directory and deletes the directory with all it holds. */
  async remove(dir: string): Promise<void> {
    await this.locked(dir, async (full) => {
      const live = await this.findForRemoval(full);
      if (live) await this.stopLive(full, live);
      await this.beforeDelete(full);
      await rm(full, { recursive: true, force: true });
      this.afterDelete(full);
    });
  }

  /** stopAll stops every server this supervisor started or adopted (on shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((dir) => this.stop(dir)));
  }

  /** list returns the directories under the root that hold a readable state (for discovery). */
  async list(): Promise<{ dir: string; state: S }[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const found: { dir: string; state: S }[] = [];
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

  /**
   * findTrackedDaemon returns the live server of `dir` for a kind that tracks bare pids: the
   * process `pidFile` names when it is still `program` running in `cwd` (see `findDaemon`);
   * one not tracked yet is adopted and told to `adopted`.
   */
  protected async findTrackedDaemon(
    dir: string,
    daemon: { pidFile: string; program: string; cwd: string },
    identify: (pid: number) => R,
    adopted: (pid: number) => void,
  ): Promise<R | undefined> {
    const pid = await findDaemon(daemon.pidFile, daemon.program, daemon.cwd);
    if (pid === undefined) {
      this.running.delete(dir);
      return undefined;
    }
    if (!this.running.has(dir)) adopted(pid);
    const server = identify(pid);
    this.running.set(dir, server);
    return server;
  }
}

/**
 * readStateFile reads a JSON state file, or returns undefined when there is none; checking
 * its fields is the caller's part.
 */
export async function readStateFile<S>(path: string): Promise<Partial<S> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as Partial<S>;
}

/** writeStateFile replaces a JSON state file atomically (mode 0600: it may hold passwords). */
export async function writeStateFile(path: string, state: object): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(state, null, 2)}\n`, 0o600);
}

/**
 * keepPort returns `state` on the port its server should use: `pinned` when given, else the
 * stored port unless something else holds it (a killed server's port frees a moment later),
 * else a free one; a changed port is stored through `write` first.
 */
export async function keepPort<S extends { port: number }>(
  state: S,
  pinned: number | undefined,
  write: (state: S) => Promise<void>,
): Promise<S> {
  let port = pinned ?? state.port;
  if (pinned === undefined && !(await waitForFreePort(port))) port = await freePort();
  if (port === state.port) return state;
  const next = { ...state, port };
  await write(next);
  return next;
}


/** A StartOutcome is how one attempt to start a server ended: its pid, or why not and its log's tail. */
export type StartOutcome = { ok: true; pid: number } | { ok: false; reason: string; log: string };

/** StartRetries says how `startWithRetries` starts one server and when it tries again. */
export interface StartRetries<S extends { port: number }> {
  /** The server's name in messages, e.g. `PostgreSQL`. */
  server: string;
  dir: string;
  state: S;
  /** The port the resource pins, if any; otherwise the kept port is used (see `keepPort`). */
  pinned: number | undefined;
  /** write stores a state whose port changed. */
  write(state: S): Promise<void>;
  /** start makes one attempt on the state's port. */
  start(state: S): Promise<StartOutcome>;
  maxAttempts: number;
  /** Log lines after which a start is worth another try shortly. */
  transient?: readonly RegExp[];
  /** Log lines saying the port was taken: worth another try (on another port) unless pinned. */
  portTaken: RegExp;
  /** The wait before attempt n+1 is n times this. */
  backoffMs: number;
  logger?: ProviderLogger;
}

/**
 * startWithRetries starts a server on its kept port, trying again (after a growing wait)
 * while the failure is transient or the port was taken and not pinned; it throws saying
 * why the last attempt failed, with the log's tail.
 */
export async function startWithRetries<S extends { port: number }>(o: StartRetries<S>): Promise<{ pid: number; state: S }> {
  let state = o.state;
  for (let attempt = 1; ; attempt++) {
    state = await keepPort(state, o.pinned, o.write);
    const outcome = await o.start(state);
    if (outcome.ok) return { pid: outcome.pid, state };
    const retry =
      attempt < o.maxAttempts &&
      ((o.transient ?? []).some((p) => p.test(outcome.log)) || (o.pinned === undefined && o.portTaken.test(outcome.log)));
    if (!retry) throw new Error(`${o.server} in ${o.dir} did not start: ${outcome.reason}${outcome.log ? `; log: ${outcome.log}` : ''}`);
    o.logger?.info({ dir: o.dir, attempt, reason: outcome.reason }, `${o.server} did not start; trying again`);
    await sleep(o.backoffMs * attempt);
  }
}

/** childExited says whether a server this supervisor started has exited (false when it did not start it). */
function childExited(server: TrackedServer): boolean {
  return server.child !== undefined && (server.child.exitCode !== null || server.child.signalCode !== null);
}
