/**
 * A target cluster that goes away and comes back (the kubernetes provider, issue 12 item 6).
 * The target is a second Conductor server, SIGKILLed and started again on the same port and
 * data directory. While it is down: a bound claim's KubernetesObject says Ready=False
 * TargetUnreachable naming the Provider, and the claim says so too; its connection Secret
 * stays; a claim made meanwhile waits without anything created; a claim deleted meanwhile
 * keeps its KubernetesObject (deletion waits). When the target is back everything converges:
 * the first object is the same object (same uid, not made again), the new claim's object is
 * made once, and the deleted claim's object is deleted.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, removeDir, serverForSuite, startServer, type ServerProcess } from '../support/server.js';
import { readTargetCredentials, targetProviderYaml, kubernetesProviderKindsEstablished } from '../support/target-cluster.js';

const NS = 'conductor-system';
const OWNER = 'kubernetes.conductor.io/owner-uid';

describe('an unreachable target cluster', () => {
  let target: ServerProcess;
  let dataDir = '';
  before(async () => {
    target = await startServer();
    dataDir = target.dataDir;
  });
  after(async () => {
    await target?.kill();
    if (dataDir) removeDir(dataDir);
  });
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });

  type Cond = { type: string; status: string; reason: string; message: string };
  const condition = async (args: string[], type: string): Promise<Cond | undefined> => {
    const out = await kubectl(suite.server, ['get', ...args, '-o', 'json']);
    if (out.code !== 0) return undefined;
    return (JSON.parse(out.stdout) as { status?: { conditions?: Cond[] } }).status?.conditions?.find((c) => c.type === type);
  };
  const resourceName = (claim: string) =>
    eventually(async () => {
      const out = await kubectlOk(suite.server, [
        'get',
        'kubernetesobjects',
        '-n',
        NS,
        '-l',
        `conductor.io/claim-name=${claim}`,
        '-o',
        'jsonpath={.items[0].metadata.name}',
      ]);
      return out || undefined;
    }, `the KubernetesObject of claim ${claim}`);
  const targetConfigMaps = async () => {
    const out = JSON.parse(await kubectlOk(target, ['get', 'configmaps', '-n', 'default', '-o', 'json'])) as {
      items: { metadata: { name: string; uid: string; annotations?: Record<string, string> } }[];
    };
    return out.items.filter((i) => i.metadata.annotations?.[OWNER]);
  };
  const claim = (name: string) =>
    `apiVersion: storage.conductor.io/v1alpha1\nkind: PostgreSQLInstance\nmetadata: {name: ${name}, namespace: shop}\nspec: {resourceClass: in-target, databaseName: ${name}}\n`;
  const boundAndReady = (name: string) =>
    eventually(async () => (await condition(['postgresqlinstance', name, '-n', 'shop'], 'Ready'))?.status === 'True', `claim ${name} Ready`);

  test('claims say the target is unreachable; nothing is deleted or made twice; all converges when it is back', async () => {
    const s = suite.server;
    const c = readTargetCredentials(target.kubeconfig);
    await kubernetesProviderKindsEstablished(s);
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [
        targetProviderYaml(NS, 'target', c),
        `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: in-target, namespace: ${NS}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: target}
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
        claim('kept'),
        claim('dropped'),
      ].join('---\n'),
    });
    await boundAndReady('kept');
    await boundAndReady('dropped');
    const before = new Map((await targetConfigMaps()).map((i) => [i.metadata.name, i.metadata.uid]));
    assert.deepEqual([...before.keys()].sort(), ['db-dropped', 'db-kept']);
    const kept = await resourceName('kept');
    const dropped = await resourceName('dropped');

    // The target goes away (SIGKILL: no goodbye).
    const port = new URL(target.url).port;
    await target.kill();

    const down = await eventually(async () => {
      const r = await condition(['kubernetesobject', kept, '-n', NS], 'Ready');
      return r?.reason === 'TargetUnreachable' ? r : undefined;
    }, 'the KubernetesObject says its target is unreachable');
    assert.equal(down.status, 'False');
    // A request in flight when the target died sees its connection reset; later ones are refused.
    assert.match(
      down.message,
      /^the target cluster of Provider conductor-system\/target cannot be reached \((ECONNREFUSED|ECONNRESET)\): nothing is created, changed or deleted there/,
    );
    const claimDown = await eventually(async () => {
      const r = await condition(['postgresqlinstance', 'kept', '-n', 'shop'], 'Ready');
      return r?.status === 'False' && /TargetUnreachable/.test(r.message) ? r : undefined;
    }, 'the claim says its target is unreachable');
    assert.match(claimDown.message, /Provider conductor-system\/target cannot be reached/);
    assert.equal((await kubectl(s, ['get', 'secret', 'kept', '-n', 'shop'])).code, 0, "the claim's connection Secret stays");

    // Meanwhile: a new claim waits, a deleted claim's resource waits.
    await kubectlOk(s, ['apply', '-f', '-'], { input: claim('later') });
    const later = await resourceName('later');
    await eventually(async () => (await condition(['kubernetesobject', later, '-n', NS], 'Ready'))?.reason === 'TargetUnreachable', 'the new claim waits');
    await kubectlOk(s, ['delete', 'postgresqlinstance', 'dropped', '-n', 'shop', '--wait=false']);
    await eventually(async () => {
      const out = await kubectl(s, ['get', 'kubernetesobject', dropped, '-n', NS, '-o', 'jsonpath={.metadata.deletionTimestamp}']);
      return out.code === 0 && out.stdout !== '';
    }, "the dropped claim's KubernetesObject being deleted");
    const deleting = await eventually(async () => {
      const r = await condition(['kubernetesobject', dropped, '-n', NS], 'Synced');
      return r?.status === 'False' ? r : undefined;
    }, 'its deletion waits for the target');
    assert.match(deleting.message, /ECONNREFUSED/);
    assert.equal((await kubectl(s, ['get', 'kubernetesobject', dropped, '-n', NS])).code, 0, 'the KubernetesObject is kept while its object cannot be deleted');

    // The target comes back on the same port with the same data.
    target = await startServer({ dataDir, args: ['--port', port] });
    await boundAndReady('kept');
    await boundAndReady('later');
    await eventually(
      async () => (await kubectl(s, ['get', 'kubernetesobject', dropped, '-n', NS])).code !== 0,
      "the dropped claim's KubernetesObject gone",
      120_000,
    );
    const after = new Map((await targetConfigMaps()).map((i) => [i.metadata.name, i.metadata.uid]));
    assert.deepEqual([...after.keys()].sort(), ['db-kept', 'db-later'], 'one object per claim, the dropped one deleted');
    assert.equal(after.get('db-kept'), before.get('db-kept'), 'the same object: not made again');
    assert.equal((await condition(['kubernetesobject', kept, '-n', NS], 'Ready'))?.status, 'True');
  });
});
