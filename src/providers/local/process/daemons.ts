/**
 * Detached server processes ("daemons") a local kind starts and later finds again: start one
 * with its output in a log file and its pid in a pid file, find a live one through that pid
 * file (checking it really is the server for that directory), and stop one with escalating
 * signals. Detached so a Conductor restart leaves the servers running to be adopted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { open, readFile, realpath, rm } from 'node:fs/promises';
import { abortReason } from '../../../machinery/abort.js';
import { crashPoint } from '../../../machinery/crash-point.js';
import { killGroup } from './cancellable.js';
import type { RunAs } from './run-as.js';
import { isAlive, parentPid, processCommand, processDirectory, processesIn, sleep, waitForExit, writeFileAtomic } from './processes.js';

/** A DaemonLaunch says how to start one server process. */
export interface DaemonLaunch {
  program: string;
  args: string[];
  /** The working directory; also how `findDaemon` recognises the process later. */
  cwd: string;
  logFile: string;
  pidFile: string;
  /** The user to run as (when Conductor is root and the server must not be). */
  runAs?: RunAs;
  env?: NodeJS.ProcessEnv;
}

/** A StartedDaemon is a server process just started. */
export interface StartedDaemon {
  pid: number;
  child: ChildProcess;
  /** How it exited (`exit 1`, `SIGKILL`), or undefined while it runs. */
  exited: () => string | undefined;
}

/** daemonEnv is a server's environment: nothing of Conductor's own (tokens, settings). */
export function daemonEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}

/** A DaemonSpawnFailure says why a server process could not be spawned at all. */
export interface DaemonSpawnFailure {
  error: string;
}

/**
 * spawnDaemon spawns a detached process writing to `logFile` (appended) and records its pid
 * in `pidFile` (atomically); when the program cannot be spawned it returns why instead of
 * throwing. It resolves once the process is spawned, not once the server is ready. A crash
 * between the spawn and the pid file's write leaves a server no pid file names: adoption
 * then finds it by its working directory (`findDaemon`, `ProcessSupervisor.adoptOrNull`).
 */
export async function spawnDaemon(launch: DaemonLaunch): Promise<StartedDaemon | DaemonSpawnFailure> {
  const log = await open(launch.logFile, 'a', 0o600);
  let child: ChildProcess;
  let spawned: Promise<Error | undefined>;
  try {
    child = spawn(launch.program, launch.args, {
      cwd: launch.cwd,
      env: launch.env ?? daemonEnv(),
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      ...(launch.runAs ? { uid: launch.runAs.uid, gid: launch.runAs.gid } : {}),
    });
    // Listen before anything else is awaited: 'spawn' and 'error' come on the next tick.
    spawned = new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', resolve);
    });
  } finally {
    await log.close();
  }
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = signal ?? `exit ${code}`));
  const error = await spawned;
  if (error || child.pid === undefined) return { error: error?.message ?? 'no pid' };
  child.unref();
  crashPoint('local.spawned-before-pid-recorded');
  await writeFileAtomic(launch.pidFile, `${child.pid}\n`, 0o644);
  return { pid: child.pid, child, exited: () => exited };
}

/**
 * startDaemon is spawnDaemon for callers that treat a failed spawn as an error: it throws
 * naming the program and the reason.
 */
export async function startDaemon(launch: DaemonLaunch): Promise<StartedDaemon> {
  const started = await spawnDaemon(launch);
  if ('error' in started) throw new Error(`cannot start ${launch.program}: ${started.error}`);
  return started;
}

/** A Readiness is how a wait for a starting server ended. */
export type Readiness = 'ready' | 'gone' | 'timeout';

/**
 * awaitDaemonReady polls `probe` until it reports the server ready, the process is gone
 * (`exited` says so for a child; otherwise its pid is checked), or `timeoutMs` has passed.
 * When `signal` aborts it throws the signal's reason at once, leaving the process alone:
 * a caller that started it for the cancelled call stops it (`abandonStart`).
 */
export async function awaitDaemonReady(
  pid: number,
  exited: () => string | undefined,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 50,
  signal?: AbortSignal,
): Promise<Readiness> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    if (exited() !== undefined || !(await isAlive(pid))) return 'gone';
    if (await probe()) return 'ready';
    if (Date.now() >= deadline) return 'timeout';
    await abortableSleep(intervalMs, signal);
  }
}

