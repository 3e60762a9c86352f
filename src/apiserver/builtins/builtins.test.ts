import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { groupVersion } from '../registry/resource-type.js';
import { builtinResourceTypes } from './builtins.js';
import { verbsFor } from './verbs.js';

const types = builtinResourceTypes();

describe('builtinResourceTypes', () => {
  test('serves the eleven built-in kinds', () => {
    assert.deepEqual(
      types.map((rt) => `${groupVersion(rt)}/${rt.kind}`),
      [
        'v1/Namespace',
        'v1/Secret',
        'v1/ConfigMap',
        'v1/Event',
        'v1/ServiceAccount',
        'coordination.k8s.io/v1/Lease',
        'apiextensions.k8s.io/v1/CustomResourceDefinition',
        'rbac.authorization.k8s.io/v1/Role',
        'rbac.authorization.k8s.io/v1/ClusterRole',
        'rbac.authorization.k8s.io/v1/RoleBinding',
        'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
      ],
    );
  });
  test('resource names are unique within a group', () => {
    const keys = types.map((rt) => `${rt.group}/${rt.resource}`);
    assert.equal(new Set(keys).size, keys.length);
  });
  test('every kind serves every verb', () => {
    for (const rt of types) {
      assert.deepEqual([...rt.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], rt.kind);
    }
    assert.deepEqual(verbsFor('Anything'), types[0].verbs);
  });
  test('list kinds and singulars follow the kind', () => {
    for (const rt of types) {
      assert.equal(rt.listKind, `${rt.kind}List`);
      assert.equal(rt.singular, rt.kind.toLowerCase());
    }
  });
  test('all are built in and none are structural', () => {
    for (const rt of types) {
      assert.deepEqual(rt.source, { type: 'builtin' });
      assert.equal(rt.structural, false);
    }
  });
  test('only namespaces and CRDs have a status subresource', () => {
    assert.deepEqual(
      types.filter((rt) => rt.subresources.status).map((rt) => rt.kind),
      ['Namespace', 'CustomResourceDefinition'],
    );
  });
});

describe('strategies cope with empty objects', () => {
  // The server probes selectableFields with an empty object to learn the field names.
  const wanted: Record<string, string[]> = {
    Namespace: ['status.phase', 'name'],
    Secret: ['type'],
    ConfigMap: [],
    Event: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
    ServiceAccount: [],
    Lease: [],
    CustomResourceDefinition: [],
    Role: [],
    ClusterRole: [],
    RoleBinding: [],
    ClusterRoleBinding: [],
  };
  for (const rt of types) {
    const probe = (): KObject => ({ apiVersion: groupVersion(rt), kind: rt.kind, metadata: { name: '', namespace: '' } });
    test(`${rt.kind} names its selectable fields`, () => {
      assert.deepEqual(Object.keys(rt.strategy.selectableFields?.(probe()) ?? {}), wanted[rt.kind]);
    });
    test(`${rt.kind} cells and validation do not throw`, () => {
      for (const c of rt.printerColumns) assert.doesNotThrow(() => c.cell!(probe()), c.name);
      assert.doesNotThrow(() => rt.strategy.validate?.(probe(), { operation: 'create', subresource: '' }));
      assert.doesNotThrow(() => rt.strategy.validate?.(probe(), { operation: 'update', old: probe(), subresource: '' }));
    });
    test(`${rt.kind} prepare hooks accept wrongly typed fields`, () => {
      const junk = { ...probe(), spec: 'x', data: 5, stringData: [1], status: 7 } as KObject;
      assert.doesNotThrow(() => rt.strategy.prepareForCreate?.(structuredClone(junk)));
      assert.doesNotThrow(() => rt.strategy.prepareForUpdate?.(structuredClone(junk), probe()));
      assert.doesNotThrow(() => rt.strategy.validate?.(structuredClone(junk), { operation: 'update', old: junk, subresource: '' }));
    });
  }
});
