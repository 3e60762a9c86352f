/**
 * The version of Conductor this client belongs to, read once from the package.json above
 * the compiled module (for the User-Agent header).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../machinery/package-files.js';

function findVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** The package version, or 0.0.0 when no package.json is found. */
export const clientVersion: string = findVersion();

/** The default User-Agent of Conductor's HTTP client. */
export const defaultUserAgent = `conductor/${clientVersion}`;
