import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { bindingSecretName, hashedName, LABEL_LIMIT, legacyBindingSecretName, provisionedName, SUBDOMAIN_LIMIT } from './names.js';

const claim = (namespace: string, name: string, uid = '0b7a1c2d-0000-4000-8000-000000000001'): KObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { namespace, name, uid },
});
const resource = (name: string): KObject => ({ apiVersion: 'v1', kind: 'R', metadata: { namespace: 'conductor-system', name } });
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const long = (c: string, n: number) => c.repeat(n);

describe('derived names are injective', () => {
  // Pairs whose readable parts coincide: the name must still differ (issue 10, item 8).
  for (const c of [
    { reason: 'x/y-c and x-y/c', a: ['x', 'y-c'], b: ['x-y', 'c'] },
    { reason: 'a-b/c and a/b-c', a: ['a-b', 'c'], b: ['a', 'b-c'] },
    { reason: 'long names equal in their first 200 characters', a: ['ns', `${long('a', 240)}1`], b: ['ns', `${long('a', 240)}2`] },
    { reason: 'upper and lower case', a: ['ns', 'Db'], b: ['ns', 'db'] },
  ]) {
    test(`binding Secret names differ: ${c.reason}`, () => {
      const r = resource('shared-pg');
      const one = bindingSecretName(r, claim(c.a[0], c.a[1]));
      const two = bindingSecretName(r, claim(c.b[0], c.b[1]));
      assert.notEqual(one, two);
      for (const n of [one, two]) assert.ok(n.length <= SUBDOMAIN_LIMIT, `${n.length} characters`);
    });
    test(`provisioned names differ: ${c.reason}`, () => {
      const one = provisionedName(claim(c.a[0], c.a[1]));
      const two = provisionedName(claim(c.b[0], c.b[1]));
      assert.notEqual(one, two);
      for (const n of [one, two]) {
        assert.ok(n.length <= LABEL_LIMIT, `${n} has ${n.length} characters`);
        assert.match(n, dnsLabel);
      }
    });
  }

  test('the old binding Secret names did collide (what the hash suffix fixes)', () => {
    const r = resource('shared-pg');
    assert.equal(legacyBindingSecretName(r, claim('x', 'y-c')), legacyBindingSecretName(r, claim('x-y', 'c')));
  });

  test('a resource name and a claim namespace cannot trade characters', () => {
    assert.notEqual(bindingSecretName(resource('pg-x'), claim('y', 'c')), bindingSecretName(resource('pg'), claim('x-y', 'c')));
  });

  test('the same claim gets the same names (a retry finds what the first attempt made)', () => {
    assert.equal(provisionedName(claim('shop', 'orders-db')), provisionedName(claim('shop', 'orders-db')));
    assert.equal(bindingSecretName(resource('r'), claim('shop', 'orders-db')), bindingSecretName(resource('r'), claim('shop', 'orders-db')));
  });

  test('a new claim of the same name gets a new provisioned resource', () => {
    assert.notEqual(provisionedName(claim('shop', 'db', 'uid-1')), provisionedName(claim('shop', 'db', 'uid-2')));
  });

  test('names stay readable: the parts, then the hash', () => {
    assert.match(provisionedName(claim('shop', 'orders-db')), /^shop-orders-db-[0-9a-f]{8}$/);
    assert.match(bindingSecretName(resource('shared-pg'), claim('shop', 'orders-db')), /^shared-pg-shop-orders-db-[0-9a-f]{16}$/);
  });

  test('a name of characters a label refuses is still a label', () => {
    const n = hashedName(['..', '__'], LABEL_LIMIT);
    assert.match(n, dnsLabel);
  });
});
