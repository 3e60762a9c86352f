/**
 * The version of Conductor this client belongs to, read once from the package.json above
 * the compiled module (for the User-Agent header).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'conductor' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return '0.0.0';
}

/** The package version, or 0.0.0 when no package.json is found. */
export const clientVersion: string = findVersion();

/** The default User-Agent of Conductor's HTTP client. */
export const defaultUserAgent = `conductor/${clientVersion}`;
