import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BenchClient } from './http-client.js';
import { FILL_NAMESPACE_SIZE, LIST_NAMESPACE, Population } from './population.js';

// plan() never talks to the server, so no client is needed.
const noClient = {} as BenchClient;

describe('Population.plan', () => {
  test('fills the listed namespace to exactly its size, then fill namespaces', () => {
    const p = new Population(noClient, 3, 1024);
    const got = p.plan(5).map((t) => `${t.namespace}/${t.name}`);
    assert.deepEqual(got, [
      `${LIST_NAMESPACE}/cm-000000`,
      `${LIST_NAMESPACE}/cm-000001`,
      `${LIST_NAMESPACE}/cm-000002`,
      'bench-fill-0/cm-000000',
      'bench-fill-0/cm-000001',
    ]);
  });
  test('successive plans continue where the last stopped and never repeat a name', () => {
    const p = new Population(noClient, 10, 1024);
    const all = [...p.plan(7), ...p.plan(FILL_NAMESPACE_SIZE + 10)].map((t) => `${t.namespace}/${t.name}`);
    assert.equal(new Set(all).size, all.length);
    assert.equal(all.filter((k) => k.startsWith(`${LIST_NAMESPACE}/`)).length, 10);
    assert.equal(all.filter((k) => k.startsWith('bench-fill-0/')).length, FILL_NAMESPACE_SIZE);
    assert.equal(all.filter((k) => k.startsWith('bench-fill-1/')).length, 7);
  });
  test('planIn allocates within one namespace and does not disturb plan', () => {
    const p = new Population(noClient, 2, 1024);
    assert.deepEqual(p.planIn('w', 2), [
      { namespace: 'w', name: 'cm-000000' },
      { namespace: 'w', name: 'cm-000001' },
    ]);
    assert.deepEqual(p.planIn('w', 1), [{ namespace: 'w', name: 'cm-000002' }]);
    assert.equal(p.plan(1)[0].namespace, LIST_NAMESPACE);
  });
  test('record counts acknowledged objects only', () => {
    const p = new Population(noClient, 2, 1024);
    const [a] = p.plan(2);
    p.record(a);
    assert.equal(p.total(), 1);
    assert.equal(p.count(LIST_NAMESPACE), 1);
    assert.deepEqual(p.paths, [`/api/v1/namespaces/${LIST_NAMESPACE}/configmaps/cm-000000`]);
  });
});
