/**
 * Cleanup for e2e tests: kill the dedicated servers a test server left behind, wherever the
 * local provider keeps them — under the data dir, and, when Conductor runs as root, in
 * `/var/tmp/conductor-<engine>-<hash of the data dir>` (see `serverRootFor` in
 * src/providers/local/process/run-as.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * instanceRoots lists the directories an engine's instances may live in for a data dir:
 * `engine` is the path under `<dataDir>/providers/local` (`redis`, `loadbalancer/haproxy`),
 * its last segment names the /var/tmp root.
 */
export function instanceRoots(dataDir: string, engine: string): string[] {
  const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
  return [join(dataDir, 'providers', 'local', engine), join('/var/tmp', `conductor-${engine.split('/').pop()}-${hash}`)];
}

/**
 * killLeftovers SIGKILLs the process named by `pidFile` in every instance directory of the
 * engine (both roots); a missing file or a gone process is skipped. Returns the pids signalled.
 */
export function killLeftovers(dataDir: string, engine: string, pidFile: string): number[] {
  const killed: number[] = [];
  for (const root of instanceRoots(dataDir, engine)) {
    let dirs: string[];
    try {
      dirs = readdirSync(root);
    } catch {
      continue;
    }
    for (const d of dirs) {
      try {
        const pid = Number(readFileSync(join(root, d, pidFile), 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0) {
          process.kill(pid, 'SIGKILL');
          killed.push(pid);
        }
      } catch {
        // no pid file, or the process is gone
      }
    }
  }
  return killed;
}
