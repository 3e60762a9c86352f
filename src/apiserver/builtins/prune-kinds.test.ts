import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupVersion } from '../registry/resource-type.js';
import { builtinResourceTypes } from './builtins.js';
import { pruneKindResourceTypes } from './prune-kinds.js';

/** kubectl's default prune list (kubectl apply --prune without --prune-allowlist), as group/version/Kind. */
const KUBECTL_DEFAULT_PRUNE_KINDS = [
  'v1/ConfigMap',
  'v1/Endpoints',
  'v1/Namespace',
  'v1/PersistentVolumeClaim',
  'v1/PersistentVolume',
  'v1/Pod',
  'v1/ReplicationController',
  'v1/Secret',
  'v1/Service',
  'batch/v1/Job',
  'batch/v1/CronJob',
  'networking.k8s.io/v1/Ingress',
  'apps/v1/DaemonSet',
  'apps/v1/Deployment',
  'apps/v1/ReplicaSet',
  'apps/v1/StatefulSet',
];

test('the built-in and prune kinds together cover kubectl default prune list, each once', () => {
  const served = [...builtinResourceTypes(), ...pruneKindResourceTypes()].map((rt) => `${groupVersion(rt)}/${rt.kind}`);
  for (const k of KUBECTL_DEFAULT_PRUNE_KINDS) assert.equal(served.filter((s) => s === k).length, 1, k);
});

test('prune kinds are read-only, say why writes are refused, and are not in any category', () => {
  for (const rt of pruneKindResourceTypes()) {
    assert.deepEqual(rt.verbs, ['get', 'list', 'watch'], rt.kind);
    assert.match(rt.refusedVerbMessage ?? '', new RegExp(`Conductor does not run ${rt.resource}: ${rt.kind} is served read-only`));
    assert.deepEqual(rt.categories, []);
    assert.equal(rt.listKind, `${rt.kind}List`);
  }
});
