import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildVersionInfo, conductorGitVersion } from './version-info.js';

describe('version info', () => {
  test('conductorGitVersion keeps the Kubernetes version and carries Conductor as build metadata', () => {
    assert.equal(conductorGitVersion('0.1.0'), 'v1.32.0+conductor.0.1.0');
    assert.equal(conductorGitVersion('1.2.3-rc.1'), 'v1.32.0+conductor.1.2.3-rc.1');
    assert.equal(conductorGitVersion('weird/ver sion'), 'v1.32.0+conductor.weird-ver-sion');
    assert.equal(conductorGitVersion(''), 'v1.32.0+conductor.dev');
  });

  test('major and minor come from gitVersion; every client-go field is a string', () => {
    const info = buildVersionInfo({ gitVersion: 'v1.32.0+conductor.0.1.0', gitCommit: 'abc' });
    assert.equal(info.major, '1');
    assert.equal(info.minor, '32');
    assert.equal(info.gitVersion, 'v1.32.0+conductor.0.1.0');
    assert.equal(info.gitTreeState, 'clean');
    for (const key of ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'] as const) {
      assert.equal(typeof info[key], 'string', key);
    }
    assert.match(info.platform, /^[a-z0-9]+\/[a-z0-9]+$/);
  });

  const bad = ['1.32.0', 'v1.32', 'v01.2.3', 'conductor'];
  for (const gitVersion of bad) {
    test(`rejects ${JSON.stringify(gitVersion)}, naming the expected form`, () => {
      assert.throws(() => buildVersionInfo({ gitVersion }), /not a semantic version: expected e\.g\. v1\.32\.0/);
    });
  }
});