/** abortableSleep waits `ms`, or throws the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return sleep(ms);
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * abandonStart kills a server process started for a call that was cancelled before the
 * server got ready (SIGKILL: it holds nothing yet that a clean shutdown would save) with
 * the processes it started (a detached server leads its own process group: postgres's
 * backends, haproxy's worker), waits for it to go and removes its pid file. The next
 * attempt starts it anew.
 */
export async function abandonStart(pid: number, pidFile?: string): Promise<void> {
  await killGroup(pid);
  if (pidFile && !(await isAlive(pid))) await rm(pidFile, { force: true });
}

/** readPidFile reads a pid file, or returns undefined when there is no valid one. */
export async function readPidFile(pidFile: string): Promise<number | undefined> {
  const text = await readFile(pidFile, 'utf8').catch(() => undefined);
  const pid = Number(text?.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * isDaemonOf says whether `pid` is a live process of `program` (compared by base name)
 * whose working directory is `dir` — how a server started by an earlier Conductor is told
 * apart from an unrelated process that reused its pid.
 */
export async function isDaemonOf(pid: number, program: string, dir: string): Promise<boolean> {
  if (!(await isAlive(pid))) return false;
  const cwd = await processDirectory(pid);
  if (cwd === undefined) return false; // cannot tell: do not adopt
  const wanted = await realpath(dir).catch(() => dir);
  if (cwd !== wanted) return false;
  const argv = await processCommand(pid);
  const name = program.slice(program.lastIndexOf('/') + 1);
  // Some servers rewrite their process title (redis-server shows "redis-server 127.0.0.1:6379").
  return argv === undefined || argv.length === 0 || (argv[0] ?? '').includes(name);
}

/**
 * findDaemon returns the live server for `dir`: the pid recorded in `pidFile` when that
 * process is still the server, else a `program` process running in `dir` that no pid file
 * names (its pid file is then written again); a stale pid file is removed.
 */
export async function findDaemon(pidFile: string, program: string, dir: string): Promise<number | undefined> {
  const pid = await readPidFile(pidFile);
  if (pid !== undefined && (await isDaemonOf(pid, program, dir))) return pid;
  const found = await findUnrecorded(dir, (candidate) => isDaemonOf(candidate, program, dir));
  if (found !== undefined) {
    await writeFileAtomic(pidFile, `${found}\n`, 0o644);
    return found;
  }
  if (pid !== undefined) await rm(pidFile, { force: true });
  return undefined;
}

/**
 * findUnrecorded returns the server among the processes running in `dir` (or under it) that
 * `identify` recognises: of several (a master and its workers), one whose parent is not
 * itself recognised.
 */
export async function findUnrecorded(dir: string, identify: (pid: number) => Promise<boolean>): Promise<number | undefined> {
  const matches: number[] = [];
  for (const pid of await processesIn(dir)) if (await identify(pid)) matches.push(pid);
  for (const pid of matches) {
    const parent = await parentPid(pid);
    if (parent === undefined || !matches.includes(parent)) return pid;
  }
  return matches[0];
}

/** The default way to stop a server: ask, then insist. */
export const defaultStopSignals: StopSignals = [
  ['SIGTERM', 10_000],
  ['SIGKILL', 5_000],
];

/** StopSignals are the signals that stop a server, each with how long to wait after it. */
export type StopSignals = readonly (readonly [NodeJS.Signals, number])[];

/**
 * sendStopSignals sends each signal in turn, waiting up to its time for the process to
 * exit; it reports whether the process is gone.
 */
export async function sendStopSignals(pid: number, signals: StopSignals = defaultStopSignals): Promise<boolean> {
  for (const [signal, waitMs] of signals) {
    try {
      process.kill(pid, signal);
    } catch {
      return true; // already gone
    }
    if (await waitForExit(pid, waitMs)) return true;
  }
  return false;
}

/**
 * stopDaemon sends each signal in turn, waiting up to its time for the process to exit;
 * it reports whether the process is gone, and removes `pidFile` when it is.
 */
export async function stopDaemon(pid: number, pidFile?: string, signals: StopSignals = defaultStopSignals): Promise<boolean> {
  const gone = !(await isAlive(pid)) || (await sendStopSignals(pid, signals));
  if (gone && pidFile) await rm(pidFile, { force: true });
  return gone;
}
