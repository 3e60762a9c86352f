/**
 * The note `npm install` prints about better-sqlite3 compiling from source (package.json
 * "preinstall", scripts/install-note.mjs), run exactly as npm runs it, with this Node and no
 * network: it never fails the install — not even where the script is missing, as in an image
 * layer that copies only package.json before `npm ci` — and it is quiet once the module is built.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, repoRoot, tempDir } from '../support/server.js';

const preinstall: string = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.preinstall;

/** Runs the preinstall command in `dir` as npm does (sh -c), with no proxy or registry to reach. */
function runPreinstall(dir: string) {
  const env = { ...process.env, http_proxy: 'http://127.0.0.1:9', https_proxy: 'http://127.0.0.1:9', npm_config_local_prefix: dir };
  return spawnSync('sh', ['-c', preinstall], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 });
}

describe('npm install: the better-sqlite3 note', () => {
  test('on a fresh checkout it says that better-sqlite3 may compile from source and what that needs, and exits 0', () => {
    const dir = tempDir('conductor-install-');
    try {
      mkdirSync(join(dir, 'scripts'));
      copyFileSync(join(repoRoot, 'scripts', 'install-note.mjs'), join(dir, 'scripts', 'install-note.mjs'));
      const r = runPreinstall(dir);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /better-sqlite3 \(Conductor's embedded store\)/);
      assert.match(r.stderr, /compiles from source/);
      assert.match(r.stderr, /apt-get install build-essential python3/);
    } finally {
      removeDir(dir);
    }
  });

  test('once better-sqlite3 is built it says nothing', () => {
    const dir = tempDir('conductor-install-');
    try {
      mkdirSync(join(dir, 'scripts'));
      copyFileSync(join(repoRoot, 'scripts', 'install-note.mjs'), join(dir, 'scripts', 'install-note.mjs'));
      mkdirSync(join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), '');
      const r = runPreinstall(dir);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, '');
    } finally {
      removeDir(dir);
    }
  });

  test('without the script (only package.json copied) the install goes on: exit 0, nothing printed', () => {
    const dir = tempDir('conductor-install-');
    try {
      const r = runPreinstall(dir);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, '');
    } finally {
      removeDir(dir);
    }
  });
});
