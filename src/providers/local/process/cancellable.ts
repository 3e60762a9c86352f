/**
 * What makes a wait of a provider call end when the call's signal aborts: `untilAborted`
 * races a piece of work against the signal and undoes what the work holds open (a client
 * connection, a child process) before it rejects; `runProgram` runs a program to its end (an
 * initdb, a mariadb-install-db) and kills it, with whatever it started, on abort.
 */
import { spawn } from 'node:child_process';
import { abortReason } from '../../../machinery/abort.js';
import type { RunAs } from './run-as.js';
import { isAlive, waitForExit } from './processes.js';

/**
 * untilAborted returns what `work` returns, unless `signal` aborts first: then `cancel` is
 * called (it closes or kills what the work waits on, so nothing stays open) and, once it
 * has finished, the promise rejects with the signal's reason. A rejection of `work` after
 * the abort (its connection was destroyed under it) is the signal's reason too.
 */
export async function untilAborted<T>(signal: AbortSignal | undefined, work: () => Promise<T>, cancel: () => void | Promise<void>): Promise<T> {
  if (!signal) return work();
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      Promise.resolve()
        .then(cancel)
        .catch(() => {}) // cancelling is best effort: the reason below is what the caller needs
        .finally(() => reject(abortReason(signal)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const running = work();
  try {
    return await Promise.race([running, aborted]);
  } catch (err) {
    if (signal.aborted) throw abortReason(signal);
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort!);
    running.catch(() => {}); // settles after an abort, when nobody waits for it any more
    aborted.catch(() => {});
  }
}

/** A ProgramRun says how to run one program to its end. */
export interface ProgramRun {
  program: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The user to run as (when Conductor is root and the program must not be). */
  runAs?: RunAs;
  /** Aborted when the caller stops waiting: the program and what it started are killed. */
  signal?: AbortSignal;
}

/**
 * runProgram runs a program and resolves when it exits with 0; otherwise it rejects with
 * the exit and the last lines of its output. The program runs in a process group of its own,
 * so that an abort of `signal` kills it and every process it started (initdb runs postgres
 * in bootstrap mode, mariadb-install-db runs mariadbd) with SIGKILL, waits for it to be
 * gone and rejects with the signal's reason.
 */
export async function runProgram(run: ProgramRun): Promise<void> {
  run.signal?.throwIfAborted();
  const child = spawn(run.program, run.args, {
    cwd: run.cwd,
    env: run.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own, killed as one
    ...(run.runAs ? { uid: run.runAs.uid, gid: run.runAs.gid } : {}),
  });
  const finished = new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${run.program} ${run.args.join(' ')} failed (${signal ?? `exit ${code}`}): ${failureLines(output).join(' | ')}`));
    });
  });
  await untilAborted(
    run.signal,
    () => finished,
    async () => {
      if (child.pid !== undefined) await killGroup(child.pid);
    },
  );
}

/** What a failure message quotes of a program's output: its last lines naming an error, else its last lines. */
export function failureLines(output: string, max = 5): string[] {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  // mariadb-install-db ends a failure with twenty lines of advice; the error is above them.
  const errors = lines.filter((l) => /\b(error|fatal|failed|cannot|can't|denied)\b/i.test(l));
  return (errors.length > 0 ? errors : lines).slice(-max);
}

/**
 * killGroup SIGKILLs the process group led by `pid` (a detached child leads its own) and
 * waits for its leader to be gone; a group already gone is fine.
 */
export async function killGroup(pid: number, waitMs = 5_000): Promise<void> {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL'); // no such group (it was not made a leader): the process alone
    } catch {
      return; // gone already
    }
  }
  if (await isAlive(pid)) await waitForExit(pid, waitMs);
}
