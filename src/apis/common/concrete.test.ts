import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimColumn, type Binding } from './concrete.js';
import type { ObjectReference } from './fields.js';

const ref = (namespace: string, name: string): ObjectReference => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'PostgreSQLInstance',
  namespace,
  name,
});
const binding = (namespace: string, name: string): Binding => ({ claimRef: ref(namespace, name) });

describe('claimColumn', () => {
  const cases: { reason: string; claimRef?: ObjectReference; bindings?: Binding[]; want: string }[] = [
    { reason: 'an unbound resource shows nothing', want: '' },
    { reason: 'an exclusive binding shows namespace/name', claimRef: ref('shop', 'db'), want: 'shop/db' },
    { reason: 'a reference without namespace shows the name', claimRef: { apiVersion: 'v1', kind: 'K', name: 'x' }, want: 'x' },
    { reason: 'one shared binding shows that claim', bindings: [binding('a', 'one')], want: 'a/one' },
    { reason: 'several shared bindings show the count and the claims', bindings: [binding('a', 'one'), binding('b', 'two')], want: '2 claims: a/one, b/two' },
    {
      reason: 'more than three shared bindings show the first three',
      bindings: [binding('a', '1'), binding('a', '2'), binding('a', '3'), binding('a', '4')],
      want: '4 claims: a/1, a/2, a/3, …',
    },
    { reason: 'bindings win over a stale claimRef', claimRef: ref('old', 'x'), bindings: [binding('a', 'one')], want: 'a/one' },
    { reason: 'an empty bindings list falls back to claimRef', claimRef: ref('shop', 'db'), bindings: [], want: 'shop/db' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(claimColumn(c.claimRef, c.bindings), c.want));
});
