#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with Node's test runner and prints a
// closing "N passed, N failed" line. Pass path fragments to run a subset:
//   node scripts/run-tests.mjs store apiserver/schema
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

function walk(dir, out) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (entry.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
let files = walk('dist', []).sort();
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found under dist/ (run `npm run build` first)');
  process.exit(1);
}

const child = spawn(
  process.execPath,
  ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', '--test-reporter-destination=dist/test-results.tap', ...files],
  // Informers deep-freeze their cached objects in tests: a controller that mutates a shared object fails loudly.
  { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CONDUCTOR_FREEZE_CACHED_OBJECTS: '1' } },
);
child.on('exit', async (code, signal) => {
  const { readFileSync } = await import('node:fs');
  let passed = 0;
  let failed = 0;
  try {
    const tap = readFileSync('dist/test-results.tap', 'utf8');
    passed = Number(/^# pass (\d+)/m.exec(tap)?.[1] ?? 0);
    failed = Number(/^# fail (\d+)/m.exec(tap)?.[1] ?? 0);
  } catch {
    failed = failed || 1;
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code ?? (signal ? 1 : 0));
});
