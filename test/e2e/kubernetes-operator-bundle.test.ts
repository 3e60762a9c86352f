/**
 * Automatic operator installation (the kubernetes provider, issue 12 item 5): a
 * KubernetesObject whose manifest is of a kind the target does not serve, carrying an
 * operator bundle (a CRD, a Namespace, a ServiceAccount, a ClusterRole), installs the bundle in
 * the target on first use and creates the object once the CRD is Established. Deleting the
 * object leaves the operator installed. A bundle with a malformed manifest says which, and
 * installs nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { startTargetCluster, targetProviderYaml, type TargetCluster, kubernetesProviderKindsEstablished } from '../support/target-cluster.js';

const NS = 'conductor-system';

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.toys.example.com' },
  spec: {
    group: 'toys.example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      },
    ],
  },
};

const kubernetesObject = (name: string, bundle: unknown[]) =>
  stringify({
    apiVersion: 'kubernetes.conductor.io/v1alpha1',
    kind: 'KubernetesObject',
    metadata: { name, namespace: NS },
    spec: {
      providerRef: { name: 'target' },
      rebindPolicy: 'Delete',
      forProvider: {
        manifest: { apiVersion: 'toys.example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size: 3 } },
        readiness: { type: 'JSONPath', jsonPath: '.spec.size', value: '3' },
        operatorBundle: { manifests: bundle },
      },
    },
  });

describe('operator bundles', () => {
  let target: TargetCluster;
  before(async () => {
    target = await startTargetCluster();
  });
  after(async () => target?.stop());
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });
  const readyCondition = (name: string, field: 'status' | 'message') =>
    kubectlOk(suite.server, [
      'get',
      'kubernetesobject',
      name,
      '-n',
      NS,
      '-o',
      `jsonpath={.status.conditions[?(@.type=="${field === 'status' ? 'Ready' : 'Synced'}")].${field}}`,
    ]);
  const inTarget = async (args: string[]) => (await kubectl(target.server, ['get', ...args])).code === 0;

  test('the operator is installed in the target on first use, and the object made once its CRD is Established', async () => {
    const s = suite.server;
    await kubernetesProviderKindsEstablished(s);
    await kubectlOk(s, ['apply', '-f', '-'], { input: targetProviderYaml(NS, 'target', target.credentials) });
    assert.equal(await inTarget(['crd', 'widgets.toys.example.com']), false, 'the target has no Widget CRD at first');

    const bundle = [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'widget-operator', namespace: 'widget-system' } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'widget-operator' },
        rules: [{ apiGroups: ['toys.example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch', 'update'] }],
      },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'widget-system' } },
      widgetCrd,
    ];
    await kubectlOk(s, ['apply', '-f', '-'], { input: kubernetesObject('first', bundle) });
    await eventually(async () => (await readyCondition('first', 'status')) === 'True', 'the KubernetesObject Ready');

    const crd = JSON.parse(await kubectlOk(target.server, ['get', 'crd', 'widgets.toys.example.com', '-o', 'json'])) as {
      status: { conditions: { type: string; status: string }[] };
    };
    assert.ok(
      crd.status.conditions.some((c) => c.type === 'Established' && c.status === 'True'),
      'the CRD is Established in the target',
    );
    assert.ok(await inTarget(['namespace', 'widget-system']));
    assert.ok(await inTarget(['serviceaccount', 'widget-operator', '-n', 'widget-system']));
    assert.ok(await inTarget(['clusterrole', 'widget-operator']));
    assert.equal(await kubectlOk(target.server, ['get', 'widget', 'first', '-n', 'default', '-o', 'jsonpath={.spec.size}']), '3');

    // A second object of the kind: the operator is there, nothing more is needed.
    await kubectlOk(s, ['apply', '-f', '-'], { input: kubernetesObject('second', bundle) });
    await eventually(async () => (await readyCondition('second', 'status')) === 'True', 'the second KubernetesObject Ready');

    // Deleting the objects deletes the Widgets; the operator stays installed.
    await kubectlOk(s, ['delete', 'kubernetesobject', 'first', 'second', '-n', NS, '--timeout=60s']);
    assert.equal(await inTarget(['widget', 'first', '-n', 'default']), false);
    assert.ok(await inTarget(['crd', 'widgets.toys.example.com']), 'the operator bundle is left installed');
  });

  test('a bundle with a malformed manifest says which, and installs nothing', async () => {
    const s = suite.server;
    const gadgetCrd = {
      ...widgetCrd,
      metadata: { name: 'gadgets.toys.example.com' },
      spec: { ...widgetCrd.spec, names: { kind: 'Gadget', plural: 'gadgets' } },
    };
    const gadget = (bad: unknown) => kubernetesObject('broken', [gadgetCrd, bad]).replace(/kind: Widget/, 'kind: Gadget');
    // What the schema can tell (an embedded object without a kind) is refused at admission.
    const refused = await kubectl(s, ['apply', '-f', '-'], { input: gadget({ apiVersion: 'v1', metadata: { name: 'no-kind' } }) });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec\.forProvider\.operatorBundle\.manifests\[1\]\.kind: Required value/);
    // What only the provider can tell (a name that cannot name an object) is said in a condition.
    await kubectlOk(s, ['apply', '-f', '-'], { input: gadget({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a/b', namespace: 'default' } }) });
    const message = await eventually(async () => {
      const m = await readyCondition('broken', 'message');
      return /operatorBundle/.test(m) ? m : undefined;
    }, 'the Synced condition names the bundle manifest at fault');
    assert.match(message, /spec\.forProvider\.operatorBundle\.manifests\[1\]\.metadata\.name "a\/b" cannot name an object/);
    assert.equal(await inTarget(['crd', 'gadgets.toys.example.com']), false, 'nothing of the bundle was applied');
    await kubectlOk(s, ['delete', 'kubernetesobject', 'broken', '-n', NS, '--timeout=60s']);
  });
});
