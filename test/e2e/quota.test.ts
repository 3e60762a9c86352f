/**
 * ClaimQuota with the real kubectl against a real server process: the claim over the limit
 * is refused by `kubectl apply` with 403 naming the exceeded keys (claims, requests.storage,
 * <profile>.claims), a resize over the limit is refused too, and `status.used` shows the
 * namespace's usage, going down again when a claim is deleted; the scheduler's Quota filter
 * keeps a claim from being provisioned from a class that would take its namespace over
 * `cost.monthly`, until the quota allows it; a claim status written to name a free class does
 * not make a bound claim free (usage and admission price it by its resource's record).
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
    assert.match(
      third.stderr,
      /mysqlinstances\.storage\.conductor\.io "third" is forbidden: exceeded quota: team-quota, requested: claims=1, used: claims=2, limited: claims=2/,
    );
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
    assert.match(
      grow.stderr,
      /"db1" is forbidden: exceeded quota: sized-quota, requested: requests\.storage=10Gi, used: requests\.storage=100Gi, limited: requests\.storage=100Gi/,
    );
    await eventually(
      async () => JSON.stringify(await usedOf('sized', 'sized-quota')) === JSON.stringify({ 'performance.claims': '1', 'requests.storage': '100Gi' }),
      'status.used of sized-quota',
    );
  });

  test('cost.monthly: a class that would go over the quota is refused by the scheduler, with the reason on the claim', async () => {
    const s = suite.server;
    await kubectlOk(s, ['create', 'namespace', 'priced']);
    await kubectlOk(s, ['apply', '-f', '-'], { input: quota('priced', 'budget', '{cost.monthly: "100"}') });
    // No class serves "premium" yet: the claim is admitted (it costs nothing so far) and waits.
    const r = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: app, namespace: priced}
spec: {resourceClass: premium, version: ">= 15"}
`,
    });
    assert.equal(r.code, 0, r.stderr);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata:
  name: premium-postgres
  namespace: conductor-system
  annotations: {conductor.io/monthly-cost: "200"}
resourceClass: premium
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {version: "16.4"}
`,
    });
    const scheduled = () =>
      kubectlOk(s, ['get', 'postgresqlinstance', 'app', '-n', 'priced', '-o', 'jsonpath={.status.conditions[?(@.type=="Scheduled")].message}']);
    const refusal = await eventually(async () => {
      const m = await scheduled();
      return /quota exceeded/.test(m) ? m : undefined;
    }, 'the claim to say the quota refused the class');
    assert.match(refusal, /cost\.monthly would be 200, over 100 in ClaimQuota budget \(class costs 200 a month\)/);
    assert.equal((await kubectlOk(s, ['get', 'postgresqlinstance', 'app', '-n', 'priced', '-o', 'jsonpath={.status.phase}'])).trim(), 'Pending');
    // More budget: the claim goes ahead by itself.
    await kubectlOk(s, ['patch', 'claimquota', 'budget', '-n', 'priced', '--type', 'merge', '-p', '{"spec":{"hard":{"cost.monthly":"300"}}}']);
    await eventually(
      async () => (await kubectlOk(s, ['get', 'postgresqlinstance', 'app', '-n', 'priced', '-o', 'jsonpath={.status.phase}'])).trim() === 'Bound',
      'the claim Bound once the quota allows the class',
    );
  });

  test("cost.monthly never believes a claim's status: a classRef written to a free class leaves the claim at its resource's class price", async () => {
    const s = suite.server;
    // Continues the test above: priced/app is Bound to a resource its 200-a-month class made.
    await kubectlOk(s, ['patch', 'claimquota', 'budget', '-n', 'priced', '--type', 'merge', '-p', '{"spec":{"hard":{"cost.monthly":"300","claims":"10"}}}']);
    await eventually(
      async () => JSON.stringify(await usedOf('priced', 'budget')) === JSON.stringify({ claims: '1', 'cost.monthly': '200' }),
      'status.used claims=1, cost.monthly=200',
    );
    // What whoever may write the claim's status could do: name a class without a price.
    await kubectlOk(s, [
      'patch',
      'postgresqlinstance',
      'app',
      '-n',
      'priced',
      '--subresource=status',
      '--type',
      'merge',
      '-p',
      '{"status":{"classRef":{"namespace":"conductor-system","name":"no-price"}}}',
    ]);
    // A claim made after the write: once status.used counts it, the usage was recomputed after the write too.
    await kubectlOk(s, ['apply', '-f', '-'], { input: claim('priced', 'probe', '{resourceName: nothing-here}') });
    await eventually(
      async () => ((await usedOf('priced', 'budget')) as { claims?: string } | undefined)?.claims === '2',
      'status.used counting the probe claim',
    );
    assert.deepEqual(await usedOf('priced', 'budget'), { claims: '2', 'cost.monthly': '200' }, 'the bound claim still costs its class');
    // And admission counts it too: another claim of the 200 class does not fit in 300.
    const r = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: second, namespace: priced}
spec: {resourceClass: premium, version: ">= 15"}
`,
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /exceeded quota: budget, requested: cost\.monthly=200, used: cost\.monthly=200, limited: cost\.monthly=300/);
  });
});
