/**
 * The kubernetes provider watches its targets, against a real target (a second Conductor API
 * server process). The control plane polls only once an hour (CONDUCTOR_POLL_INTERVAL_MS), so
 * what is seen in time is seen through the watch: a KubernetesObject waiting for its object to
 * be ready in the target is Ready once the object is made so there, with
 * `status.atProvider.observedBy: watch`; a field the manifest sets, edited in the target, is
 * corrected; the object deleted in the target is made again. With credentials that may get and
 * apply ConfigMaps but not list or watch them (a ServiceAccount of the target with a Role
 * without those verbs, its token from `kubectl create token`), the watch is refused (403):
 * the object is still kept, observed by the poll (`observedBy: poll`, a 1s poll interval on
 * that resource), and drift is corrected by the poll.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { startTargetCluster, targetProviderYaml, type TargetCluster, kubernetesProviderKindsEstablished } from '../support/target-cluster.js';

const NS = 'conductor-system';
const ns = ['-n', NS];

const kubernetesObject = (name: string, provider: string, annotations: Record<string, string> = {}) => `apiVersion: kubernetes.conductor.io/v1alpha1
kind: KubernetesObject
metadata:
  name: ${name}
  namespace: ${NS}
  annotations: ${JSON.stringify(annotations)}
spec:
  providerRef: {name: ${provider}}
  rebindPolicy: Delete
  forProvider:
    manifest:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: ${name}, namespace: default}
      data: {color: red}
    readiness: {type: JSONPath, jsonPath: .metadata.labels.state, value: ready}
`;

describe('the kubernetes provider watches the target', () => {
  let target: TargetCluster;
  before(async () => {
    target = await startTargetCluster();
  });
  after(async () => target?.stop());
  // Polled once an hour: only a watch sees a change in the target within the test.
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '3600000' } });

  const ready = async (name: string, field: 'status' | 'reason') =>
    kubectlOk(suite.server, ['get', 'kubernetesobject', name, ...ns, '-o', `jsonpath={.status.conditions[?(@.type=="Ready")].${field}}`]);
  const observedBy = async (name: string) =>
    kubectlOk(suite.server, ['get', 'kubernetesobject', name, ...ns, '-o', 'jsonpath={.status.atProvider.observedBy}']);
  const targetColor = async (name: string) => {
    const got = await kubectl(target.server, ['get', 'configmap', name, '-n', 'default', '-o', 'jsonpath={.data.color}']);
    return got.code === 0 ? got.stdout : undefined;
  };

  test('an object made ready, edited or deleted in the target is seen at once, by the watch', async () => {
    const s = suite.server;
    await kubernetesProviderKindsEstablished(s);
    await kubectlOk(s, ['apply', '-f', '-'], { input: targetProviderYaml(NS, 'target', target.credentials) });
    await kubectlOk(s, ['apply', '-f', '-'], { input: kubernetesObject('watched', 'target') });

    await eventually(async () => (await targetColor('watched')) === 'red', 'the ConfigMap created in the target');
    await eventually(async () => (await ready('watched', 'reason')) === 'TargetNotReady', 'waiting for the object to be ready');

    // The "operator" makes it ready in the target.
    await kubectlOk(target.server, ['label', 'configmap', 'watched', '-n', 'default', 'state=ready']);
    await eventually(async () => (await ready('watched', 'status')) === 'True', 'Ready once the target says so');
    await eventually(async () => (await observedBy('watched')) === 'watch', 'observed by the watch');

    // Edited in the target: corrected without waiting for the hourly poll.
    await kubectlOk(target.server, ['patch', 'configmap', 'watched', '-n', 'default', '--type=merge', '-p', '{"data":{"color":"blue"}}']);
    await eventually(async () => (await targetColor('watched')) === 'red', 'the edited color corrected in the target');

    // Deleted in the target: made again.
    await kubectlOk(target.server, ['delete', 'configmap', 'watched', '-n', 'default']);
    await eventually(async () => (await targetColor('watched')) === 'red', 'the ConfigMap made again in the target');

    await kubectlOk(s, ['delete', 'kubernetesobject', 'watched', ...ns, '--wait=true', '--timeout=60s']);
    assert.equal(await targetColor('watched'), undefined, 'deleted in the target with its KubernetesObject');
  });

  test('credentials that may not watch (403): the object is polled, and its status says so', async () => {
    const s = suite.server;
    // In the target: a ServiceAccount that may get and apply ConfigMaps in default, but not list or watch them.
    await kubectlOk(target.server, ['create', 'serviceaccount', 'no-watch', '-n', 'default']);
    await kubectlOk(target.server, [
      'create',
      'role',
      'configmaps-no-watch',
      '-n',
      'default',
      '--verb=get,create,update,patch,delete',
      '--resource=configmaps',
    ]);
    await kubectlOk(target.server, ['create', 'rolebinding', 'no-watch', '-n', 'default', '--role=configmaps-no-watch', '--serviceaccount=default:no-watch']);
    const token = (await kubectlOk(target.server, ['create', 'token', 'no-watch', '-n', 'default', '--duration', '2h'])).trim();
    const denied = await kubectl(target.server, ['--token', token, 'get', 'configmaps', '-n', 'default']);
    assert.notEqual(denied.code, 0, 'the ServiceAccount may not list ConfigMaps');

    await kubectlOk(s, ['apply', '-f', '-'], { input: targetProviderYaml(NS, 'limited', { ...target.credentials, token }) });
    await kubectlOk(s, ['apply', '-f', '-'], { input: kubernetesObject('polled', 'limited', { 'conductor.io/poll-interval': '1s' }) });
    await eventually(async () => (await targetColor('polled')) === 'red', 'the ConfigMap created in the target with the limited credentials');
    await kubectlOk(target.server, ['label', 'configmap', 'polled', '-n', 'default', 'state=ready']);
    await eventually(async () => (await ready('polled', 'status')) === 'True', 'Ready, seen by the poll');
    await eventually(async () => (await observedBy('polled')) === 'poll', 'observed by the poll: the watch was refused');

    // Drift is still corrected, by the poll.
    await kubectlOk(target.server, ['patch', 'configmap', 'polled', '-n', 'default', '--type=merge', '-p', '{"data":{"color":"blue"}}']);
    await eventually(async () => (await targetColor('polled')) === 'red', 'the edited color corrected by the poll');
    assert.equal(await observedBy('polled'), 'poll');

    await kubectlOk(s, ['delete', 'kubernetesobject', 'polled', ...ns, '--wait=true', '--timeout=60s']);
  });
});
