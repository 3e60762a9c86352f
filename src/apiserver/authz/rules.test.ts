import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { breakdownRule, compactRules, describeRule, ruleAllows, ruleCovers, rulesOf, uncoveredRules, type PolicyRule, type RuleRequest } from './rules.js';

const res = (verb: string, group: string, resource: string, subresource = '', name = ''): RuleRequest => ({
  verb,
  resourceRequest: true,
  group,
  resource,
  subresource,
  name,
  path: '',
});
const url = (verb: string, path: string): RuleRequest => ({ verb, resourceRequest: false, group: '', resource: '', subresource: '', name: '', path });

describe('ruleAllows', () => {
  const cases: Array<{ reason: string; rule: PolicyRule; req: RuleRequest; want: boolean }> = [
    {
      reason: 'exact verb, core group, resource',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
      req: res('get', '', 'secrets'),
      want: true,
    },
    { reason: 'other verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }, req: res('list', '', 'secrets'), want: false },
    { reason: 'verb wildcard', rule: { verbs: ['*'], apiGroups: [''], resources: ['secrets'] }, req: res('escalate', '', 'secrets'), want: true },
    {
      reason: 'core group does not match a named group',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
      req: res('get', 'core.conductor.io', 'secrets'),
      want: false,
    },
    {
      reason: 'group wildcard',
      rule: { verbs: ['get'], apiGroups: ['*'], resources: ['providers'] },
      req: res('get', 'core.conductor.io', 'providers'),
      want: true,
    },
    {
      reason: 'resource wildcard covers subresources',
      rule: { verbs: ['get'], apiGroups: ['x'], resources: ['*'] },
      req: res('get', 'x', 'things', 'status'),
      want: true,
    },
    {
      reason: 'plain resource does not cover its subresource',
      rule: { verbs: ['get'], apiGroups: ['x'], resources: ['things'] },
      req: res('get', 'x', 'things', 'status'),
      want: false,
    },
    {
      reason: 'resource/subresource',
      rule: { verbs: ['update'], apiGroups: ['x'], resources: ['things/status'] },
      req: res('update', 'x', 'things', 'status'),
      want: true,
    },
    {
      reason: 'resource/subresource does not cover the resource',
      rule: { verbs: ['update'], apiGroups: ['x'], resources: ['things/status'] },
      req: res('update', 'x', 'things'),
      want: false,
    },
    {
      reason: '*/subresource',
      rule: { verbs: ['update'], apiGroups: ['x'], resources: ['*/status'] },
      req: res('update', 'x', 'others', 'status'),
      want: true,
    },
    {
      reason: '*/subresource does not cover the resource',
      rule: { verbs: ['update'], apiGroups: ['x'], resources: ['*/status'] },
      req: res('update', 'x', 'others'),
      want: false,
    },
    {
      reason: 'resourceNames match',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      req: res('get', '', 'secrets', '', 'a'),
      want: true,
    },
    {
      reason: 'resourceNames other name',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      req: res('get', '', 'secrets', '', 'b'),
      want: false,
    },
    {
      reason: 'resourceNames never cover a list (no name)',
      rule: { verbs: ['list'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      req: res('list', '', 'secrets'),
      want: false,
    },
    { reason: 'resource rule does not cover a URL', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, req: url('get', '/healthz'), want: false },
    { reason: 'URL exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, req: url('get', '/healthz'), want: true },
    { reason: 'URL exact is not a prefix', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, req: url('get', '/healthz/etcd'), want: false },
    { reason: 'URL trailing star', rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, req: url('get', '/apis/core.conductor.io/v1alpha1'), want: true },
    { reason: 'URL trailing star needs the prefix', rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, req: url('get', '/apis'), want: false },
    { reason: 'URL star', rule: { verbs: ['get'], nonResourceURLs: ['*'] }, req: url('get', '/anything'), want: true },
    { reason: 'URL rule does not cover resources', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, req: res('get', '', 'secrets'), want: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(ruleAllows(c.rule, c.req), c.want));
});

describe('ruleCovers and uncoveredRules', () => {
  const cases: Array<{ reason: string; owner: PolicyRule[]; wanted: PolicyRule[]; missing: PolicyRule[] }> = [
    {
      reason: 'identical rule',
      owner: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }],
      wanted: [{ verbs: ['list', 'get'], apiGroups: [''], resources: ['secrets'] }],
      missing: [],
    },
    {
      reason: 'one verb more',
      owner: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
      wanted: [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['secrets'] }],
      missing: [{ verbs: ['delete'], apiGroups: [''], resources: ['secrets'] }],
    },
    {
      reason: 'wildcards cover everything',
      owner: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      wanted: [{ verbs: ['get'], apiGroups: ['a'], resources: ['b/c'], resourceNames: ['n'] }],
      missing: [],
    },
    {
      reason: 'a wildcard verb is not covered by a list of verbs',
      owner: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }],
      wanted: [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }],
      missing: [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }],
    },
    {
      reason: 'named rule covered by unnamed',
      owner: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
      wanted: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a', 'b'] }],
      missing: [],
    },
    {
      reason: 'unnamed rule not covered by named',
      owner: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }],
      wanted: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
      missing: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
    },
    {
      reason: '*/status covers x/status',
      owner: [{ verbs: ['get'], apiGroups: ['g'], resources: ['*/status'] }],
      wanted: [{ verbs: ['get'], apiGroups: ['g'], resources: ['x/status'] }],
      missing: [],
    },
    {
      reason: 'URL prefix covers a longer URL',
      owner: [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }],
      wanted: [{ verbs: ['get'], nonResourceURLs: ['/apis/x', '/apis/*'] }],
      missing: [],
    },
    {
      reason: 'URL not covered',
      owner: [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }],
      wanted: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
      missing: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
    },
    {
      reason: 'rules split over several owner rules',
      owner: [
        { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
        { verbs: ['list'], apiGroups: [''], resources: ['secrets', 'configmaps'] },
      ],
      wanted: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }],
      missing: [],
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(uncoveredRules(c.owner, c.wanted), c.missing));

  test('compactRules merges verbs and describeRule names every field', () => {
    const merged = compactRules([
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
      { verbs: ['list'], apiGroups: [''], resources: ['secrets'] },
      { verbs: ['get'], nonResourceURLs: ['/x'] },
    ]);
    assert.deepEqual(merged, [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] },
      { verbs: ['get'], nonResourceURLs: ['/x'] },
    ]);
    assert.equal(describeRule(merged[0]), '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}');
  });

  test('rulesOf skips malformed entries and keeps string lists', () => {
    assert.deepEqual(rulesOf({ rules: [null, 'x', { verbs: ['get', 3], apiGroups: [''], resources: ['a'] }] }), [
      { verbs: ['get'], apiGroups: [''], resources: ['a'] },
    ]);
    assert.deepEqual(rulesOf({}), []);
  });
});

