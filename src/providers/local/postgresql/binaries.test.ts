import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveBinaries } from './binaries.js';
import { systemOrAnyBinaries } from './testing.js';

describe('resolveBinaries', () => {
  test('an explicit directory must hold the programs; the error says which is missing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'nobin-'));
    try {
      await assert.rejects(resolveBinaries({ binDir: empty }), new RegExp(`PostgreSQL binaries in ${empty} \\(option\\): ${empty}/initdb is missing`));
      await assert.rejects(resolveBinaries({ env: { CONDUCTOR_POSTGRES_BIN: empty } }), /\(environment\)/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  test('the option wins over the environment, which wins over the defaults', async () => {
    const found = await systemOrAnyBinaries();
    const viaOption = await resolveBinaries({ binDir: found.dir, env: { CONDUCTOR_POSTGRES_BIN: '/nonexistent' } });
    assert.equal(viaOption.source, 'option');
    const viaEnv = await resolveBinaries({ env: { CONDUCTOR_POSTGRES_BIN: found.dir } });
    assert.deepEqual({ ...viaEnv, source: 'x' }, { ...found, source: 'x' });
    assert.equal(viaEnv.source, 'environment');
    assert.match(viaEnv.version, /^\d+\.\d+$/);
  });

  test('without settings some binaries are found on this machine', async () => {
    const found = await resolveBinaries({ env: {} });
    assert.ok(['embedded', 'system'].includes(found.source));
    assert.match(found.version, /^\d+\.\d+$/);
  });
});
