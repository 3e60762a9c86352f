// Bundles the `conductor` command (dist/src/cli/main.js, as tsc compiled it) into dist/cli/:
// conductor.js and the chunks its lazily imported modules are split into. Node resolves, reads
// and links one file per module; the compiled tree is ~650 modules at start, and doing that for
// each of them was ~130 ms of the time to ready. npm packages stay outside the bundle (resolved
// from node_modules as before); names are kept (stack traces, `fn.name`); the source map chains
// back to src/ through tsc's maps, for `node --enable-source-maps`. Run by `npm run build`
// after tsc. Files that other processes run by path (the S3 gateway, the load-balancer proxy)
// and the dashboard are found from the package root (src/package-root.ts), not beside a chunk.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'cli');
rmSync(out, { recursive: true, force: true });

const result = await build({
  entryPoints: { conductor: join(root, 'dist', 'src', 'cli', 'main.js') },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  keepNames: true,
  sourcemap: 'linked',
  outdir: out,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});

const entry = join(out, 'conductor.js');
chmodSync(entry, 0o755);
const chunks = Object.keys(result.metafile.outputs).filter((p) => p.endsWith('.js')).length - 1;
console.log(`cli: dist/cli/conductor.js and ${chunks} chunks`);
