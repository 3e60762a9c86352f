/** summarizeRules: a SelfSubjectRulesReview's rules as the verbs allowed on each resource. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeRules } from './permissions.js';

describe('summarizeRules', () => {
  const cases: { reason: string; status: unknown; want: unknown }[] = [
    {
      reason: 'everything on everything is *',
      status: { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] },
      want: { namespace: 'default', verbs: { '*': ['*'] } },
    },
    {
      reason: 'core resources by plural, others with their group; verbs merged and sorted',
      status: {
        resourceRules: [
          { verbs: ['get', 'patch'], apiGroups: [''], resources: ['configmaps'] },
          { verbs: ['create'], apiGroups: [''], resources: ['configmaps', 'secrets'] },
          { verbs: ['list'], apiGroups: ['example.com'], resources: ['widgets'] },
        ],
        incomplete: true,
      },
      want: { namespace: 'default', verbs: { configmaps: ['create', 'get', 'patch'], secrets: ['create'], 'widgets.example.com': ['list'] }, incomplete: true },
    },
    { reason: 'no status: no verbs', status: undefined, want: { namespace: 'default', verbs: {} } },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summarizeRules('default', c.status), c.want));
  }

  test('at most 50 resources are shown, the rest counted', () => {
    const resources = Array.from({ length: 60 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    const got = summarizeRules('default', { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources }] });
    assert.equal(Object.keys(got.verbs as object).length, 50);
    assert.equal(got.moreResources, 10);
  });
});
