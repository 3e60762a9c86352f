import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ResourceRef } from '../../client/types.js';
import type { OwnerReference } from '../../machinery/object.js';
import { OwnerGraph, ownersOf, sameOwners } from './owner-graph.js';

const SECRETS: ResourceRef = { group: '', version: 'v1', resource: 'secrets', namespaced: true, kind: 'Secret' };

function ownerRef(uid: string, over: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: 'conductor.io/v1alpha1', kind: 'PostgreSQLInstance', name: `claim-${uid}`, uid, ...over };
}

describe('OwnerGraph', () => {
  test('keeps what the collector reads of each ownerReference, one link without an array, types shared', () => {
    const g = new OwnerGraph();
    const one = g.linksOf([ownerRef('a', { blockOwnerDeletion: true, controller: true })]);
    assert.ok(one && !Array.isArray(one));
    assert.deepEqual(ownersOf({ owners: one }), [
      { uid: 'a', name: 'claim-a', type: { apiVersion: 'conductor.io/v1alpha1', kind: 'PostgreSQLInstance' }, blocking: true },
    ]);
    const two = g.linksOf([ownerRef('b'), ownerRef('c', { kind: 'MemoryDatabase' })]);
    assert.ok(Array.isArray(two));
    const [b, c] = ownersOf({ owners: two });
    assert.equal(b.blocking, false);
    assert.equal(c.type.kind, 'MemoryDatabase');
    assert.equal(b.type, ownersOf({ owners: one })[0].type, 'links to owners of one type share the type');
    assert.equal(g.linksOf([]), undefined);
    assert.equal(g.linksOf(undefined), undefined);
  });

  test('sameOwners compares uid, name, type and blocking in order', () => {
    const g = new OwnerGraph();
    const links = (...refs: OwnerReference[]) => g.linksOf(refs)!;
    assert.ok(sameOwners(links(ownerRef('a')), links(ownerRef('a', { controller: true }))), 'controller is not read');
    assert.ok(!sameOwners(links(ownerRef('a')), links(ownerRef('b'))));
    assert.ok(!sameOwners(links(ownerRef('a')), links(ownerRef('a', { name: 'other' }))));
    assert.ok(!sameOwners(links(ownerRef('a')), links(ownerRef('a', { blockOwnerDeletion: true }))));
    assert.ok(!sameOwners(links(ownerRef('a')), links(ownerRef('a', { apiVersion: 'v1', kind: 'ConfigMap' }))));
    assert.ok(!sameOwners(links(ownerRef('a')), links(ownerRef('a'), ownerRef('b'))));
    assert.ok(sameOwners(links(ownerRef('a'), ownerRef('b')), links(ownerRef('a'), ownerRef('b'))));
    assert.ok(!sameOwners(links(ownerRef('a'), ownerRef('b')), links(ownerRef('b'), ownerRef('a'))));
  });

  test('dependentsOf always matches the owners last set for each dependent (one, two or more per owner)', () => {
    const uid = fc.constantFrom('d1', 'd2', 'd3', 'd4');
    const owner = fc.constantFrom('o1', 'o2', 'o3');
    const op = fc.oneof(fc.record({ set: uid, owners: fc.uniqueArray(owner, { minLength: 1, maxLength: 3 }) }), fc.record({ del: uid }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const g = new OwnerGraph();
        const model = new Map<string, string[]>();
        for (const o of ops) {
          if ('set' in o) {
            g.set(o.set, { ref: SECRETS, namespace: 'ns', name: o.set, owners: g.linksOf(o.owners.map((u) => ownerRef(u)))! });
            model.set(o.set, o.owners);
          } else {
            g.delete(o.del);
            model.delete(o.del);
          }
          for (const ow of ['o1', 'o2', 'o3']) {
            const want = [...model]
              .filter(([, owners]) => owners.includes(ow))
              .map(([d]) => d)
              .sort();
            assert.deepEqual(g.dependentsOf(ow).sort(), want);
          }
          for (const d of ['d1', 'd2', 'd3', 'd4']) {
            const dep = g.get(d);
            assert.deepEqual(dep && ownersOf(dep).map((l) => l.uid), model.get(d));
          }
        }
      }),
    );
  });
});
