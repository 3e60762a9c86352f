/**
 * New connection details from a provider reach the claim: when a bound resource's details
 * change (here the user name of a MemoryDatabase), the claim's connection Secret follows.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlOk, serverForSuite } from '../support/server.js';
import { eventually } from '../support/eventually.js';

describe('connection details that change', () => {
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });

  const secretUser = async (): Promise<string> => {
    const out = await kubectlOk(suite.server, ['get', 'secret', 'app-db', '-n', 'team', '-o', 'jsonpath={.data.username}']).catch(() => '');
    return Buffer.from(out.trim(), 'base64').toString();
  };

  test("a resource's new user name is published to the bound claim's Secret", async () => {
    const s = suite.server;
    await kubectlOk(s, [
      'wait',
      '--for=condition=Established',
      'crd/memorydatabases.database.memory.conductor.io',
      'crd/postgresqlinstances.storage.conductor.io',
      '--timeout=30s',
    ]);
    await kubectlOk(s, ['create', 'namespace', 'team']);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-1, namespace: conductor-system}
spec: {version: "16.4", masterUsername: first}
---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: app-db, namespace: team}
spec: {version: ">= 15"}
`,
    });
    await eventually(async () => ((await secretUser()) === 'first' ? true : undefined), 'the claim Secret carries the first user name');
    await kubectlOk(s, ['patch', 'memorydatabase', 'db-1', '-n', 'conductor-system', '--type', 'merge', '-p', '{"spec":{"masterUsername":"second"}}']);
    await eventually(async () => ((await secretUser()) === 'second' ? true : undefined), 'the claim Secret carries the new user name');
    const resourceSecret = await kubectlOk(s, ['get', 'secret', '-n', 'conductor-system', '-o', 'jsonpath={.items[*].data.username}']);
    assert.ok(
      resourceSecret
        .split(/\s+/)
        .map((v) => Buffer.from(v, 'base64').toString())
        .includes('second'),
    );
  });
});
