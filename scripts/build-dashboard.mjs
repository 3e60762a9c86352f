// Bundles the web dashboard (src/dashboard/web) into dist/dashboard with esbuild: one
// content-hashed script and stylesheet, and an index.html naming them. Offline: everything
// comes from node_modules (preact), no CDN, no web fonts. Run by `npm run build` after tsc,
// which type-checks the browser code with src/dashboard/web/tsconfig.json first.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'src', 'dashboard', 'web');
const out = join(root, 'dist', 'dashboard');
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: { app: join(web, 'main.tsx') },
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  tsconfig: join(web, 'tsconfig.json'),
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
if (!script || !style) throw new Error(`the dashboard bundle lacks its script or stylesheet: ${outputs.join(', ')}`);
const html = readFileSync(join(web, 'index.html'), 'utf8').replace('%SCRIPT%', script).replace('%STYLE%', style);
writeFileSync(join(out, 'index.html'), html);
const size = (f) => readFileSync(join(out, f)).length;
console.log(`dashboard: dist/dashboard/${script} (${Math.round(size(script) / 1024)} KiB), ${style}, index.html`);
