/**
 * Operating-system helpers for supervising server processes: is a pid alive, which
 * directory does it run in, a free TCP port, a keyed mutex, atomic file writes.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { open, readFile, readdir, readlink, realpath, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

/** isAlive says whether a process exists and is not a zombie waiting to be reaped. */
export async function isAlive(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // No entry: without /proc at all, trust kill(0); with /proc, the process was reaped while
  // we read (a zombie a moment ago, its pid free for reuse now) — it is gone.
  if (stat === undefined) return !procMounted();
  // The state follows the parenthesised command name, which may itself contain spaces.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

let procChecked: boolean | undefined;

/** procMounted says whether this system has a /proc with per-process entries (checked once). */
function procMounted(): boolean {
  procChecked ??= existsSync('/proc/self/stat');
  return procChecked;
}

/** processDirectory returns the working directory of a process, when the OS tells. */
export async function processDirectory(pid: number): Promise<string | undefined> {
  return readlink(`/proc/${pid}/cwd`).catch(() => undefined);
}

/** processCommand returns a process's argument vector, when the OS tells. */
export async function processCommand(pid: number): Promise<string[] | undefined> {
  const text = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : text.split('\0').filter((a) => a !== '');
}

/** parentPid returns the pid of a process's parent, when the OS tells. */
export async function parentPid(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/**
 * processesIn lists the live processes whose working directory is `dir` or lies under it,
 * read from /proc (empty without /proc). A server's working directory is set at its spawn
 * and cannot be lost the way a pid file can, so this finds a server whose pid was never
 * recorded (Conductor killed between the spawn and the pid file's write).
 */
export async function processesIn(dir: string): Promise<number[]> {
  const wanted = await realpath(dir).catch(() => dir);
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const cwd = await processDirectory(pid);
    if (cwd === undefined) continue;
    if ((cwd === wanted || cwd.startsWith(`${wanted}/`)) && (await isAlive(pid))) found.push(pid);
  }
  return found.sort((a, b) => a - b);
}

/** waitForExit polls until a process is gone; it reports whether it went within the time. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (await isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** freePort asks the OS for a TCP port on 127.0.0.1 that is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('cannot read the port the OS chose'))));
    });
  });
}

/** portIsFree says whether a TCP port on 127.0.0.1 can be bound right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * waitForFreePort says whether `port` becomes free within `timeoutMs`: a server just killed
 * releases its port only once the process is gone, a moment after the signal.
 */
export async function waitForFreePort(port: number, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await portIsFree(port)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
}

/**
 * writeFileAtomic replaces a file's content in one step: a reader sees old or new, never
 * half, and after a crash the file holds one of them (the data is synced before the rename,
 * the directory after it).
 */
export async function writeFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tmp, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
  await syncDirectory(dirname(path));
}

/** syncDirectory makes a rename or removal in a directory durable (best effort). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // some file systems refuse fsync on a directory: nothing more can be done
  } finally {
    await handle.close();
  }
}

/** readTail returns the last lines of a text file ('' when it cannot be read). */
export async function readTail(path: string, lines = 8, bytes = 8192): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

/** A KeyedMutex runs the functions given for one key one after another. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.catch(() => {});
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
