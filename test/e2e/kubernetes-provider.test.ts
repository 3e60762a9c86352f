/**
 * The kubernetes provider against a real target: a second Conductor API server process (its
 * own CA, token and client certificate). A Provider of type kubernetes is Ready with the
 * target's version (credentials as fields, or as a kubeconfig with a client certificate) —
 * status.atProvider giving the version and what the credentials may do — and
 * Ready=False with the reason for a wrong CA or a token the target refuses. A
 * KubernetesObject whose manifest is a ConfigMap is created in the target by server-side
 * apply (field manager conductor), becomes Ready and publishes connection details from a
 * field of the object and a key of a Secret in the target; a field the manifest sets that is
 * edited in the target is corrected on a later poll, while a field it does not set is left
 * alone; deleting the KubernetesObject deletes the ConfigMap in the target. PostgreSQLInstance
 * and Bucket claims served through classes whose template is a KubernetesObject get the claim
 * kind's keys (a Bucket waits for JSONPath readiness written by a stand-in "operator");
 * ObserveOnly imports without writing; a cluster-scoped object works; bad manifests are
 * refused at admission or said in a condition, and never hold up deletion.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nameFor } from '../../src/providers/kubernetes/claims.js';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { readTargetCredentials, secretYaml, startTargetCluster, type TargetCluster, kubernetesProviderKindsEstablished } from '../support/target-cluster.js';

const NS = 'conductor-system';
/** The default names of the claims' objects in the target: <namespace>-<name>-<hash>. */
const ORDERS = nameFor({ apiVersion: 'v1', kind: 'PostgreSQLInstance', metadata: { namespace: 'shop', name: 'orders' } });
const MEDIA = nameFor({ apiVersion: 'v1', kind: 'Bucket', metadata: { namespace: 'shop', name: 'media' } });
const ns = ['-n', NS];

