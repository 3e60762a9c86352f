/**
 * Reading kinds from CRDs Conductor did not write: what is a claim kind, what is a concrete
 * kind, and what cannot be read (each refusal names the annotation or field and what was expected).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import { claimKindOfCrd, concreteKindOfCrd, parseConnectionKeys } from './crd-kinds.js';

function crd(o: {
  group?: string;
  kind?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  categories?: string[];
  scope?: string;
  established?: boolean;
  spec?: unknown;
  served?: boolean;
}): KObject {
  const group = o.group ?? 'kv.example.org';
  const kind = o.kind ?? 'Store';
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...(o.labels ? { labels: o.labels } : {}), ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      group,
      scope: o.scope ?? 'Namespaced',
      names: { kind, plural, ...(o.categories ? { categories: o.categories } : {}) },
      versions: [
        { name: 'v1beta1', served: true, storage: false },
        {
          name: 'v1',
          served: o.served ?? true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', properties: { spec: (o.spec ?? { type: 'object', properties: { size: { type: 'integer' } } }) as never } },
          },
        },
      ],
    },
    status: { conditions: [{ type: 'Established', status: o.established === false ? 'False' : 'True' }] },
  };
}

describe('parseConnectionKeys', () => {
  test('reads keys, optional keys and spaces', () => {
    assert.deepEqual(parseConnectionKeys(' endpoint, token ,path?'), [
      { name: 'endpoint', optional: false },
      { name: 'token', optional: false },
      { name: 'path', optional: true },
    ]);
    assert.deepEqual(parseConnectionKeys(undefined), []);
    assert.deepEqual(parseConnectionKeys(''), []);
  });
  const bad: [string, RegExp][] = [
    ['a,,b', /entry 2 \(""\) is not a Secret key/],
    ['a b', /entry 1 \("a b"\) is not a Secret key/],
    ['a/b', /is not a Secret key/],
    ['a,a?', /key "a" is named twice/],
  ];
  for (const [text, want] of bad) test(`refuses ${JSON.stringify(text)}`, () => assert.throws(() => parseConnectionKeys(text), want));
});

describe('claimKindOfCrd', () => {
  test('a CRD labelled conductor.io/abstract is a claim kind, served at its storage version, with its connection keys', () => {
    const read = claimKindOfCrd(crd({ labels: { 'conductor.io/abstract': 'true' }, annotations: { 'conductor.io/connection-keys': 'endpoint,token' } }));
    assert.equal(read.type, 'kind');
    if (read.type !== 'kind') return;
    assert.deepEqual(read.kind.ref, { group: 'kv.example.org', version: 'v1', resource: 'stores', namespaced: true, kind: 'Store' });
    assert.equal(read.kind.crdName, 'stores.kv.example.org');
    assert.deepEqual(
      read.kind.connectionKeys.map((k) => k.name),
      ['endpoint', 'token'],
    );
  });
  test('so is a CRD in the claim category', () => assert.equal(claimKindOfCrd(crd({ categories: ['claim'] })).type, 'kind'));
  const none: [string, KObject][] = [
    ['no label, no category', crd({})],
    ['label not "true"', crd({ labels: { 'conductor.io/abstract': 'yes' } })],
    ['cluster-scoped', crd({ labels: { 'conductor.io/abstract': 'true' }, scope: 'Cluster' })],
    ['not Established', crd({ labels: { 'conductor.io/abstract': 'true' }, established: false })],
  ];
  for (const [why, c] of none) test(`is not a claim kind: ${why}`, () => assert.equal(claimKindOfCrd(c).type, 'none'));
  test('unreadable connection keys make it invalid, with the CRD and the annotation named', () => {
    const read = claimKindOfCrd(crd({ labels: { 'conductor.io/abstract': 'true' }, annotations: { 'conductor.io/connection-keys': 'ok,not ok' } }));
    assert.equal(read.type, 'invalid');
    if (read.type === 'invalid') assert.match(read.why, /claim kind stores\.kv\.example\.org: annotation conductor\.io\/connection-keys: entry 2/);
  });
});

describe('concreteKindOfCrd', () => {
  test('a CRD annotated conductor.io/implements is a concrete kind, with its spec fields', () => {
    const read = concreteKindOfCrd(
      crd({
        kind: 'TinyStore',
        annotations: { 'conductor.io/implements': 'stores.kv.example.org, caches.kv.example.org', 'conductor.io/connection-keys': 'server' },
      }),
    );
    assert.equal(read.type, 'kind');
    if (read.type !== 'kind') return;
    assert.deepEqual(read.kind.implements, ['stores.kv.example.org', 'caches.kv.example.org']);
    assert.deepEqual([...read.kind.specFields!], ['size']);
    assert.deepEqual(read.kind.connectionKeys, [{ name: 'server', optional: false }]);
  });
  test('a spec that keeps unknown fields can be given any field', () => {
    const read = concreteKindOfCrd(
      crd({ annotations: { 'conductor.io/implements': 'stores.kv.example.org' }, spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }),
    );
    assert.ok(read.type === 'kind' && read.kind.specFields === undefined);
  });
  test('without the annotation it is not one (the managed category alone gives no claim kind to implement)', () => {
    assert.equal(concreteKindOfCrd(crd({ categories: ['managed'] })).type, 'none');
  });
  const invalid: [string, KObject, RegExp][] = [
    ['an empty annotation', crd({ annotations: { 'conductor.io/implements': ' , ' } }), /names no claim kind; expected <plural>\.<group>/],
    [
      'a claim kind that says it implements one',
      crd({ labels: { 'conductor.io/abstract': 'true' }, annotations: { 'conductor.io/implements': 'stores.kv.example.org' } }),
      /can be only one/,
    ],
    ['bad extra keys', crd({ annotations: { 'conductor.io/implements': 'a.b', 'conductor.io/connection-keys': '?' } }), /connection-keys: entry 1/],
  ];
  for (const [why, c, want] of invalid) {
    test(`is invalid: ${why}`, () => {
      const read = concreteKindOfCrd(c);
      assert.equal(read.type, 'invalid');
      if (read.type === 'invalid') assert.match(read.why, want);
    });
  }
});
