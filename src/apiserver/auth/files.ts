import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The mode of files holding secrets: private keys, tokens, kubeconfigs. */
export const SECRET_FILE_MODE = 0o600;
/**
 * The mode of files that are safe to share (certificates, public keys): still 0600, as every
 * file Conductor keeps in its data directory; copy them out to share them.
 */
export const PUBLIC_FILE_MODE = 0o600;

/**
 * writeFileAtomic writes data to a temporary file beside path, flushes it, gives it the wanted
 * mode and renames it over path, so a reader sees either the old file or the whole new one.
 */
export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', mode);
  try {
    await fh.chmod(mode); // the umask may have removed bits from the mode given to open
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw new Error(`cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new Error(`cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** readIfExists returns a file's text, or undefined when the file does not exist. */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
}
