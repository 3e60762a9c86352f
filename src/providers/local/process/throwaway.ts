/**
 * Test support shared by the throwaway servers of the local kinds (PostgreSQL, MariaDB,
 * Redis): one server in its own temporary root, started by the kind's own supervisor, with a
 * `stop` that stops it and removes every file. Not used outside tests.
 */
import { rm } from 'node:fs/promises';

/**
 * startThrowaway runs `start` (which starts the server in `dir` of `servers`) and returns what
 * it returns plus `stop`. When `start` fails, whatever it left is removed before the error
 * goes on, so a failed test start leaves no process or directory behind.
 */
export async function startThrowaway<T extends object>(
  root: string,
  servers: { remove(dir: string): Promise<void> },
  dir: string,
  start: () => Promise<T>,
): Promise<T & { stop(): Promise<void> }> {
  const cleanUp = async () => {
    await servers.remove(dir);
    await rm(root, { recursive: true, force: true });
  };
  try {
    return { ...(await start()), stop: cleanUp };
  } catch (err) {
    await servers.remove(dir).catch(() => {});
    await rm(root, { recursive: true, force: true });
    throw err;
  }
}
