import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { candidateKey, classKey, kindKey, parseSupportedResource, resourceKey } from './keys.js';
import { RDS, resource, resourceClass } from './testing/index.js';

describe('parseSupportedResource', () => {
  const cases: { reason: string; input: string; want: { kind: string; group: string } }[] = [
    {
      reason: 'Kind.version.group as in the seed',
      input: 'MySqlInstance.v1alpha1.storage.conductor.io',
      want: { kind: 'MySqlInstance', group: 'storage.conductor.io' },
    },
    {
      reason: 'a beta version is dropped too',
      input: 'MySqlInstance.v1beta1.storage.conductor.io',
      want: { kind: 'MySqlInstance', group: 'storage.conductor.io' },
    },
    { reason: 'Kind.group without version', input: 'Bucket.storage.conductor.io', want: { kind: 'Bucket', group: 'storage.conductor.io' } },
    { reason: 'a bare kind is in the core group', input: 'ConfigMap', want: { kind: 'ConfigMap', group: '' } },
    { reason: 'surrounding spaces are ignored', input: ' Volume.v1.storage.conductor.io ', want: { kind: 'Volume', group: 'storage.conductor.io' } },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(parseSupportedResource(c.input), c.want));
  test('an empty entry is refused', () => assert.throws(() => parseSupportedResource('.v1.x.io'), /expected Kind.version.group/));
});

describe('keys', () => {
  test('kind keys ignore case so supportedResources match claim kinds', () => {
    assert.equal(kindKey({ kind: 'MySqlInstance', group: 'storage.conductor.io' }), kindKey({ kind: 'MySQLInstance', group: 'Storage.Conductor.IO' }));
  });
  test('candidate keys tell kinds and classes apart', () => {
    assert.equal(candidateKey(resource({ name: 'x' })), resourceKey(RDS, 'conductor-system', 'x'));
    assert.equal(candidateKey(resource({ name: 'x' })), 'database.aws.conductor.io/RDSInstance/conductor-system/x');
    assert.equal(candidateKey(resourceClass({ name: 'x' })), classKey('conductor-system', 'x'));
    assert.notEqual(candidateKey(resource({ name: 'x' })), candidateKey(resourceClass({ name: 'x' })));
  });
});
