/**
 * Measuring how much a claim's directory holds, by walking it — bounded, so a directory with
 * millions of files costs at most `limit` entries per observation.
 */
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

/** A Usage is what a walk found: bytes of regular files, entries seen, and whether it saw all. */
export interface Usage {
  bytes: number;
  files: number;
  entries: number;
  /** False when the walk stopped at the limit (bytes is then a lower bound). */
  complete: boolean;
}

/**
 * measureUsage sums the sizes of the regular files under `dir` (symbolic links are counted
 * as entries but not followed), visiting at most `limit` entries. Entries that vanish during
 * the walk are skipped. An abort of `signal` stops the walk with the signal's reason.
 */
export async function measureUsage(dir: string, limit: number, signal?: AbortSignal): Promise<Usage> {
  const usage: Usage = { bytes: 0, files: 0, entries: 0, complete: true };
  const pending: string[] = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let handle;
    try {
      handle = await opendir(current);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw err;
    }
    for await (const entry of handle) {
      signal?.throwIfAborted(); // leaving the loop closes the directory handle
      if (usage.entries >= limit) {
        usage.complete = false;
        return usage; // leaving the loop early closes the directory handle
      }
      usage.entries++;
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) {
        const info = await lstat(path).catch(() => undefined);
        if (info) {
          usage.bytes += info.size;
          usage.files++;
        }
      }
    }
  }
  return usage;
}