describe('the kubernetes provider', () => {
  let target: TargetCluster;
  before(async () => {
    target = await startTargetCluster();
  });
  after(async () => target?.stop());
  // A short poll so drift made in the target is seen soon.
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '300' } });

  const condition = async (kind: string, name: string, field: 'status' | 'reason' | 'message') =>
    kubectlOk(suite.server, ['get', kind, name, ...ns, '-o', `jsonpath={.status.conditions[?(@.type=="Ready")].${field}}`]);
  const targetGet = (args: string[]) => kubectl(target.server, ['get', ...args, '-o', 'json', '--show-managed-fields']);

  test('Providers of type kubernetes: Ready with the version, or Ready=False with the reason', async () => {
    const s = suite.server;
    const c = target.credentials;
    const wrongCA = readTargetCredentials(s.kubeconfig).clusterCA;
    await kubernetesProviderKindsEstablished(s);
    const secrets = [
      secretYaml(NS, 'target-fields', { endpoint: c.endpoint, clusterCA: c.clusterCA, token: c.token }),
      secretYaml(NS, 'target-kubeconfig', { kubeconfig: target.certKubeconfig() }),
      secretYaml(NS, 'target-wrong-ca', { endpoint: c.endpoint, clusterCA: wrongCA, token: c.token }),
      secretYaml(NS, 'target-bad-token', { endpoint: c.endpoint, clusterCA: c.clusterCA, token: 'not-a-token-of-the-target' }),
      // Port 1 on the loopback: nothing listens there.
      secretYaml(NS, 'target-nowhere', { endpoint: 'https://127.0.0.1:1', clusterCA: c.clusterCA, token: c.token }),
    ];
    const provider = (name: string, secret: string) =>
      `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: ${name}, namespace: ${NS}}\nspec: {type: kubernetes, credentialsSecretRef: {name: ${secret}}}\n`;
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [
        ...secrets,
        provider('target', 'target-fields'),
        provider('target-kc', 'target-kubeconfig'),
        provider('wrong-ca', 'target-wrong-ca'),
        provider('bad-token', 'target-bad-token'),
        provider('nowhere', 'target-nowhere'),
      ].join('---\n'),
    });

    for (const name of ['target', 'target-kc']) {
      await eventually(async () => (await condition('provider', name, 'status')) === 'True', `Provider ${name} Ready`);
      assert.equal(await condition('provider', name, 'reason'), 'CheckPassed');
    }
    // The endpoint is a value of the fields Secret, so status shows it redacted; inside a kubeconfig it shows.
    assert.match(await condition('provider', 'target', 'message'), /^\[redacted\] answers as Kubernetes v\d+\.\d+\.\d+\S*, and the credentials authenticate$/);
    assert.equal(
      await condition('provider', 'target-kc', 'message'),
      `${c.endpoint} answers as Kubernetes ${target.version}, and the credentials authenticate`,
    );
    // status.atProvider: the target's version and what the credentials may do in the default namespace.
    const atProvider = JSON.parse(await kubectlOk(s, ['get', 'provider', 'target', ...ns, '-o', 'jsonpath={.status.atProvider}']));
    assert.equal(atProvider.serverVersion.gitVersion, target.version);
    assert.equal(atProvider.permissions.namespace, 'default');
    assert.deepEqual(atProvider.permissions.verbs['*'], ['*'], `the admin token may do everything: ${JSON.stringify(atProvider.permissions)}`);
    await eventually(async () => (await condition('provider', 'wrong-ca', 'status')) === 'False', 'Provider wrong-ca not Ready');
    assert.equal(await condition('provider', 'wrong-ca', 'reason'), 'UntrustedServerCertificate');
    assert.match(await condition('provider', 'wrong-ca', 'message'), /cannot be verified .*verification is never skipped/);
    await eventually(async () => (await condition('provider', 'bad-token', 'status')) === 'False', 'Provider bad-token not Ready');
    assert.equal(await condition('provider', 'bad-token', 'reason'), 'Unauthorized');
    assert.equal(await kubectlOk(s, ['get', 'provider', 'bad-token', ...ns, '-o', 'jsonpath={.status.atProvider}']), '', 'nothing found, nothing shown');
    await eventually(async () => (await condition('provider', 'nowhere', 'status')) === 'False', 'Provider nowhere not Ready');
    assert.equal(await condition('provider', 'nowhere', 'reason'), 'Unreachable');
    assert.match(await condition('provider', 'nowhere', 'message'), /ECONNREFUSED/);
  });

  test('a KubernetesObject keeps a ConfigMap in the target: SSA, Ready, details, drift corrected, delete', async () => {
    const s = suite.server;
    // What an operator would write beside the object: a Secret of the same name in the target.
    await kubectlOk(target.server, ['apply', '-f', '-'], { input: secretYaml('default', 'settings', { password: 'from-the-target' }) });
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: kubernetes.conductor.io/v1alpha1
kind: KubernetesObject
metadata: {name: settings, namespace: ${NS}}
spec:
  providerRef: {name: target}
  rebindPolicy: Delete
  writeConnectionSecretToRef: {name: settings-conn}
  forProvider:
    manifest:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: settings, namespace: default, labels: {app: shop}}
      data: {color: red}
    connectionDetails:
    - {fromField: .data.color, toKey: color}
    - {fromSecretKey: password, toKey: password}
`,
    });
    await eventually(async () => (await condition('kubernetesobject', 'settings', 'status')) === 'True', 'KubernetesObject settings Ready');

    const live = JSON.parse((await targetGet(['configmap', 'settings', '-n', 'default'])).stdout);
    assert.deepEqual(live.data, { color: 'red' });
    assert.equal(live.metadata.labels.app, 'shop');
    const managers = (live.metadata.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager}/${m.operation}`);
    const uid = (await kubectlOk(s, ['get', 'kubernetesobject', 'settings', ...ns, '-o', 'jsonpath={.metadata.uid}'])).trim();
    assert.deepEqual(managers, [`conductor-${uid}/Apply`], `the target's managedFields name the KubernetesObject's own apply only: ${managers.join(', ')}`);

    const secret = JSON.parse(await kubectlOk(s, ['get', 'secret', 'settings-conn', ...ns, '-o', 'json']));
    const decoded = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.deepEqual(decoded, { color: 'red', password: 'from-the-target' });
    assert.match(
      await kubectlOk(s, ['get', 'kubernetesobject', 'settings', ...ns, '-o', 'jsonpath={.metadata.annotations.conductor\\.io/external-name}']),
      /^v1\/ConfigMap\/default\/settings$/,
    );

    // Someone edits the target: a field the manifest sets (corrected) and one it does not (left alone).
    await kubectlOk(target.server, ['patch', 'configmap', 'settings', '-n', 'default', '--type=merge', '-p', '{"data":{"color":"blue","size":"L"}}']);
    await eventually(async () => {
      const cm = JSON.parse((await targetGet(['configmap', 'settings', '-n', 'default'])).stdout);
      return cm.data.color === 'red' ? cm : undefined;
    }, 'the edited color corrected in the target');
    const afterCorrection = JSON.parse((await targetGet(['configmap', 'settings', '-n', 'default'])).stdout);
    assert.equal(afterCorrection.data.size, 'L', 'a field the manifest does not set is left alone');
    // …and is no drift: the object is Ready again with the other manager's field in place.
    await eventually(async () => (await condition('kubernetesobject', 'settings', 'status')) === 'True', 'Ready again after the correction');
    assert.equal(JSON.parse((await targetGet(['configmap', 'settings', '-n', 'default'])).stdout).data.size, 'L');
    const events = await kubectlOk(s, ['get', 'events', ...ns, '--field-selector', 'involvedObject.name=settings', '-o', 'jsonpath={.items[*].message}']);
    assert.match(events, /\.data\.color is "blue", manifest sets "red"/);

    // Deleted in the target: made again.
    await kubectlOk(target.server, ['delete', 'configmap', 'settings', '-n', 'default']);
    await eventually(async () => (await targetGet(['configmap', 'settings', '-n', 'default'])).code === 0, 'the ConfigMap made again in the target');

    // Deleting the KubernetesObject deletes the ConfigMap in the target.
    await kubectlOk(s, ['delete', 'kubernetesobject', 'settings', ...ns, '--wait=true', '--timeout=60s']);
    const gone = await targetGet(['configmap', 'settings', '-n', 'default']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /NotFound|not found/);
  });

  test("a PostgreSQLInstance claim through a class whose template is a KubernetesObject: the claim kind's keys, and deletion", async () => {
    const s = suite.server;
    // What an operator would write beside its custom resource: a Secret named like it.
    await kubectlOk(target.server, ['apply', '-f', '-'], { input: secretYaml('default', ORDERS, { password: 'p@ss from the operator' }) });
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: operator-pg, namespace: ${NS}}
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
        metadata: {namespace: default}
        data:
          host: pg-$(claim.name).db.svc
          database: $(claim.spec.databaseName)
          username: $(claim.spec.masterUsername)
          version: $(claim.spec.version)
      connectionDetails:
      - {fromField: .data.host, toKey: host}
      - {fromField: .data.database, toKey: database}
      - {fromField: .data.username, toKey: username}
      - {fromSecretKey: password, toKey: password}
---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: shop}
spec: {resourceClass: operator-pg, databaseName: orders, masterUsername: app}
`,
    });
    await eventually(async () => {
      const c = JSON.parse(await kubectlOk(s, ['get', 'postgresqlinstance', 'orders', '-n', 'shop', '-o', 'json']));
      return c.status?.phase === 'Bound' ? c : undefined;
    }, 'the claim Bound');
    const cm = JSON.parse((await targetGet(['configmap', ORDERS, '-n', 'default'])).stdout);
    assert.deepEqual(cm.data, { host: 'pg-orders.db.svc', database: 'orders', username: 'app' }, 'placeholders filled; the unset version left out');
    const secret = await eventually(async () => {
      const out = await kubectl(s, ['get', 'secret', 'orders', '-n', 'shop', '-o', 'json']);
      return out.code === 0 ? JSON.parse(out.stdout) : undefined;
    }, "the claim's connection Secret");
    const decoded = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.deepEqual(decoded, {
      host: 'pg-orders.db.svc',
      port: '5432',
      username: 'app',
      password: 'p@ss from the operator',
      database: 'orders',
      uri: 'postgresql://app:p%40ss%20from%20the%20operator@pg-orders.db.svc:5432/orders',
    });

    await kubectlOk(s, ['delete', 'postgresqlinstance', 'orders', '-n', 'shop', '--timeout=60s'], { timeoutMs: 90_000 });
    await eventually(async () => (await targetGet(['configmap', ORDERS, '-n', 'default'])).code !== 0, 'the ConfigMap deleted in the target');
  });

  test('ObserveOnly imports an existing object: details published, drift not corrected, deletion leaves it', async () => {
    const s = suite.server;
    await kubectlOk(target.server, ['create', 'configmap', 'legacy', '-n', 'default', '--from-literal=url=https://legacy.example']);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: kubernetes.conductor.io/v1alpha1
kind: KubernetesObject
metadata: {name: legacy, namespace: ${NS}}
spec:
  providerRef: {name: target}
  managementPolicy: ObserveOnly
  rebindPolicy: Delete
  forProvider:
    manifest:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: legacy, namespace: default}
      data: {url: https://legacy.example}
    connectionDetails:
    - {fromField: .data.url, toKey: url}
`,
    });
    await eventually(async () => (await condition('kubernetesobject', 'legacy', 'status')) === 'True', 'KubernetesObject legacy Ready');
    const secret = JSON.parse(await kubectlOk(s, ['get', 'secret', 'legacy-connection', ...ns, '-o', 'json']));
    assert.equal(Buffer.from(secret.data.url, 'base64').toString(), 'https://legacy.example');

    await kubectlOk(target.server, ['patch', 'configmap', 'legacy', '-n', 'default', '--type=merge', '-p', '{"data":{"url":"https://moved.example"}}']);
    await eventually(async () => (await condition('kubernetesobject', 'legacy', 'status')) === 'False', 'the drift reported');
    assert.match(
      await condition('kubernetesobject', 'legacy', 'message'),
      /\.data\.url is "https:\/\/moved\.example".*ObserveOnly leaves the external resource as it is/,
    );
    const cm = JSON.parse((await targetGet(['configmap', 'legacy', '-n', 'default'])).stdout);
    assert.equal(cm.data.url, 'https://moved.example', 'not corrected');
    const managers = (cm.metadata.managedFields as { manager: string }[]).map((m) => m.manager);
    assert.ok(!managers.some((m) => m.startsWith('conductor')), `Conductor never wrote the imported object: ${managers.join(', ')}`);

    await kubectlOk(s, ['delete', 'kubernetesobject', 'legacy', ...ns, '--wait=true', '--timeout=60s']);
    assert.equal((await targetGet(['configmap', 'legacy', '-n', 'default'])).code, 0, 'the imported object stays in the target');
  });

  test('a cluster-scoped object; bad manifests refused at admission or said in a condition', async () => {
    const s = suite.server;
    const kobj = (name: string, forProvider: string) =>
      `apiVersion: kubernetes.conductor.io/v1alpha1\nkind: KubernetesObject\nmetadata: {name: ${name}, namespace: ${NS}}\nspec:\n  providerRef: {name: target}\n  rebindPolicy: Delete\n  forProvider: ${forProvider}\n`;
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [
        kobj('team-ns', '{manifest: {apiVersion: v1, kind: Namespace, metadata: {name: team-x, labels: {team: x}}}}'),
        kobj('misplaced', '{manifest: {apiVersion: v1, kind: Namespace, metadata: {name: team-y, namespace: default}}}'),
        kobj(
          'bad-path',
          "{manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: p, namespace: default}}, readiness: {type: JSONPath, jsonPath: 'status.phase', value: x}}",
        ),
        kobj('no-crd', '{manifest: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: default}}}'),
      ].join('---\n'),
    });
    await eventually(async () => (await condition('kubernetesobject', 'team-ns', 'status')) === 'True', 'the Namespace object Ready');
    const nsObj = JSON.parse((await targetGet(['namespace', 'team-x'])).stdout);
    assert.equal(nsObj.metadata.labels.team, 'x');

    const synced = async (name: string) =>
      kubectlOk(s, [
        'get',
        'kubernetesobject',
        name,
        ...ns,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Synced")].reason}: {.status.conditions[?(@.type=="Synced")].message}',
      ]);
    await eventually(
      async () => /cluster-scoped in the target, but the manifest names namespace "default": remove metadata\.namespace/.test(await synced('misplaced')),
      'misplaced says why',
    );
    assert.match(await synced('misplaced'), /^CannotCreate: /);
    await eventually(async () => /JSONPath "status\.phase" does not parse at character 1/.test(await synced('bad-path')), 'bad-path says why');
    await eventually(
      async () => /serves no example\.com\/v1: install the CRD \(or operator\) that defines Widget/.test(await synced('no-crd')),
      'no-crd says why',
    );

    const refused = await kubectl(s, ['apply', '-f', '-'], { input: kobj('no-kind', '{manifest: {apiVersion: v1, metadata: {name: x}}}') });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec\.forProvider\.manifest\.kind: Required value/);

    await kubectlOk(s, ['delete', 'kubernetesobject', 'team-ns', 'misplaced', 'bad-path', 'no-crd', ...ns, '--wait=true', '--timeout=60s']);
    await eventually(async () => (await targetGet(['namespace', 'team-x'])).code !== 0, 'the Namespace deleted in the target');
  });

  test('a Bucket claim waits for the operator: JSONPath readiness, then the claim kind keys from fields and a Secret', async () => {
    const s = suite.server;
    await kubectl(s, ['create', 'namespace', 'shop']);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: operator-bucket, namespace: ${NS}}
supportedResources: [Bucket.v1alpha1.storage.conductor.io]
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
        metadata: {namespace: default}
        data: {bucket: $(claim.namespace)-$(claim.name), endpoint: https://s3.target.example}
      readiness: {type: JSONPath, jsonPath: .data.phase, value: Bound}
      connectionDetails:
      - {fromField: .data.endpoint, toKey: endpoint}
      - {fromField: .data.bucket, toKey: bucket}
      - {fromSecretKey: accessKeyId, toKey: accessKeyId}
      - {fromSecretKey: secretAccessKey, toKey: secretAccessKey}
---
apiVersion: storage.conductor.io/v1alpha1
kind: Bucket
metadata: {name: media, namespace: shop}
spec: {resourceClass: operator-bucket}
`,
    });
    // The object is made in the target, but is not ready until the "operator" says so.
    await eventually(async () => (await targetGet(['configmap', MEDIA, '-n', 'default'])).code === 0, 'the ConfigMap made in the target');
    const resourceName = await eventually(async () => {
      const out = await kubectlOk(s, ['get', 'kubernetesobjects', ...ns, '-l', 'conductor.io/claim-name=media', '-o', 'jsonpath={.items[0].metadata.name}']);
      return out || undefined;
    }, 'the provisioned KubernetesObject');
    const synced = async () =>
      kubectlOk(s, [
        'get',
        'kubernetesobject',
        resourceName,
        ...ns,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Ready")].reason}: {.status.conditions[?(@.type=="Ready")].message}',
      ]);
    await eventually(
      async () =>
        new RegExp(`^TargetNotReady: ConfigMap default/${MEDIA} in the target is not ready: \\.data\\.phase is unset, want "Bound"`).test(await synced()),
      'not ready, saying why',
    );
    assert.notEqual((await kubectl(s, ['get', 'secret', 'media', '-n', 'shop'])).code, 0, 'no connection Secret before the object is ready');

    // The operator: its Secret, and the phase on the object (a field the manifest does not set).
    await kubectlOk(target.server, ['apply', '-f', '-'], {
      input: secretYaml('default', MEDIA, { accessKeyId: 'AKIA-TARGET', secretAccessKey: 'from-the-operator' }),
    });
    await kubectlOk(target.server, ['patch', 'configmap', MEDIA, '-n', 'default', '--type=merge', '-p', '{"data":{"phase":"Bound"}}']);
    const secret = await eventually(async () => {
      const out = await kubectl(s, ['get', 'secret', 'media', '-n', 'shop', '-o', 'json']);
      return out.code === 0 ? JSON.parse(out.stdout) : undefined;
    }, "the claim's connection Secret");
    const decoded = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.deepEqual(decoded, {
      endpoint: 'https://s3.target.example',
      bucket: 'shop-media',
      region: 'us-east-1',
      accessKeyId: 'AKIA-TARGET',
      secretAccessKey: 'from-the-operator',
    });
    const cm = JSON.parse((await targetGet(['configmap', MEDIA, '-n', 'default'])).stdout);
    assert.equal(cm.data.phase, 'Bound', "the operator's field stays");

    await kubectlOk(s, ['delete', 'bucket', 'media', '-n', 'shop', '--timeout=60s'], { timeoutMs: 90_000 });
    await eventually(async () => (await targetGet(['configmap', MEDIA, '-n', 'default'])).code !== 0, 'the ConfigMap deleted in the target');
  });
});
