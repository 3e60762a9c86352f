/**
 * Where the files this package ships are. Code runs from dist/src/ (as tsc compiled it), from a
 * chunk of the bundled command under dist/cli/ (scripts/bundle-cli.mjs), or from src/ under tsx,
 * so a path relative to the running module is right in one layout and wrong in the others. The
 * package root — the nearest directory above this module whose package.json is Conductor's —
 * is the same in all three.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'conductor') return dir;
    } catch {
      // no readable package.json here: keep walking up
    }
    if (dirname(dir) === dir) return undefined;
  }
}

const here = dirname(fileURLToPath(import.meta.url));
let root: string | undefined;

/** The directory holding Conductor's package.json; throws when the installation has none. */
export function packageRoot(): string {
  root ??= findPackageRoot(here);
  if (root === undefined) throw new Error(`cannot find Conductor's package.json in ${here} or above it: the installation is incomplete`);
  return root;
}

/**
 * distFile names a file `npm run build` writes under dist/, e.g.
 * `distFile('src/providers/local/s3/s3-gateway-main.js')` for a script another process runs.
 */
export function distFile(relative: string): string {
  return join(packageRoot(), 'dist', relative);
}
