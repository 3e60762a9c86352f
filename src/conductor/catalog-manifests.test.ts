import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { allCrds } from './catalog.js';
import { crdFiles, crdsYaml, writeCrdFiles } from '../apis/manifests.js';

/** deploy/crds of the repository (this file runs from dist/src/conductor). */
const deployDir = resolve(import.meta.dirname, '..', '..', '..', 'deploy', 'crds');

describe('CRD manifests', () => {
  test('the YAML stream holds every CRD, unchanged by the round trip', () => {
    const docs = parseAllDocuments(crdsYaml(allCrds())).map((d) => d.toJS());
    assert.deepEqual(docs, allCrds());
  });

  test('deploy/crds holds exactly the current CRDs (run `npm run gen:crds` after changing a kind in src/apis or src/providers)', () => {
    const want = crdFiles(allCrds());
    const have = readdirSync(deployDir)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    assert.deepEqual(
      have,
      want.map((f) => f.name),
    );
    for (const f of want) assert.equal(readFileSync(join(deployDir, f.name), 'utf8'), f.content, `${f.name} is stale`);
  });

  test('writing files replaces stale YAML and leaves other files alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-crds-'));
    try {
      writeFileSync(join(dir, 'old_thing.yaml'), 'stale');
      writeFileSync(join(dir, 'README.md'), 'keep');
      const { written, removed } = await writeCrdFiles(dir, allCrds());
      assert.deepEqual(removed, ['old_thing.yaml']);
      assert.deepEqual(readdirSync(dir).sort(), [...written, 'README.md'].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
