import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareVersionPriority } from './version-priority.js';

describe('compareVersionPriority', () => {
  const cases: { reason: string; input: string[]; want: string[] }[] = [
    { reason: 'GA before beta before alpha', input: ['v1alpha1', 'v1', 'v1beta1'], want: ['v1', 'v1beta1', 'v1alpha1'] },
    { reason: 'higher GA major first', input: ['v1', 'v10', 'v2'], want: ['v10', 'v2', 'v1'] },
    {
      reason: 'within a stage: higher major, then higher minor',
      input: ['v1beta1', 'v2beta1', 'v1beta2', 'v3beta1'],
      want: ['v3beta1', 'v2beta1', 'v1beta2', 'v1beta1'],
    },
    {
      reason: 'non-Kubernetes versions last, alphabetically',
      input: ['foo10', 'v1alpha1', 'foo1', 'v1', 'v12alpha1'],
      want: ['v1', 'v12alpha1', 'v1alpha1', 'foo1', 'foo10'],
    },
    { reason: 'leading zeros are not Kubernetes versions', input: ['v01', 'v1'], want: ['v1', 'v01'] },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual([...c.input].sort(compareVersionPriority), c.want);
    });
  }

  const version = fc.oneof(
    fc
      .tuple(fc.integer({ min: 1, max: 30 }), fc.constantFrom('', 'alpha', 'beta'), fc.integer({ min: 1, max: 9 }))
      .map(([major, stage, minor]) => (stage ? `v${major}${stage}${minor}` : `v${major}`)),
    fc.string({ maxLength: 6 }),
  );

  test('is antisymmetric and reflexive-zero', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        assert.equal(compareVersionPriority(a, a), 0);
        assert.equal(Math.sign(compareVersionPriority(a, b)) + Math.sign(compareVersionPriority(b, a)), 0);
      }),
    );
  });

  test('sorting is a total order (sorted output is pairwise ordered)', () => {
    fc.assert(
      fc.property(fc.array(version, { maxLength: 12 }), (list) => {
        const sorted = [...list].sort(compareVersionPriority);
        for (let i = 1; i < sorted.length; i++) assert.ok(compareVersionPriority(sorted[i - 1], sorted[i]) <= 0);
      }),
    );
  });
});
