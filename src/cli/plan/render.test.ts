import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldDiffs, renderPlans } from './render.js';

test('fieldDiffs: leaf fields that differ, by dotted path', () => {
  const cases: { reason: string; from: unknown; to: unknown; want: ReturnType<typeof fieldDiffs> }[] = [
    { reason: 'equal', from: { a: 1, b: { c: 'x' } }, to: { a: 1, b: { c: 'x' } }, want: [] },
    { reason: 'changed leaf', from: { v: '15' }, to: { v: '16' }, want: [{ path: 'spec.v', from: '15', to: '16' }] },
    { reason: 'added', from: {}, to: { r: { name: 'x' } }, want: [{ path: 'spec.r', to: { name: 'x' } }] },
    { reason: 'removed, nested', from: { a: { b: 1, c: 2 } }, to: { a: { b: 1 } }, want: [{ path: 'spec.a.c', from: 2 }] },
    { reason: 'lists compare whole', from: { l: [1, 2] }, to: { l: [2, 1] }, want: [{ path: 'spec.l', from: [1, 2], to: [2, 1] }] },
  ];
  for (const c of cases) assert.deepEqual(fieldDiffs(c.from, c.to), c.want, c.reason);
});

test('renderPlans: a class decision, a skipped document, an error and the summary', () => {
  const out = renderPlans([
    {
      claim: 'PostgreSQLInstance a/x',
      existing: false,
      plan: {
        decision: 'class',
        kind: 'ResourceClass',
        namespace: 'conductor-system',
        name: 'small',
        provisions: 'MemoryDatabase',
        cost: 'low',
        message: '1/1 candidates fit',
      },
    },
    { claim: 'ConfigMap a/c', skipped: 'ConfigMap is not a claim kind' },
    { claim: 'PostgreSQLInstance a/y', error: 'boom' },
  ]);
  assert.equal(
    out,
    `PostgreSQLInstance a/x (new): provision a MemoryDatabase from ResourceClass conductor-system/small (cost low)
  scheduler: 1/1 candidates fit
ConfigMap a/c: skipped (ConfigMap is not a claim kind)
PostgreSQLInstance a/y: error: boom

2 claims: 1 can be placed, 1 cannot
`,
  );
});
