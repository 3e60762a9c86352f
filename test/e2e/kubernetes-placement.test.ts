/**
 * Clusters as scheduling targets (the kubernetes provider, issue 12 item 4): a ResourceClass
 * that names no Provider is placed by the scheduler on one of the Ready kubernetes Providers —
 * by region and the capacity each advertises — and the KubernetesObject it creates names the
 * Provider chosen. The two target clusters are two more Conductor servers; the claims'
 * objects appear in the one chosen, and the claim's Scheduled condition names it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { startTargetCluster, targetProviderYaml, type TargetCluster, kubernetesProviderKindsEstablished } from '../support/target-cluster.js';

const NS = 'conductor-system';

describe('clusters as scheduling targets', () => {
  let east: TargetCluster;
  let west: TargetCluster;
  before(async () => {
    [east, west] = await Promise.all([startTargetCluster(), startTargetCluster()]);
  });
  after(async () => {
    await Promise.all([east?.stop(), west?.stop()]);
  });
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });

  type Cond = { type: string; status: string; reason: string; message: string };
  const claimCondition = async (name: string, type: string): Promise<Cond | undefined> => {
    const out = await kubectl(suite.server, ['get', 'postgresqlinstance', name, '-n', 'shop', '-o', 'json']);
    if (out.code !== 0) return undefined;
    return (JSON.parse(out.stdout) as { status?: { conditions?: Cond[] } }).status?.conditions?.find((c) => c.type === type);
  };
  const ready = (name: string) => eventually(async () => (await claimCondition(name, 'Ready'))?.status === 'True', `claim ${name} Ready`);
  const claim = (name: string, requirements: string) =>
    `apiVersion: storage.conductor.io/v1alpha1\nkind: PostgreSQLInstance\nmetadata: {name: ${name}, namespace: shop}\nspec: {resourceClass: clusters, databaseName: ${name}, requirements: ${requirements}}\n`;
  const configMapIn = async (target: TargetCluster, name: string) => (await kubectl(target.server, ['get', 'configmap', name, '-n', 'default'])).code === 0;
  const providerOfClaim = async (name: string) =>
    kubectlOk(suite.server, [
      'get',
      'kubernetesobjects',
      '-n',
      NS,
      '-l',
      `conductor.io/claim-name=${name}`,
      '-o',
      'jsonpath={.items[0].spec.providerRef.name}',
    ]);

  test('each claim lands on the cluster of its region, and says which; one asking more than any offers waits, saying so', async () => {
    const s = suite.server;
    await kubernetesProviderKindsEstablished(s);
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    const offers = { capacity: { storage: '500Gi' } };
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [
        targetProviderYaml(NS, 'east', east.credentials, { region: 'us-east-1', capabilities: offers }),
        targetProviderYaml(NS, 'west', west.credentials, { region: 'eu-west-1', capabilities: offers }),
        `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: clusters, namespace: ${NS}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template:
  apiVersion: kubernetes.conductor.io/v1alpha1
  kind: KubernetesObject
  spec:
    forProvider:
      manifest:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: db-$(claim.name), namespace: default}
        data: {host: db.example, database: $(claim.spec.databaseName), username: app, password: not-a-real-one}
      connectionDetails:
      - {fromField: .data.host, toKey: host}
      - {fromField: .data.database, toKey: database}
      - {fromField: .data.username, toKey: username}
      - {fromField: .data.password, toKey: password}
`,
      ].join('---\n'),
    });
    await eventually(
      async () =>
        (await kubectlOk(s, ['get', 'providers', '-n', NS, '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}'])) === 'True True',
      'both Providers Ready',
    );

    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [claim('orders-eu', '{region: eu-west-1, capacity: {storage: 10Gi}}'), claim('orders-us', '{region: us-east-1, capacity: {storage: 10Gi}}')].join(
        '---\n',
      ),
    });
    await ready('orders-eu');
    await ready('orders-us');
    assert.equal(await providerOfClaim('orders-eu'), 'west');
    assert.equal(await providerOfClaim('orders-us'), 'east');
    assert.ok(await configMapIn(west, 'db-orders-eu'), 'the eu claim made its object in the west cluster');
    assert.ok(!(await configMapIn(east, 'db-orders-eu')), 'and not in the east one');
    assert.ok(await configMapIn(east, 'db-orders-us'), 'the us claim made its object in the east cluster');
    assert.ok(!(await configMapIn(west, 'db-orders-us')), 'and not in the west one');
    const scheduled = await claimCondition('orders-eu', 'Scheduled');
    assert.match(scheduled?.message ?? '', /chose class conductor-system\/clusters on Provider west \(eu-west-1\)/);
    assert.match(scheduled?.message ?? '', /rejected: 1 region mismatch/);

    // More than either cluster offers: pending, with what is offered.
    await kubectlOk(s, ['apply', '-f', '-'], { input: claim('huge', '{capacity: {storage: 2Ti}}') });
    const pending = await eventually(async () => {
      const c = await claimCondition('huge', 'Scheduled');
      return c?.status === 'False' ? c : undefined;
    }, 'the huge claim is unschedulable');
    // The two bound objects are candidates too (taken); both clusters offer too little.
    assert.match(pending.message, /^0\/4 candidates: 2 already bound, 2 insufficient storage \(want 2Ti\)/);
    assert.match(pending.message, /the largest offered is 500Gi/);
  });

  test('a cluster that is not Ready is not chosen, and is counted; when it is Ready again it is', async () => {
    const s = suite.server;
    // The west Provider's credentials go wrong: it turns Ready=False.
    await kubectlOk(s, ['patch', 'secret', 'west', '-n', NS, '--type=merge', '-p', '{"stringData":{"token":"not-the-token"}}']);
    await eventually(
      async () => (await kubectlOk(s, ['get', 'provider', 'west', '-n', NS, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])) === 'False',
      'the west Provider not Ready',
    );
    await kubectlOk(s, ['apply', '-f', '-'], { input: claim('later-eu', '{region: eu-west-1}') });
    const waiting = await eventually(async () => {
      const c = await claimCondition('later-eu', 'Scheduled');
      return c?.status === 'False' && /Provider not Ready/.test(c.message) ? c : undefined;
    }, 'the eu claim waits for the west cluster');
    assert.match(waiting.message, /1 Provider not Ready, 1 region mismatch \(want eu-west-1\)/);
    assert.ok(!(await configMapIn(east, 'db-later-eu')), 'nothing made in the wrong region meanwhile');

    await kubectlOk(s, ['patch', 'secret', 'west', '-n', NS, '--type=merge', '-p', JSON.stringify({ stringData: { token: west.credentials.token } })]);
    await ready('later-eu');
    assert.equal(await providerOfClaim('later-eu'), 'west');
    assert.ok(await configMapIn(west, 'db-later-eu'));
  });
});
