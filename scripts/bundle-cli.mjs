// Bundles the `conductor` command (dist/src/cli/main.js, as tsc compiled it) into dist/cli/:
// conductor.js and the chunks its lazily imported modules are split into. Node resolves, reads
// and links one file per module; a server start loads ~650 of ours and ~400 of npm packages',
// and doing that one by one was ~180 ms of the time to ready. Bundled: our modules and the
// pure-JavaScript packages every start loads (BUNDLED below, ~300 files between them). Every
// other package stays in node_modules, resolved as before: native addons, packages that find
// their own files by path (the cloud SDKs' protos, pino's workers), and the ones only some
// commands load. Names are kept (stack traces, `fn.name`); the source map chains back to src/
// through tsc's maps, for `node --enable-source-maps`. Run by `npm run build` after tsc. Files
// that other processes run by path (the S3 gateway, the load-balancer proxy) and the dashboard
// are found from the package root (machinery/package-files.ts), not beside a chunk.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'cli');
rmSync(out, { recursive: true, force: true });

/** Pure-JavaScript packages loaded at every start, that read no file of their own by path. */
const BUNDLED = new Set([
  'ajv',
  'fast-uri',
  'fast-deep-equal',
  'json-schema-traverse',
  'yaml',
  'semver',
  'commander',
  'prom-client',
  'bintrees',
  'tdigest',
  '@opentelemetry/api',
  '@marcbachmann/cel-js',
  'jsonpath-plus',
  'fast-json-patch',
]);

/** The package a bare import names ('@scope/name' or 'name'), or undefined for a relative path or a builtin. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Leaves every package outside BUNDLED to node_modules. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const pkg = packageOf(args.path);
      if (pkg === undefined || BUNDLED.has(pkg)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const result = await build({
  entryPoints: { conductor: join(root, 'dist', 'src', 'cli', 'main.js') },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  plugins: [externalPackages],
  // Bundled CommonJS packages call require() for Node's builtins; an ES module has none.
  banner: { js: "import { createRequire as conductorCreateRequire } from 'node:module'; const require = conductorCreateRequire(import.meta.url);" },
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
const bundled = new Set(
  Object.keys(result.metafile.inputs)
    .map((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1])
    .filter(Boolean),
);
const unused = [...BUNDLED].filter((p) => !bundled.has(p));
if (unused.length > 0) console.warn(`cli: listed to be bundled but not imported any more: ${unused.join(', ')} (scripts/bundle-cli.mjs BUNDLED)`);
console.log(`cli: dist/cli/conductor.js and ${chunks} chunks (packages bundled: ${[...bundled].sort().join(', ')})`);
