/**
 * The kubernetes provider with hostile tenants, against a real target (a second Conductor
 * API server). A class whose template names the target object after a claim's field lets a
 * tenant choose the name: a claim naming another claim's object, or an object Conductor did
 * not create, gets Ready=False TargetObjectOwnedElsewhere on its KubernetesObject and nothing
 * changes in the target (no apply, no owner mark, no details read, none of the other object's
 * values in any condition); deleting that claim deletes nothing there. A name that is no
 * DNS-1123 subdomain leaves the claim Pending, its Scheduled condition naming the field. An
 * admin adopts an existing object by naming it in conductor.io/external-name. Every
 * object Conductor creates carries the owner-uid annotation. A Provider whose kubeconfig
 * server has a token in its user info is refused without quoting it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { secretYaml, startTargetCluster, targetProviderYaml, type TargetCluster, kubernetesProviderKindsEstablished } from '../support/target-cluster.js';

const NS = 'conductor-system';
const OWNER = 'kubernetes.conductor.io/owner-uid';

describe('the kubernetes provider with hostile tenants', () => {
  let target: TargetCluster;
  before(async () => {
    target = await startTargetCluster();
  });
  after(async () => target?.stop());
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '300' } });

  const targetJson = async (args: string[]) => {
    const r = await kubectl(target.server, ['get', ...args, '-o', 'json']);
    return r.code === 0
      ? (JSON.parse(r.stdout) as { metadata: { resourceVersion: string; annotations?: Record<string, string> }; data?: Record<string, string> })
      : undefined;
  };
  const claimJson = async (ns: string, name: string) => JSON.parse(await kubectlOk(suite.server, ['get', 'postgresqlinstance', name, '-n', ns, '-o', 'json']));
  const resourceOf = async (ns: string, name: string) =>
    eventually(async () => {
      const out = await kubectlOk(suite.server, [
        'get',
        'kubernetesobjects',
        '-n',
        NS,
        '-l',
        `conductor.io/claim-namespace=${ns},conductor.io/claim-name=${name}`,
        '-o',
        'json',
      ]);
      const items = (
        JSON.parse(out) as {
          items: { metadata: { name: string; uid: string }; status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }[];
        }
      ).items;
      return items[0];
    }, `the KubernetesObject of ${ns}/${name}`);

  before(async () => {
    const s = suite.server;
    const c = target.credentials;
    await kubernetesProviderKindsEstablished(s);
    for (const ns of ['team-a', 'team-b', 'team-c', 'team-d']) await kubectlOk(s, ['create', 'namespace', ns]);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [
        targetProviderYaml(NS, 'target', c),
        `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: named-by-claim, namespace: ${NS}}
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
        metadata: {name: $(claim.spec.databaseName), namespace: default}
        data: {host: db.$(claim.namespace).svc, username: app, password: $(claim.namespace)-private-password}
      connectionDetails:
      - {fromField: .data.host, toKey: host}
      - {fromField: .metadata.name, toKey: database}
      - {fromField: .data.username, toKey: username}
      - {fromField: .data.password, toKey: password}
`,
      ].join('---\n'),
    });
  });

  const claim = (ns: string, name: string, databaseName: string) =>
    `apiVersion: storage.conductor.io/v1alpha1\nkind: PostgreSQLInstance\nmetadata: {name: ${name}, namespace: ${ns}}\nspec: {resourceClass: named-by-claim, databaseName: "${databaseName}"}\n`;

  test("a claim naming another claim's object, or one Conductor did not make, changes nothing and learns nothing", async () => {
    const s = suite.server;
    await kubectlOk(s, ['apply', '-f', '-'], { input: claim('team-a', 'db', 'orders') });
    await eventually(
      async () =>
        (await claimJson('team-a', 'db')).status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'),
      'claim team-a/db Ready',
    );
    const resourceA = await resourceOf('team-a', 'db');
    const mine = (await targetJson(['configmap', 'orders', '-n', 'default']))!;
    assert.equal(mine.metadata.annotations?.[OWNER], resourceA.metadata.uid, "the object is marked with its KubernetesObject's uid");

    // Someone else's object in the target, not made by Conductor.
    await kubectlOk(target.server, ['create', 'configmap', 'payroll', '-n', 'default', '--from-literal=password=payroll-private-password']);
    const payrollBefore = (await targetJson(['configmap', 'payroll', '-n', 'default']))!;

    await kubectlOk(s, ['apply', '-f', '-'], { input: [claim('team-b', 'db', 'orders'), claim('team-c', 'db', 'payroll')].join('---\n') });
    for (const [ns, object] of [
      ['team-b', 'ConfigMap default/orders'],
      ['team-c', 'ConfigMap default/payroll'],
    ] as const) {
      const ready = await eventually(async () => {
        const r = await resourceOf(ns, 'db');
        const c = r.status?.conditions?.find((x) => x.type === 'Ready');
        return c?.reason === 'TargetObjectOwnedElsewhere' ? c : undefined;
      }, `the KubernetesObject of ${ns}/db refused`);
      assert.equal(ready.status, 'False');
      assert.match(
        ready.message,
        new RegExp(`^${object} already exists in the target and (is kept by another KubernetesObject|has no kubernetes\\.conductor\\.io/owner-uid annotation)`),
      );
      const claimReady = await eventually(async () => {
        const c = (await claimJson(ns, 'db')).status?.conditions?.find((x: { type: string }) => x.type === 'Ready');
        return c && /TargetObjectOwnedElsewhere/.test(c.message) ? c : undefined;
      }, `claim ${ns}/db says why`);
      assert.equal(claimReady.status, 'False');
      assert.notEqual((await kubectl(s, ['get', 'secret', 'db', '-n', ns])).code, 0, `no connection Secret for ${ns}/db`);
    }

    // Nothing changed in the target, and no condition, event or status quotes the others' values.
    const mineAfter = (await targetJson(['configmap', 'orders', '-n', 'default']))!;
    assert.equal(mineAfter.metadata.resourceVersion, mine.metadata.resourceVersion, "the other claim's object is untouched");
    const payrollAfter = (await targetJson(['configmap', 'payroll', '-n', 'default']))!;
    assert.equal(payrollAfter.metadata.resourceVersion, payrollBefore.metadata.resourceVersion, 'the unmarked object is untouched');
    assert.equal(payrollAfter.metadata.annotations?.[OWNER], undefined);
    const seenByRefused: string[] = [];
    for (const ns of ['team-b', 'team-c']) {
      const r = await resourceOf(ns, 'db');
      seenByRefused.push(
        JSON.stringify(await claimJson(ns, 'db')),
        JSON.stringify(r.status ?? {}),
        await kubectlOk(s, ['get', 'events', '-n', ns, '-o', 'json']),
        await kubectlOk(s, ['get', 'events', '-n', NS, '--field-selector', `involvedObject.name=${r.metadata.name}`, '-o', 'json']),
      );
    }
    const everything = seenByRefused.join('\n');
    assert.doesNotMatch(everything, /team-a-private-password/);
    assert.doesNotMatch(everything, /payroll-private-password/);

    // Deleting the refused claims deletes nothing in the target; deleting the owner's does.
    await kubectlOk(s, ['delete', 'postgresqlinstance', 'db', '-n', 'team-b', '--timeout=60s'], { timeoutMs: 90_000 });
    await kubectlOk(s, ['delete', 'postgresqlinstance', 'db', '-n', 'team-c', '--timeout=60s'], { timeoutMs: 90_000 });
    await eventually(
      async () =>
        (await kubectl(s, ['get', 'kubernetesobjects', '-n', NS, '-l', 'conductor.io/claim-namespace in (team-b,team-c)', '-o', 'name'])).stdout.trim() === '',
      'the refused claims’ KubernetesObjects gone',
    );
    assert.equal((await targetJson(['configmap', 'orders', '-n', 'default']))?.metadata.annotations?.[OWNER], resourceA.metadata.uid);
    assert.ok(await targetJson(['configmap', 'payroll', '-n', 'default']), 'the unmarked object stays');
    await kubectlOk(s, ['delete', 'postgresqlinstance', 'db', '-n', 'team-a', '--timeout=60s'], { timeoutMs: 90_000 });
    await eventually(async () => (await targetJson(['configmap', 'orders', '-n', 'default'])) === undefined, "the owner's object deleted");
  });

  test('an admin adopts an existing object by naming it in conductor.io/external-name', async () => {
    const s = suite.server;
    await kubectlOk(target.server, ['create', 'configmap', 'legacy-settings', '-n', 'default', '--from-literal=kept=yes']);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: kubernetes.conductor.io/v1alpha1
kind: KubernetesObject
metadata:
  name: adopted
  namespace: ${NS}
  annotations: {conductor.io/external-name: v1/ConfigMap/default/legacy-settings}
spec:
  providerRef: {name: target}
  forProvider:
    manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: legacy-settings, namespace: default}, data: {owner: platform}}
`,
    });
    const uid = await kubectlOk(s, ['get', 'kubernetesobject', 'adopted', '-n', NS, '-o', 'jsonpath={.metadata.uid}']);
    const adopted = await eventually(async () => {
      const cm = await targetJson(['configmap', 'legacy-settings', '-n', 'default']);
      return cm?.metadata.annotations?.[OWNER] === uid ? cm : undefined;
    }, 'the object adopted: marked with the adopter’s uid');
    assert.deepEqual(adopted.data, { kept: 'yes', owner: 'platform' }, 'applied over, other fields kept');
    await eventually(
      async () =>
        (await kubectlOk(s, ['get', 'kubernetesobject', 'adopted', '-n', NS, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])) === 'True',
      'the adopter Ready',
    );
  });

  test('a claim value that is no DNS-1123 name leaves the claim Pending, naming the field', async () => {
    const s = suite.server;
    await kubectlOk(s, ['apply', '-f', '-'], { input: claim('team-d', 'db', 'Orders_../x') });
    const scheduled = await eventually(async () => {
      const c = (await claimJson('team-d', 'db')).status?.conditions?.find((x: { type: string }) => x.type === 'Scheduled');
      return c?.status === 'False' && /metadata\.name/.test(c.message) ? c : undefined;
    }, 'the claim says why it is not scheduled');
    assert.match(scheduled.message, /manifest\.metadata\.name would be "Orders_\.\.\/x" with the claim's values: want a DNS-1123 subdomain/);
    assert.equal((await claimJson('team-d', 'db')).status?.phase, 'Pending');
    assert.equal(
      (await kubectl(s, ['get', 'kubernetesobjects', '-n', NS, '-l', 'conductor.io/claim-namespace=team-d', '-o', 'name'])).stdout.trim(),
      '',
      'nothing provisioned',
    );
  });

  test('a Provider whose kubeconfig server carries a token in its user info is refused without quoting it', async () => {
    const s = suite.server;
    const token = 'userinfo-token-0123456789';
    const kc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 't',
          cluster: {
            server: target.credentials.endpoint.replace('https://', `https://${token}@`),
            'certificate-authority-data': Buffer.from(target.credentials.clusterCA).toString('base64'),
          },
        },
      ],
      users: [{ name: 'u', user: { token: target.credentials.token } }],
      contexts: [{ name: 'c', context: { cluster: 't', user: 'u' } }],
      'current-context': 'c',
    };
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [
        secretYaml(NS, 'userinfo', { kubeconfig: stringify(kc) }),
        `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: userinfo, namespace: ${NS}}\nspec: {type: kubernetes, credentialsSecretRef: {name: userinfo}}\n`,
      ].join('---\n'),
    });
    const ready = await eventually(async () => {
      const p = JSON.parse(await kubectlOk(s, ['get', 'provider', 'userinfo', '-n', NS, '-o', 'json']));
      const c = p.status?.conditions?.find((x: { type: string }) => x.type === 'Ready');
      return c?.status === 'False' ? { c, status: JSON.stringify(p.status) } : undefined;
    }, 'the Provider refused');
    assert.equal(ready.c.reason, 'InvalidCredentials');
    assert.match(ready.c.message, /cluster "t"'s server has user info \(user:password@host\)/);
    assert.doesNotMatch(ready.status, new RegExp(token));
  });
});
