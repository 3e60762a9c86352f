import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServiceAccountKey, serviceAccountKeyPaths } from './service-account-key.js';

describe('ensureServiceAccountKey', () => {
  test('creates an EC P-256 key (0600) and its public key (0600, as every file in the data directory) once, then loads the same key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-key-'));
    try {
      const first = await ensureServiceAccountKey(dir);
      const paths = serviceAccountKeyPaths(dir);
      assert.equal(statSync(paths.key).mode & 0o777, 0o600);
      assert.equal(statSync(paths.pub).mode & 0o777, 0o600);
      assert.equal(first.privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
      const pem = readFileSync(paths.key, 'utf8');
      const second = await ensureServiceAccountKey(dir);
      assert.equal(second.kid, first.kid);
      assert.equal(readFileSync(paths.key, 'utf8'), pem);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const bad: Array<{ reason: string; content: () => string; want: RegExp }> = [
    { reason: 'a file that is no key', content: () => 'hello', want: /is not a PEM private key/ },
    {
      reason: 'an RSA key',
      content: () => generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      want: /is not an EC P-256 key/,
    },
  ];
  for (const c of bad) {
    test(`refuses ${c.reason}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sa-key-'));
      try {
        mkdirSync(join(dir, 'pki'));
        writeFileSync(serviceAccountKeyPaths(dir).key, c.content());
        await assert.rejects(ensureServiceAccountKey(dir), c.want);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
