/**
 * The bundled `conductor` command (scripts/bundle-cli.mjs → dist/cli/): its chunks live in
 * another directory than the modules they were made of, so a module that names a file beside
 * itself (`new URL('./x.js', import.meta.url)`) would look for it in dist/cli/ and fail only
 * when that code first runs. Files shipped in dist/ are named from the package root
 * (machinery/package-files.ts) instead; this holds the bundle to that.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { cliPath, repoRoot } from '../support/server.js';

const bundleDir = join(repoRoot, 'dist', 'cli');

function scripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return scripts(p);
    return name.endsWith('.js') ? [p] : [];
  });
}

describe('the bundled conductor command', () => {
  test('no chunk names a file beside itself through import.meta.url', () => {
    const offenders: string[] = [];
    for (const file of scripts(bundleDir)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/new URL\(\s*["'`](\.{1,2}\/[^"'`]*)["'`]\s*,\s*import\.meta\.url\s*\)/g)) {
        offenders.push(`${relative(repoRoot, file)}: ${m[0]}`);
      }
    }
    assert.deepEqual(offenders, [], 'use distFile() from machinery/package-files.ts for files shipped in dist/');
  });

  test('it is what package.json names as the conductor binary, and it runs', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string>; version: string };
    assert.equal(join(repoRoot, pkg.bin.conductor), cliPath);
    const run = spawnSync(process.execPath, [cliPath, '--version'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout.trim(), /^\d+\.\d+\.\d+/);
  });
});
