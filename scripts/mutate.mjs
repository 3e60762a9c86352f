#!/usr/bin/env node
// Mutation testing with a list of known mutations (`npm run mutate`; not part of `npm test`).
//
// Each entry of scripts/mutations.json changes one piece of source — {id, file, find, replace,
// tests, why} — and names the tests that should notice. For each mutation, one at a time:
// the source file is changed (`find` must occur exactly once), only that file is recompiled
// into dist/ (TypeScript's transpileModule: milliseconds instead of a full tsc run), the
// listed tests run (scripts/run-tests.mjs), and the mutation is "killed" when they fail or
// "survived" when they pass. The source and the compiled file are restored after every
// mutation — also on Ctrl-C, on errors, and at the next start if the process was killed
// (a backup lives in dist/.mutation-backup.json while a mutation is applied).
//
// Before the mutations, each distinct test set runs once unmutated (with the mutated files
// compiled the same way): a set that fails there makes its mutations "baseline-failed".
//
// Prints a score table and writes bench/results/mutation-<UTC time>.json.
//   node scripts/mutate.mjs                 # all (needs a build: npm run build)
//   node scripts/mutate.mjs --only gc-foreground-as-background,store-cas
//   node scripts/mutate.mjs --list
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LIST = join(ROOT, 'scripts', 'mutations.json');
const BACKUP = join(ROOT, 'dist', '.mutation-backup.json');
const require = createRequire(import.meta.url);
const ts = require('typescript');

function usage(code) {
  console.log('usage: node scripts/mutate.mjs [--only id,id,...] [--list]');
  process.exit(code);
}

const args = process.argv.slice(2);
let only;
let listOnly = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--only') only = new Set((args[++i] ?? '').split(',').filter(Boolean));
  else if (args[i] === '--list') listOnly = true;
  else if (args[i] === '--help' || args[i] === '-h') usage(0);
  else {
    console.error(`unknown argument ${JSON.stringify(args[i])}`);
    usage(2);
  }
}

/** The mutation list, checked: every entry complete, ids unique. */
function loadMutations() {
  const all = JSON.parse(readFileSync(LIST, 'utf8'));
  if (!Array.isArray(all)) throw new Error(`${LIST}: expected a JSON array of mutations`);
  const ids = new Set();
  for (const [i, m] of all.entries()) {
    for (const key of ['id', 'file', 'find', 'replace', 'why']) {
      if (typeof m[key] !== 'string') throw new Error(`${LIST}[${i}]: "${key}" must be a string`);
    }
    if (!Array.isArray(m.tests) || m.tests.length === 0 || !m.tests.every((t) => typeof t === 'string')) {
      throw new Error(`${LIST}[${i}] (${m.id}): "tests" must be a non-empty list of path fragments`);
    }
    if (ids.has(m.id)) throw new Error(`${LIST}: the id ${m.id} appears twice`);
    ids.add(m.id);
  }
  if (only) for (const id of only) if (!ids.has(id)) throw new Error(`--only: no mutation ${id} in ${LIST}`);
  return only ? all.filter((m) => only.has(m.id)) : all;
}

const compilerOptions = (() => {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(config.error.messageText, '\n')}`);
  const parsed = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, ROOT);
  // transpileModule cannot see package.json's "type": "module", so NodeNext would emit CommonJS;
  // ES2022 modules are what tsc emits for this package.
  return { ...parsed.options, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, sourceMap: false, inlineSourceMap: false };
})();

const distPathOf = (file) => join(ROOT, 'dist', file.replace(/\.ts$/, '.js'));

function transpile(file, source) {
  const out = ts.transpileModule(source, { compilerOptions, fileName: join(ROOT, file), reportDiagnostics: true });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length) throw new Error(`${file} does not compile: ${errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')).join('; ')}`);
  return out.outputText;
}

// ---- keeping the tree intact -------------------------------------------------------------

/** What to put back: file → {source, compiled}. Mirrored to BACKUP while a mutation is applied. */
let applied;

function restore() {
  if (!applied) return;
  for (const [file, saved] of Object.entries(applied)) {
    writeFileSync(join(ROOT, file), saved.source);
    writeFileSync(distPathOf(file), saved.compiled);
  }
  applied = undefined;
  rmSync(BACKUP, { force: true });
}

function apply(file, source, compiled) {
  applied = { [file]: { source: readFileSync(join(ROOT, file), 'utf8'), compiled: readFileSync(distPathOf(file), 'utf8') } };
  writeFileSync(BACKUP, JSON.stringify(applied));
  writeFileSync(join(ROOT, file), source);
  writeFileSync(distPathOf(file), compiled);
}

function recoverFromKilledRun() {
  if (!existsSync(BACKUP)) return;
  applied = JSON.parse(readFileSync(BACKUP, 'utf8'));
  console.log(`restoring ${Object.keys(applied).join(', ')} from an earlier run that did not finish`);
  restore();
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    restore();
    console.error(`\nmutate: stopped by ${sig}; the source and dist/ are restored`);
    process.exit(130);
  });
}
process.on('exit', () => restore());

// ---- running ---------------------------------------------------------------------------