describe('properties', () => {
  const word = fc.constantFrom('', 'a', 'b', 'c', '*');
  const name = fc.constantFrom('a', 'b', 'c');
  const rule = fc.record({
    verbs: fc.array(fc.constantFrom('get', 'list', 'create', '*'), { minLength: 1, maxLength: 3 }),
    apiGroups: fc.array(word, { minLength: 1, maxLength: 2 }),
    resources: fc.array(fc.constantFrom('a', 'b', 'a/s', '*/s', '*'), { minLength: 1, maxLength: 2 }),
    resourceNames: fc.array(name, { maxLength: 2 }),
  });
  const request = fc.record({
    verb: fc.constantFrom('get', 'list', 'create'),
    group: fc.constantFrom('', 'a', 'b'),
    resource: fc.constantFrom('a', 'b'),
    subresource: fc.constantFrom('', 's'),
    name: fc.constantFrom('', 'a', 'b'),
  });

  test('a rule covers itself', () => {
    fc.assert(fc.property(rule, (r) => uncoveredRules([r], [r]).length === 0));
  });

  test('when owner rules cover a rule, whatever the rule allows they allow too', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 3 }), rule, request, (owner, wanted, q) => {
        const req: RuleRequest = { ...q, resourceRequest: true, path: '' };
        if (uncoveredRules(owner, [wanted]).length > 0) return true;
        return !ruleAllows(wanted, req) || owner.some((o) => ruleAllows(o, req));
      }),
    );
  });

  test('the breakdown of a rule allows exactly what the rule allows', () => {
    fc.assert(
      fc.property(rule, request, (r, q) => {
        const req: RuleRequest = { ...q, resourceRequest: true, path: '' };
        return ruleAllows(r, req) === breakdownRule(r).some((u) => ruleAllows(u, req));
      }),
    );
  });

  test('ruleCovers is reflexive on broken-down rules', () => {
    fc.assert(fc.property(rule, (r) => breakdownRule(r).every((u) => ruleCovers(u, u))));
  });
});
