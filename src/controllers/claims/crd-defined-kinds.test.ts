/**
 * Which CRD-defined kinds the claim controller serves beside the built-in ones, and what it
 * says about those it cannot serve.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { mysqlInstanceKind } from '../../apis/index.js';
import { crdDefinedKinds, OutOfProcessKindError } from './crd-defined-kinds.js';

function crd(group: string, kind: string, metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }): KObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...metadata },
    spec: { group, scope: 'Namespaced', names: { kind, plural }, versions: [{ name: 'v1', served: true, storage: true }] },
    status: { conditions: [{ type: 'Established', status: 'True' }] },
  };
}

const store = crd('kv.example.org', 'Store', { labels: { 'conductor.io/abstract': 'true' }, annotations: { 'conductor.io/connection-keys': 'endpoint' } });
const tiny = crd('tiny.example.org', 'TinyStore', { annotations: { 'conductor.io/implements': 'stores.kv.example.org' } });
const builtIn = { claimKinds: new Set(['storage.conductor.io/MySQLInstance']), concreteKinds: new Set(['database.local.conductor.io/PostgreSQLServer']) };

describe('crdDefinedKinds', () => {
  test('serves a new claim kind and a concrete kind implementing it, Exclusive and reconciled elsewhere', async () => {
    const got = crdDefinedKinds([store, tiny], builtIn);
    assert.deepEqual(got.problems, []);
    assert.deepEqual(
      got.claimKinds.map((k) => k.kind),
      ['Store'],
    );
    assert.equal(got.concreteKinds.length, 1);
    const { kind } = got.concreteKinds[0];
    assert.equal(kind.sharing, 'Exclusive');
    assert.deepEqual(kind.implements[0].claimKind, { group: 'kv.example.org', kind: 'Store' });
    assert.deepEqual(kind.implements[0].connectionSecretKeys, ['endpoint']);
    await assert.rejects(kind.connector.connect({ apiVersion: 'v1', kind: 'TinyStore', metadata: {} }, {}), OutOfProcessKindError);
  });

  test('a concrete kind may implement a built-in claim kind (its keys come from that CRD)', () => {
    const mysqlLike = crd('db.example.org', 'FarAwayMySQL', { annotations: { 'conductor.io/implements': 'mysqlinstances.storage.conductor.io' } });
    const got = crdDefinedKinds(
      [mysqlInstanceKind.crd(), mysqlLike].map((c) => ({ ...c, status: { conditions: [{ type: 'Established', status: 'True' }] } })),
      builtIn,
    );
    assert.deepEqual(got.claimKinds, [], 'the built-in claim kind is not served twice');
    assert.deepEqual(got.concreteKinds[0].kind.implements[0].connectionSecretKeys, ['host', 'port', 'username', 'password', 'database', 'uri']);
  });

  test('built-in concrete kinds are not read from their CRDs', () => {
    const local = crd('database.local.conductor.io', 'PostgreSQLServer', { annotations: { 'conductor.io/implements': 'stores.kv.example.org' } });
    assert.deepEqual(crdDefinedKinds([store, local], builtIn).concreteKinds, []);
  });

  test('a concrete kind implementing a claim kind that is not served is left out, and the problem says which', () => {
    const got = crdDefinedKinds([tiny], builtIn);
    assert.deepEqual(got.concreteKinds, []);
    assert.equal(got.problems.length, 1);
    assert.match(got.problems[0], /tinystores\.tiny\.example\.org implements stores\.kv\.example\.org, which is not a served claim kind/);
  });

  test('what the kinds are built from changes the fingerprint', () => {
    const before = crdDefinedKinds([store, tiny], builtIn).concreteKinds[0].fingerprint;
    const keysChanged = { ...store, metadata: { ...store.metadata, annotations: { 'conductor.io/connection-keys': 'endpoint,token' } } };
    assert.notEqual(crdDefinedKinds([keysChanged, tiny], builtIn).concreteKinds[0].fingerprint, before);
    assert.equal(crdDefinedKinds([store, tiny], builtIn).concreteKinds[0].fingerprint, before);
  });
});
