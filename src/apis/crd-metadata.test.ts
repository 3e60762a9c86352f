import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KObject } from '../machinery/object.js';
import { crdNames, implementedClaimKinds, isClaimCrd, parseSupportedResource, supportsKind } from './crd-metadata.js';

const crd = (meta: KObject['metadata'], spec: unknown = {}): KObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: meta,
  spec,
});

describe('parseSupportedResource', () => {
  const cases: { reason: string; input: string; want: ReturnType<typeof parseSupportedResource> }[] = [
    {
      reason: 'kind, version and a dotted group',
      input: 'MySqlInstance.v1alpha1.storage.conductor.io',
      want: { kind: 'MySqlInstance', version: 'v1alpha1', group: 'storage.conductor.io' },
    },
    { reason: 'a one-word group', input: 'Widget.v1.example', want: { kind: 'Widget', version: 'v1', group: 'example' } },
    { reason: 'no group', input: 'Widget.v1', want: undefined },
    { reason: 'an empty group after the dot', input: 'Widget.v1.', want: undefined },
    { reason: 'an empty kind', input: '.v1.example', want: undefined },
    { reason: 'an empty version', input: 'Widget..example', want: undefined },
    { reason: 'nothing', input: '', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(parseSupportedResource(c.input), c.want));

  test('formatting then parsing gives back the parts', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9-]{1,10}$/);
    const group = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join('.'));
    fc.assert(
      fc.property(word, word, group, (kind, version, g) => {
        assert.deepEqual(parseSupportedResource(`${kind}.${version}.${g}`), { kind, version, group: g });
      }),
    );
  });
});

describe('supportsKind', () => {
  const claim = { group: 'storage.conductor.io', version: 'v1alpha1', kind: 'MySQLInstance' };
  const cases: { reason: string; entry: string; want: boolean }[] = [
    { reason: 'the kind matches case-insensitively', entry: 'MySqlInstance.v1alpha1.storage.conductor.io', want: true },
    { reason: 'another version does not match', entry: 'MySQLInstance.v1beta1.storage.conductor.io', want: false },
    { reason: 'another group does not match', entry: 'MySQLInstance.v1alpha1.cache.conductor.io', want: false },
    { reason: 'another kind does not match', entry: 'PostgreSQLInstance.v1alpha1.storage.conductor.io', want: false },
    { reason: 'a malformed entry matches nothing', entry: 'MySQLInstance', want: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(supportsKind(c.entry, claim), c.want));
});

describe('CRD metadata', () => {
  test('a CRD is a claim kind only with the abstract label set to "true"', () => {
    assert.equal(isClaimCrd(crd({ name: 'a', labels: { 'conductor.io/abstract': 'true' } })), true);
    assert.equal(isClaimCrd(crd({ name: 'a', labels: { 'conductor.io/abstract': 'false' } })), false);
    assert.equal(isClaimCrd(crd({ name: 'a' })), false);
  });

  test('implemented claim kinds are read from a comma-separated annotation, ignoring blanks', () => {
    const c = crd({ name: 'a', annotations: { 'conductor.io/implements': ' mysqlinstances.storage.conductor.io, ,postgresqlinstances.storage.conductor.io' } });
    assert.deepEqual(implementedClaimKinds(c), ['mysqlinstances.storage.conductor.io', 'postgresqlinstances.storage.conductor.io']);
    assert.deepEqual(implementedClaimKinds(crd({ name: 'b' })), []);
  });

  test('crdNames reads group, kind and plural, and nothing from a malformed spec', () => {
    assert.deepEqual(crdNames(crd({ name: 'a' }, { group: 'g.io', names: { kind: 'K', plural: 'ks' } })), { group: 'g.io', kind: 'K', plural: 'ks' });
    assert.equal(crdNames(crd({ name: 'a' }, { group: 'g.io', names: { kind: 'K' } })), undefined);
    assert.equal(crdNames(crd({ name: 'a' }, 'nonsense')), undefined);
  });
});
