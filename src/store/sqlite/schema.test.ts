import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageCacheBytes } from './options.js';
import { openDatabase } from './schema.js';

test("the page cache of an opened store is pageCacheBytes (16 MiB), not SQLite's default or more", () => {
  assert.equal(pageCacheBytes, 16 * 1024 * 1024);
  const dir = mkdtempSync(join(tmpdir(), 'conductor-schema-'));
  try {
    const db = openDatabase(join(dir, 'store.db'));
    try {
      // Negative: a size in KiB rather than in pages.
      assert.equal(db.pragma('cache_size', { simple: true }), -pageCacheBytes / 1024);
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
