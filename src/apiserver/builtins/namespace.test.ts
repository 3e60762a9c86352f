import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { namespaceResourceType } from './namespace.js';

const rt = namespaceResourceType();
const strategy = rt.strategy;

function ns(fields: Record<string, unknown>, meta: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', ...meta }, ...fields };
}

function summary(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field ?? ''} ${c.reason}`);
}

describe('Namespace prepare', () => {
  test('a new namespace is Active with the kubernetes finalizer and its name label', () => {
    const n = ns({ status: { phase: 'Terminating' } });
    strategy.prepareForCreate!(n);
    assert.deepEqual(n.status, { phase: 'Active' });
    assert.deepEqual(n.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(n.metadata.labels, { 'kubernetes.io/metadata.name': 'team-a' });
  });
  test('given finalizers are kept and kubernetes is added once', () => {
    const n = ns({ spec: { finalizers: ['example.com/x'] } });
    strategy.prepareForCreate!(n);
    assert.deepEqual(n.spec, { finalizers: ['example.com/x', 'kubernetes'] });
    const again = ns({ spec: { finalizers: ['kubernetes'] } });
    strategy.prepareForCreate!(again);
    assert.deepEqual(again.spec, { finalizers: ['kubernetes'] });
  });
  test('an update keeps the stored finalizers and status and restores the name label', () => {
    const old = ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }, { labels: { 'kubernetes.io/metadata.name': 'team-a' } });
    const next = ns({ spec: { finalizers: [] }, status: { phase: 'Terminating' } }, { labels: { env: 'dev' } });
    strategy.prepareForUpdate!(next, old);
    assert.deepEqual(next.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(next.status, { phase: 'Active' });
    assert.deepEqual(next.metadata.labels, { env: 'dev', 'kubernetes.io/metadata.name': 'team-a' });
  });
});

describe('Namespace validation', () => {
  const cases: { reason: string; obj: KObject; subresource: string; want: string[] }[] = [
    { reason: 'standard and qualified finalizers are valid', obj: ns({ spec: { finalizers: ['kubernetes', 'example.com/x'] } }), subresource: '', want: [] },
    {
      reason: 'a bare finalizer must be a standard one',
      obj: ns({ spec: { finalizers: ['kubernetes', 'mine'] } }),
      subresource: '',
      want: ['spec.finalizers[1] FieldValueInvalid'],
    },
    {
      reason: 'the finalize subresource checks the names too',
      obj: ns({ spec: { finalizers: ['a/b/c'] } }),
      subresource: 'finalize',
      want: ['spec.finalizers[0] FieldValueInvalid'],
    },
    { reason: 'a live namespace is Active', obj: ns({ status: { phase: 'Active' } }), subresource: 'status', want: [] },
    {
      reason: 'a live namespace cannot be Terminating',
      obj: ns({ status: { phase: 'Terminating' } }),
      subresource: 'status',
      want: ['status.phase FieldValueInvalid'],
    },
    {
      reason: 'a namespace being deleted is Terminating',
      obj: ns({ status: { phase: 'Terminating' } }, { deletionTimestamp: '2024-01-01T00:00:00Z' }),
      subresource: 'status',
      want: [],
    },
    {
      reason: 'a namespace being deleted cannot be Active',
      obj: ns({ status: { phase: 'Active' } }, { deletionTimestamp: '2024-01-01T00:00:00Z' }),
      subresource: 'status',
      want: ['status.phase FieldValueInvalid'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const ctx = { operation: 'update' as const, old: ns({}), subresource: c.subresource };
      assert.deepEqual(summary(strategy.validate!(c.obj, ctx)), c.want);
    });
  }
  test('the finalizer message explains the rule', () => {
    const [cause] = strategy.validate!(ns({ spec: { finalizers: ['mine'] } }), { operation: 'create', subresource: '' });
    assert.equal(cause.message, 'Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified');
  });
});

describe('Namespace type', () => {
  test('is cluster-scoped with a status subresource and short name ns', () => {
    assert.equal(rt.namespaced, false);
    assert.equal(rt.subresources.status, true);
    assert.deepEqual(rt.shortNames, ['ns']);
  });
  test('STATUS shows the phase', () => {
    assert.equal(rt.printerColumns[0].name, 'Status');
    assert.equal(rt.printerColumns[0].cell!(ns({ status: { phase: 'Terminating' } })), 'Terminating');
  });
  test('status.phase and name are selectable', () => {
    assert.deepEqual(strategy.selectableFields!(ns({ status: { phase: 'Active' } })), { 'status.phase': 'Active', name: 'team-a' });
  });
});
