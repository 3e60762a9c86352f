import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deletionConditions, withTransitionTimes, MAX_LISTED, NAMESPACE_DELETION_CONDITION_TYPES } from './deletion-conditions.js';

const observed = (remaining: [string, number][] = [], finalizers: [string, number][] = [], errors: string[] = []) => ({
  remaining: new Map(remaining),
  finalizers: new Map(finalizers),
  errors,
});

describe('namespace deletion conditions', () => {
  test('every condition type is reported, in order', () => {
    assert.deepEqual(
      deletionConditions(observed()).map((c) => c.type),
      [...NAMESPACE_DELETION_CONDITION_TYPES],
    );
  });

  const cases: { reason: string; o: ReturnType<typeof observed>; type: string; want: [string, string, string] }[] = [
    { reason: 'nothing left', o: observed(), type: 'NamespaceContentRemaining', want: ['False', 'ContentRemoved', 'All content successfully removed'] },
    {
      reason: 'remaining resources are listed sorted, core ones with a trailing dot',
      o: observed([
        ['widgets.example.com', 2],
        ['configmaps.', 1],
      ]),
      type: 'NamespaceContentRemaining',
      want: ['True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances'],
    },
    {
      reason: 'no finalizers',
      o: observed(),
      type: 'NamespaceFinalizersRemaining',
      want: ['False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
    },
    {
      reason: 'finalizers are counted by name',
      o: observed(
        [['configmaps.', 3]],
        [
          ['b.io/x', 1],
          ['a.io/y', 2],
        ],
      ),
      type: 'NamespaceFinalizersRemaining',
      want: [
        'True',
        'SomeFinalizersRemain',
        'Some content in the namespace has finalizers remaining: a.io/y in 2 resource instances, b.io/x in 1 resource instances',
      ],
    },
    {
      reason: 'a failed deletion is a content failure',
      o: observed([], [], ['widgets.example.com: boom']),
      type: 'NamespaceDeletionContentFailure',
      want: ['True', 'ContentDeletionFailed', 'Failed to delete all resource types, 1 remaining: widgets.example.com: boom'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = deletionConditions(c.o).find((x) => x.type === c.type)!;
      assert.deepEqual([got.status, got.reason, got.message], c.want);
    });
  }

  test('finalizers tenants invent are named up to MAX_LISTED, the rest counted', () => {
    const many: [string, number][] = Array.from({ length: MAX_LISTED + 5 }, (_, i) => [`x.io/f${String(i).padStart(3, '0')}`, 1]);
    const msg = deletionConditions(observed([['configmaps.', many.length]], many)).find((c) => c.type === 'NamespaceFinalizersRemaining')!.message;
    assert.equal(msg.split(' in 1 resource instances').length - 1, MAX_LISTED);
    assert.match(msg, / \(and 5 more\)$/);
  });

  test('a transition time moves only when the status changes, and an unchanged report needs no write', () => {
    const first = withTransitionTimes(deletionConditions(observed([['configmaps.', 1]])), [], 't1');
    assert.ok(first.changed);
    assert.ok(first.conditions.every((c) => c.lastTransitionTime === 't1'));
    const same = withTransitionTimes(deletionConditions(observed([['configmaps.', 1]])), first.conditions, 't2');
    assert.equal(same.changed, false);
    const fewer = withTransitionTimes(deletionConditions(observed([['configmaps.', 2]])), first.conditions, 't3');
    assert.ok(fewer.changed, 'a new message is a change');
    assert.equal(fewer.conditions.find((c) => c.type === 'NamespaceContentRemaining')!.lastTransitionTime, 't1', 'same status: time kept');
    const done = withTransitionTimes(deletionConditions(observed()), first.conditions, 't4');
    assert.equal(done.conditions.find((c) => c.type === 'NamespaceContentRemaining')!.lastTransitionTime, 't4');
  });
});
