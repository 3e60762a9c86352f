/**
 * The mechanics every supervisor of local server processes shares: one directory per
 * resource under a root, a lock per directory, the servers this Conductor started or
 * adopted, adoption through pid files after a restart, stopping, removing, listing, the
 * state file of a directory, and the port kept across restarts.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { crashPoint } from '../../../machinery/crash-point.js';
import { instanceDirectoryName } from './instance-names.js';
import { findDaemon, findUnrecorded, sendStopSignals, type Readiness, type StopSignals } from './daemons.js';
import type { ProviderLogger } from '../../spi.js';
import { freePort, isAlive, KeyedMutex, processesIn, readTail, sleep, syncDirectory, waitForExit, waitForFreePort, writeFileAtomic } from './processes.js';

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
  private readonly exitListeners: ((dir: string) => void)[] = [];
  private readonly watchedChildren = new WeakSet<ChildProcess>();
  private adoptedTimer: NodeJS.Timeout | undefined;
  /** How often the pids of adopted servers are checked for an exit. */
  protected adoptedCheckMs = 1_000;

  /** `what` names a directory in errors, e.g. `instance directory`. */
  constructor(
    root: string,
    private readonly what: string,
  ) {
    this.root = resolve(root);
    // Removals a crash interrupted are finished at start-up; every operation on a directory
    // also finishes its own first (see `locked`), so nothing waits on this.
    // An empty root (left by an earlier version, which made it at start) goes too.
    void this.finishRemovals()
      .then(() => rmdir(this.root))
      .catch(() => {});
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

  /**
   * locked checks `dir` and runs `fn` with its full path under the directory's lock, after
   * finishing a removal of that directory a crash interrupted (so nothing reads, reuses or
   * reports as gone a directory whose removal is not complete).
   */
  protected locked<T>(dir: string, fn: (full: string) => Promise<T>): Promise<T> {
    const full = this.checkDir(dir);
    return this.locks.run(full, async () => {
      await this.finishRemoval(full);
      return fn(full);
    });
  }

  /** tombstoneFor is where `remove` moves a directory before deleting it. */
  private tombstoneFor(full: string): string {
    return join(this.root, `${tombstonePrefix}${basename(full)}`);
  }

  /**
   * finishRemoval deletes the tombstone of a directory, if a removal left one: processes
   * still running in it are killed first (a server no pid file named, an orphaned initdb).
   */
  private async finishRemoval(full: string): Promise<void> {
    const tombstone = this.tombstoneFor(full);
    if (
      !(await stat(tombstone).then(
        () => true,
        () => false,
      ))
    )
      return;
    await killProcessesIn(tombstone);
    const entries = await readdir(tombstone).catch(() => [] as string[]);
    for (const [i, entry] of entries.entries()) {
      await rm(join(tombstone, entry), { recursive: true, force: true });
      if (i === 0) crashPoint('local.removing-instance-dir');
    }
    await rm(tombstone, { recursive: true, force: true });
    await syncDirectory(this.root);
  }

  /**
   * finishRemovals completes every removal a crash interrupted under the root (at start-up,
   * through discovery); it returns how many there were.
   */
  async finishRemovals(): Promise<number> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const pending = names.filter((n) => n.startsWith(tombstonePrefix)).map((n) => join(this.root, n.slice(tombstonePrefix.length)));
    for (const dir of pending) await this.locks.run(dir, () => this.finishRemoval(dir));
    return pending.length;
  }

  /** removing says whether a removal of the directory has begun and not finished. */
  async removing(dir: string): Promise<boolean> {
    return stat(this.tombstoneFor(this.checkDir(dir))).then(
      () => true,
      () => false,
    );
  }

  /**
   * stopStrays kills every process still running in a directory (by its working directory):
   * an initdb or install program, or a server, left by a Conductor killed mid-way. Call it
   * only where no server of the directory may run, e.g. before its data is initialised again.
   */
  protected async stopStrays(full: string): Promise<void> {
    await killProcessesIn(full);
  }

  /** tracked returns the server tracked for a directory. */
  protected tracked(dir: string): R | undefined {
    return this.running.get(dir);
  }

  /** track records the server of a directory (started or adopted). */
  protected track(dir: string, server: R): void {
    this.setRunning(dir, server);
  }

  /**
   * onServerExit registers `listener` to hear of a tracked server's exit, with its
   * directory: at once for a child this supervisor started (its 'exit' event), within
   * `adoptedCheckMs` for a server adopted from an earlier Conductor (its pid is checked).
   * A deliberate stop is told too; the listener decides what matters (the provider asks
   * for the directory's resource to be reconciled now instead of at its next poll).
   */
  onServerExit(listener: (dir: string) => void): void {
    this.exitListeners.push(listener);
  }

  private setRunning(dir: string, server: R): void {
    const previous = this.running.get(dir);
    const kept = previous && previous.pid === server.pid && previous.child && !server.child ? { ...server, child: previous.child } : server;
    this.running.set(dir, kept);
    const child = kept.child;
    if (child) {
      if (!this.watchedChildren.has(child)) {
        this.watchedChildren.add(child);
        child.once('exit', () => this.serverExited(dir));
      }
    } else {
      this.watchAdopted();
    }
  }

  /** watchAdopted checks the pids of adopted servers (no exit event comes for them) while any is tracked. */
  private watchAdopted(): void {
    if (this.adoptedTimer) return;
    this.adoptedTimer = setInterval(() => {
      const adopted = [...this.running.entries()].filter(([, server]) => !server.child);
      if (adopted.length === 0) {
        clearInterval(this.adoptedTimer);
        this.adoptedTimer = undefined;
        return;
      }
      for (const [dir, server] of adopted) {
        void isAlive(server.pid).then((alive) => {
          if (!alive && this.running.get(dir) === server) {
            this.running.delete(dir);
            this.serverExited(dir);
          }
        });
      }
    }, this.adoptedCheckMs);
    this.adoptedTimer.unref();
  }

  private serverExited(dir: string): void {
    for (const listener of this.exitListeners) {
      try {
        listener(dir);
      } catch {
        // a listener's failure is its own
      }
    }
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
   * one `identify` recognises as this directory's server, tracking it and telling `adopted`.
   * When no pid file names it (Conductor was killed between the spawn and the pid file's
   * write), a recognised process running in the directory is adopted and the first pid file
   * written again. It returns undefined when none is.
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
      this.setRunning(dir, server);
      adopted(server);
      return server;
    }
    const identified = new Map<number, R>();
    const pid = await findUnrecorded(dir, async (candidate) => {
      const server = await identify(candidate);
      if (server) identified.set(candidate, server);
      return server !== undefined;
    });
    const server = pid === undefined ? undefined : identified.get(pid);
    if (server === undefined) return undefined;
    if (pidFiles[0] !== undefined) await writeFileAtomic(pidFiles[0], `${server.pid}\n`, 0o644);
    this.setRunning(dir, server);
    adopted(server);
    return server;
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
      this.setRunning(dir, server);
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

  /**
   * remove stops the server of a directory and deletes the directory with all it holds. The
   * directory is first renamed to a tombstone in one step, so a crash at any point leaves
   * either the whole directory (remove runs again) or a tombstone that the next operation on
   * the directory, `list` or `finishRemovals` deletes — never a directory that looks gone
   * while part of its data remains. An emptied root is removed too.
   */
  async remove(dir: string): Promise<void> {
    await this.locked(dir, async (full) => {
      const live = await this.findForRemoval(full);
      if (live) await this.stopLive(full, live);
      await this.beforeDelete(full);
      const exists = await stat(full).then(
        () => true,
        () => false,
      );
      if (exists) {
        await rename(full, this.tombstoneFor(full));
        await syncDirectory(this.root);
        await this.finishRemoval(full);
      }
      this.afterDelete(full);
      await rmdir(this.root).catch(() => {}); // not empty, or gone: either is fine
    });
  }

  /** stopAll stops every server this supervisor started or adopted (on shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((dir) => this.stop(dir)));
  }

  /**
   * list returns the directories under the root that hold a readable state (for discovery),
   * after finishing the removals a crash interrupted.
   */
  async list(): Promise<{ dir: string; state: S }[]> {
    await this.finishRemovals();
    const names = await readdir(this.root).catch(() => [] as string[]);
    const found: { dir: string; state: S }[] = [];
    for (const name of names.sort()) {
      if (name.startsWith(tombstonePrefix)) continue;
      const dir = join(this.root, name);
      if (
        !(await stat(dir).then(
          (s) => s.isDirectory(),
          () => false,
        ))
      )
        continue;
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
    this.setRunning(dir, server);
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
export async function keepPort<S extends { port: number }>(state: S, pinned: number | undefined, write: (state: S) => Promise<void>): Promise<S> {
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
  write: (state: S) => Promise<void>;
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
  /** Aborted when the caller stops waiting: no further attempt is made (`start` honours it within one). */
  signal?: AbortSignal;
}

/**
 * startWithRetries starts a server on its kept port, trying again (after a growing wait)
 * while the failure is transient or the port was taken and not pinned; it throws saying
 * why the last attempt failed, with the log's tail.
 */
export async function startWithRetries<S extends { port: number }>(o: StartRetries<S>): Promise<{ pid: number; state: S }> {
  let state = o.state;
  for (let attempt = 1; ; attempt++) {
    o.signal?.throwIfAborted();
    state = await keepPort(state, o.pinned, o.write);
    const outcome = await o.start(state);
    if (outcome.ok) return { pid: outcome.pid, state };
    const retry =
      attempt < o.maxAttempts && ((o.transient ?? []).some((p) => p.test(outcome.log)) || (o.pinned === undefined && o.portTaken.test(outcome.log)));
    if (!retry) throw new Error(`${o.server} in ${o.dir} did not start: ${outcome.reason}${outcome.log ? `; log: ${outcome.log}` : ''}`);
    o.logger?.info({ dir: o.dir, attempt, reason: outcome.reason }, `${o.server} did not start; trying again`);
    await sleep(o.backoffMs * attempt);
  }
}

/** The name prefix of a directory being removed (`<root>/.removing-<name>`). */
export const tombstonePrefix = '.removing-';

/** killProcessesIn SIGKILLs every process whose working directory is `dir` or under it, and waits for them to go. */
export async function killProcessesIn(dir: string): Promise<void> {
  const pids = await processesIn(dir);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  for (const pid of pids) await waitForExit(pid, 5_000);
}

/** childExited says whether a server this supervisor started has exited (false when it did not start it). */
function childExited(server: TrackedServer): boolean {
  return server.child !== undefined && (server.child.exitCode !== null || server.child.signalCode !== null);
}
