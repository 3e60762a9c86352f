#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with Node's test runner and prints a
// closing "N passed, N failed, N skipped" line. Pass path fragments to run a subset:
//   node scripts/run-tests.mjs store apiserver/schema
//
// "failed" counts every test that failed, every test that was cancelled (its `before` hook
// failed, or it ran past its timeout) and every hook that failed on its own (a failing
// `after` hook leaves its tests "passed"). The exit code is non-zero when anything failed.
//
// Timeouts: each test and hook that sets no `{ timeout }` of its own gets
// CONDUCTOR_TEST_TIMEOUT_MS (default 120000; see scripts/test-timeout.mjs), so a hung test
// fails and the run goes on. Each test FILE is bounded too, by CONDUCTOR_TEST_FILE_TIMEOUT_MS
// (default 1800000), which catches a process that never exits after its tests (an open handle).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';

const TAP_FILE = 'dist/test-results.tap';

function walk(dir, out) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (entry.endsWith('.test.js')) out.push(path);
  }
  return out;
}

function milliseconds(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0) {
    console.error(`${name} must be a whole number of milliseconds (0 = no timeout), got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return ms;
}

/** The closing counts of a TAP stream written by `node --test` (the last summary in it). */
export function tapCounts(tap) {
  const last = (key) => {
    const all = [...tap.matchAll(new RegExp(`^# ${key} (\\d+)$`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : 0;
  };
  return {
    passed: last('pass'),
    failed: last('fail'),
    cancelled: last('cancelled'),
    skipped: last('skipped'),
    todo: last('todo'),
    // A hook failure is reported on its suite, not counted in "# fail".
    failedHooks: (tap.match(/^\s*failureType: 'hookFailed'$/gm) ?? []).length,
  };
}

/** The closing line; CI reads its "N passed, N failed" prefix. */
export function closingLine(counts, exitCode) {
  let failed = counts.failed + counts.cancelled + counts.failedHooks;
  const notes = [];
  if (counts.cancelled) notes.push(`${counts.cancelled} cancelled (a failed before hook or a timeout)`);
  if (counts.failedHooks) notes.push(`${counts.failedHooks} failed hook${counts.failedHooks === 1 ? '' : 's'}`);
  if (failed === 0 && exitCode !== 0) {
    failed = 1;
    notes.push(`the test run exited with ${exitCode}: see the output above`);
  }
  let line = `${counts.passed} passed, ${failed} failed, ${counts.skipped} skipped`;
  if (counts.todo) line += `, ${counts.todo} todo`;
  if (notes.length) line += ` (failed includes ${notes.join('; ')})`;
  return { line, failed };
}

async function main() {
  const filters = process.argv.slice(2);
  let files = walk('dist', []).sort();
  if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
  if (files.length === 0) {
    console.error('no test files found under dist/ (run `npm run build` first)');
    process.exit(1);
  }
  const testTimeoutMs = milliseconds('CONDUCTOR_TEST_TIMEOUT_MS', 120_000);
  const fileTimeoutMs = milliseconds('CONDUCTOR_TEST_FILE_TIMEOUT_MS', 1_800_000);
  const preload = fileURLToPath(new URL('./test-timeout.mjs', import.meta.url));
  // Two test files at a time: most e2e time is spent waiting on servers, so on two cores this
  // halves the wall time (node's default is one less than the cores: one file at a time here).
  const concurrency = Number(process.env.CONDUCTOR_TEST_CONCURRENCY ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    console.error(
      `CONDUCTOR_TEST_CONCURRENCY is ${JSON.stringify(process.env.CONDUCTOR_TEST_CONCURRENCY)}: want a whole number of test files to run at once, at least 1`,
    );
    process.exit(1);
  }

  const child = spawn(
    process.execPath,
    [
      `--import=${preload}`,
      '--test',
      `--test-concurrency=${concurrency}`,
      ...(fileTimeoutMs ? [`--test-timeout=${fileTimeoutMs}`] : []),
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${TAP_FILE}`,
      ...files,
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        CONDUCTOR_TEST_TIMEOUT_MS: String(testTimeoutMs),
        // Informers deep-freeze their cached objects in tests: a controller that mutates a shared object fails loudly.
        CONDUCTOR_FREEZE_CACHED_OBJECTS: '1',
      },
    },
  );
  // Ctrl-C reaches the child too (same process group): wait for it to write its summary.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const exitCode = await new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  let counts;
  try {
    counts = tapCounts(readFileSync(TAP_FILE, 'utf8'));
  } catch (err) {
    console.error(`could not read ${TAP_FILE}: ${err.message}`);
    counts = { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, failedHooks: 0 };
  }
  const { line, failed } = closingLine(counts, exitCode);
  console.log(line);
  process.exit(failed > 0 || exitCode !== 0 ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