/** Runs the tests asynchronously, so a Ctrl-C reaches the handlers above while they run. */
async function runTests(fragments) {
  // A mutant can leave a timer running after its tests failed, and the file never exits: a
  // 5-minute bound per file (not the runner's 30) ends it sooner.
  const env = { ...process.env, CONDUCTOR_TEST_FILE_TIMEOUT_MS: process.env.CONDUCTOR_TEST_FILE_TIMEOUT_MS ?? '300000' };
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'run-tests.mjs'), ...fragments], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks = [];
  child.stdout.on('data', (d) => chunks.push(d));
  child.stderr.on('data', (d) => chunks.push(d));
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const r = { status };
  const out = Buffer.concat(chunks).toString('utf8');
  const line =
    out
      .trim()
      .split('\n')
      .reverse()
      .find((l) => /^\d+ passed, \d+ failed/.test(l)) ?? '(no result line)';
  const failing = [...out.matchAll(/^✖ (.+?)(?: \(\d[\d.]*ms\))?$/gm)].map((m) => m[1]).filter((n) => n !== 'failing tests:');
  return { ok: r.status === 0, line, failing: [...new Set(failing)].slice(0, 5) };
}

async function main() {
  if (!existsSync(join(ROOT, 'dist'))) {
    console.error('mutate: no dist/ (run `npm run build` first, or `npm run mutate`)');
    process.exit(2);
  }
  recoverFromKilledRun();
  const mutations = loadMutations();
  if (listOnly) {
    for (const m of mutations) console.log(`${m.id.padEnd(44)} ${m.file}\n${''.padEnd(44)} ${m.why}`);
    return 0;
  }

  // Each mutated file compiled the way mutants will be, so the baseline measures the same thing.
  const files = [...new Set(mutations.map((m) => m.file))];
  const tscOutput = new Map(files.map((f) => [f, readFileSync(distPathOf(f), 'utf8')]));
  const results = [];
  const startedAt = new Date();
  const outDir = join(ROOT, 'bench', 'results');
  const out = join(
    outDir,
    `mutation-${startedAt
      .toISOString()
      .replace(/:/g, '-')
      .replace(/\.\d+Z$/, 'Z')}.json`,
  );
  /** Written after every mutation (complete: false until the end), so a stopped run keeps what it found. */
  const save = (complete) => {
    const killed = results.filter((r) => r.status === 'killed').length;
    const survived = results.filter((r) => r.status === 'survived').length;
    const score = killed + survived ? Math.round((1000 * killed) / (killed + survived)) / 10 : null;
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify({ startedAt: startedAt.toISOString(), complete, node: process.version, killed, survived, score, results }, null, 2)}\n`,
    );
    return { killed, survived, score };
  };
  try {
    for (const f of files) writeFileSync(distPathOf(f), transpile(f, readFileSync(join(ROOT, f), 'utf8')));
    const baseline = new Map();
    for (const m of mutations) {
      const key = JSON.stringify(m.tests);
      if (baseline.has(key)) continue;
      process.stdout.write(`baseline: ${m.tests.join(' ')} ... `);
      const b = await runTests(m.tests);
      baseline.set(key, b);
      console.log(b.ok ? b.line : `FAILED (${b.line}) ${b.failing.join('; ')}`);
    }

    for (const [i, m] of mutations.entries()) {
      const t0 = Date.now();
      const base = baseline.get(JSON.stringify(m.tests));
      const original = readFileSync(join(ROOT, m.file), 'utf8');
      const count = original.split(m.find).length - 1;
      let result;
      if (count !== 1) {
        result = { status: 'stale', detail: `"find" occurs ${count} times in ${m.file} (must be once): update the mutation` };
      } else if (!base.ok) {
        result = { status: 'baseline-failed', detail: base.line };
      } else {
        const mutated = original.replace(m.find, () => m.replace);
        let compiled;
        try {
          compiled = transpile(m.file, mutated);
        } catch (err) {
          result = { status: 'invalid', detail: err.message };
        }
        if (compiled !== undefined) {
          apply(m.file, mutated, compiled);
          try {
            const r = await runTests(m.tests);
            result = r.ok ? { status: 'survived', detail: r.line } : { status: 'killed', detail: r.line, failing: r.failing };
          } finally {
            restore();
          }
        }
      }
      const seconds = Math.round((Date.now() - t0) / 1000);
      results.push({ id: m.id, file: m.file, why: m.why, tests: m.tests, seconds, ...result });
      console.log(
        `[${i + 1}/${mutations.length}] ${result.status.toUpperCase().padEnd(15)} ${m.id} (${seconds} s)${result.status === 'killed' ? '' : `: ${result.detail}`}`,
      );
      for (const f of result.failing ?? []) console.log(`      ✖ ${f}`);
      save(false);
    }
  } finally {
    restore();
    for (const [f, js] of tscOutput) writeFileSync(distPathOf(f), js);
  }

  const { killed, survived, score } = save(true);
  console.log('\nmutation                                     area                         result');
  console.log('-------------------------------------------  ---------------------------  ---------------');
  for (const r of results)
    console.log(
      `${r.id.padEnd(43)}  ${dirname(r.file)
        .replace(/^src\//, '')
        .padEnd(27)}  ${r.status}`,
    );
  console.log(
    `\nscore: ${killed} killed, ${survived} survived${score === null ? '' : ` (${score}%)`}; ${results.length - killed - survived} not run (stale, invalid or baseline-failed)`,
  );
  console.log(`results: ${relative(ROOT, out)}`);
  return survived > 0 || results.some((r) => r.status !== 'killed' && r.status !== 'survived') ? 1 : 0;
}

process.exitCode = await main();
