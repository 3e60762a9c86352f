/**
 * ClaimQuota with the real kubectl against a real server process: the claim over the limit
 * is refused by `kubectl apply` with 403 naming the exceeded keys (claims, requests.storage,
 * <profile>.claims), a resize over the limit is refused too, and `status.used` shows the
 * namespace's usage, going down again when a claim is deleted.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const claim = (ns: string, name: string, spec = '{}') => `apiVersion: storage.conductor.io/v1alpha1
kind: MySQLInstance
metadata: {name: ${name}, namespace: ${ns}}
spec: ${spec}
`;

const quota = (ns: string, name: string, hard: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ClaimQuota
metadata: {name: ${name}, namespace: ${ns}}
spec:
  hard: ${hard}
`;


describe('ClaimQuota with kubectl', () => {
  const suite = serverForSuite({
    setup: async ({ server }) => {
      await kubectlOk(server, ['create', 'namespace', 'team']);
      await kubectlOk(server, ['create', 'namespace', 'sized']);
    },
  });
  const apply = (yaml: string) => kubectl(suite.server, ['apply', '-f', '-'], { input: yaml });
  const usedOf = async (ns: string, name: string): Promise<unknown> => {
    const out = await kubectlOk(suite.server, ['get', 'claimquota', name, '-n', ns, '-o', 'jsonpath={.status.used}']);
    return out.trim() === '' ? undefined : JSON.parse(out);
  };

  test('a quota of 2 claims: the third kubectl apply is refused naming the key', async () => {
    await kubectlOk(suite.server, ['apply', '-f', '-'], { input: quota('team', 'team-quota', '{claims: 2}') });
    for (const name of ['first', 'second']) {
      const r = await apply(claim('team', name));
      assert.equal(r.code, 0, r.stderr);
    }
    const third = await apply(claim('team', 'third'));
    assert.notEqual(third.code, 0);
    assert.match(third.stderr, /Error from server \(Forbidden\)/);
    assert.match(third.stderr, /mysqlinstances\.storage\.conductor\.io "third" is forbidden: exceeded quota: team-quota, requested: claims=1, used: claims=2, limited: claims=2/);
    // Re-applying an existing claim unchanged is not a new request.
    const again = await apply(claim('team', 'first'));
    assert.equal(again.code, 0, again.stderr);
  });

  test('status.used shows the usage and follows deletions', async () => {
    await eventually(async () => JSON.stringify(await usedOf('team', 'team-quota')) === JSON.stringify({ claims: '2' }), 'status.used claims=2');
    const hard = await kubectlOk(suite.server, ['get', 'cquota', 'team-quota', '-n', 'team', '-o', 'jsonpath={.status.hard}']);
    assert.deepEqual(JSON.parse(hard), { claims: 2 });
    await kubectlOk(suite.server, ['delete', 'mysqlinstance', 'second', '-n', 'team', '--wait=true', '--timeout=30s']);
    await eventually(async () => JSON.stringify(await usedOf('team', 'team-quota')) === JSON.stringify({ claims: '1' }), 'status.used claims=1 after a delete');
    const r = await apply(claim('team', 'third'));
    assert.equal(r.code, 0, r.stderr);
  });

  test('requests.storage and <profile>.claims: every exceeded key is named; a resize over the limit is refused', async () => {
    await kubectlOk(suite.server, ['apply', '-f', '-'], { input: quota('sized', 'sized-quota', '{requests.storage: 100Gi, performance.claims: 1}') });
    const first = await apply(claim('sized', 'db1', '{resourceClass: performance, requirements: {capacity: {storage: 60Gi}}}'));
    assert.equal(first.code, 0, first.stderr);
    const second = await apply(claim('sized', 'db2', '{resourceClass: performance, requirements: {capacity: {storage: 50Gi}}}'));
    assert.notEqual(second.code, 0);
    assert.match(
      second.stderr,
      /exceeded quota: sized-quota, requested: performance\.claims=1,requests\.storage=50Gi, used: performance\.claims=1,requests\.storage=60Gi, limited: performance\.claims=1,requests\.storage=100Gi/,
    );
    const small = await apply(claim('sized', 'db3', '{requirements: {capacity: {storage: 40Gi}}}'));
    assert.equal(small.code, 0, small.stderr);
    const grow = await apply(claim('sized', 'db1', '{resourceClass: performance, requirements: {capacity: {storage: 70Gi}}}'));
    assert.notEqual(grow.code, 0);
    assert.match(grow.stderr, /"db1" is forbidden: exceeded quota: sized-quota, requested: requests\.storage=10Gi, used: requests\.storage=100Gi, limited: requests\.storage=100Gi/);
    await eventually(
      async () => JSON.stringify(await usedOf('sized', 'sized-quota')) === JSON.stringify({ 'performance.claims': '1', 'requests.storage': '100Gi' }),
      'status.used of sized-quota',
    );
  });
});
