/**
 * Reading a server's log file for the `log` subresource: the whole file or its last lines,
 * then, when followed, what is appended until the reader goes away. A file that shrinks
 * (rotated or truncated) is read again from its start.
 */
import { open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { pauseUnlessAborted } from '../machinery/abort.js';

const CHUNK = 64 * 1024;

/**
 * containedLogFile resolves `file` (symbolic links included) and returns it when it lies
 * under `root` and is a regular file, else undefined: a recorded path must not reach out of
 * the provider's own directory.
 */
export async function containedLogFile(root: string, file: string): Promise<string | undefined> {
  if (!isAbsolute(file) || file.includes('\0')) return undefined;
  let realRoot: string;
  let real: string;
  try {
    realRoot = await realpath(root);
    real = await realpath(file);
  } catch {
    return undefined;
  }
  const rel = relative(realRoot, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const s = await stat(real).catch(() => undefined);
  return s?.isFile() ? real : undefined;
}

/** tailStart is the offset where the last `lines` lines of the file's first `size` bytes begin. */
export async function tailStart(fh: FileHandle, size: number, lines: number): Promise<number> {
  if (lines <= 0) return size;
  let end = size;
  let newlines = 0;
  const buf = Buffer.alloc(CHUNK);
  // A final newline ends the last line; it does not start another.
  let skipFinal = true;
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const { bytesRead } = await fh.read(buf, 0, end - start, start);
    for (let i = bytesRead - 1; i >= 0; i--) {
      if (buf[i] !== 0x0a) {
        skipFinal = false;
        continue;
      }
      if (skipFinal) {
        skipFinal = false;
        continue;
      }
      newlines++;
      if (newlines === lines) return start + i + 1;
    }
    end = start;
  }
  return 0;
}

export interface LogReadOptions {
  /** Only the last this many lines (default: the whole file). */
  tailLines?: number;
  /** Go on sending what is appended until `signal` aborts. */
  follow: boolean;
  /** How often a followed file is looked at (default 250 ms). */
  pollMs?: number;
  signal: AbortSignal;
  /** Writes a piece; resolves once it may write more. */
  write(chunk: Buffer): Promise<void>;
}

/** streamLog sends the file as the options say; it resolves when done or aborted. */
export async function streamLog(file: string, o: LogReadOptions): Promise<void> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    let pos = o.tailLines === undefined ? 0 : await tailStart(fh, size, o.tailLines);
    pos = await copyRange(fh, pos, size, o);
    if (!o.follow) return;
    const pollMs = o.pollMs ?? 250;
    while (!o.signal.aborted) {
      await pauseUnlessAborted(pollMs, o.signal);
      if (o.signal.aborted) return;
      const now = (await stat(file).catch(() => undefined))?.size;
      if (now === undefined) continue;
      if (now < pos) pos = 0;
      if (now > pos) pos = await copyRange(fh, pos, now, o);
    }
  } finally {
    await fh.close();
  }
}

async function copyRange(fh: FileHandle, from: number, to: number, o: LogReadOptions): Promise<number> {
  let pos = from;
  while (pos < to && !o.signal.aborted) {
    const buf = Buffer.alloc(Math.min(CHUNK, to - pos));
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    await o.write(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return pos;
}
