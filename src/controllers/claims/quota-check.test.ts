import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { claimInfoFromObject, classCandidateFromObject, type ClassCandidate } from '../../scheduler/index.js';
import { IS_DEFAULT_CLASS_ANNOTATION } from '../../apis/index.js';
import { MONTHLY_COST_ANNOTATION } from '../../apis/quota/usage.js';
import { classQuotaCheck } from './quota-check.js';

const cls = (name: string, price?: string, isDefault = true): KObject => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'ResourceClass',
  metadata: {
    name,
    namespace: 'conductor-system',
    annotations: { ...(price !== undefined ? { [MONTHLY_COST_ANNOTATION]: price } : {}), ...(isDefault ? { [IS_DEFAULT_CLASS_ANNOTATION]: 'true' } : {}) },
  },
  resourceClass: name,
  supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
  template: { apiVersion: 'database.memory.conductor.io/v1alpha1', kind: 'MemoryDatabase', spec: {} },
} as KObject);

const quota = (hard: Record<string, string>): KObject => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'ClaimQuota',
  metadata: { name: 'team-quota', namespace: 'team' },
  spec: { hard },
});

const claimObj = (name: string, uid: string, boundToClass?: string): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'PostgreSQLInstance',
  metadata: { name, namespace: 'team', uid },
  spec: {},
  ...(boundToClass ? { status: { phase: 'Bound', classRef: { namespace: 'conductor-system', name: boundToClass }, resourceRef: { name: `${name}-db` } } } : {}),
});

const claim = claimObj('db', 'u1');

function check(classes: KObject[], quotas: KObject[], candidate: KObject, claims: KObject[] = [claim]): string | undefined {
  const c = classCandidateFromObject(candidate) as ClassCandidate;
  const fn = classQuotaCheck({
    quotasIn: (ns) => quotas.filter((q) => q.metadata.namespace === ns),
    claimsIn: (ns) => claims.filter((o) => o.metadata.namespace === ns),
    classes: () => classes,
    classOf: (cand) => classes.find((x) => x.metadata.name === cand.name),
  });
  return fn(claimInfoFromObject(claim), c);
}

describe('classQuotaCheck (the scheduler Quota filter)', () => {
  const cheap = cls('cheap', '20');
  const dear = cls('dear', '200', false);
  const bound = (name: string, uid: string) => claimObj(name, uid, 'cheap');
  for (const c of [
    { reason: 'no quota in the namespace: every class passes', classes: [cheap], quotas: [], candidate: cheap, want: undefined },
    { reason: 'a quota without cost.monthly does not look at prices', classes: [cheap], quotas: [quota({ claims: '5' })], candidate: cheap, want: undefined },
    { reason: 'the first priced claim under the limit passes', classes: [cheap], quotas: [quota({ 'cost.monthly': '50' })], candidate: cheap, want: undefined },
    {
      reason: 'other claims (bound, at their class price) plus this class over the limit: refused',
      classes: [cheap],
      quotas: [quota({ 'cost.monthly': '50' })],
      candidate: cheap,
      claims: [claim, bound('a', 'u2'), bound('b', 'u3')],
      want: /cost\.monthly would be 60, over 50 in ClaimQuota team-quota \(class costs 20 a month\)/,
    },
    {
      reason: 'exactly at the limit is allowed',
      classes: [cheap],
      quotas: [quota({ 'cost.monthly': '60' })],
      candidate: cheap,
      claims: [claim, bound('a', 'u2'), bound('b', 'u3')],
      want: undefined,
    },
    { reason: 'a class dearer than the limit on its own is refused', classes: [cheap, dear], quotas: [quota({ 'cost.monthly': '100' })], candidate: dear, want: /cost\.monthly would be 200, over 100/ },
    { reason: 'a class without a price costs nothing', classes: [cls('free')], quotas: [quota({ 'cost.monthly': '0' })], candidate: cls('free'), claims: [claim, bound('a', 'u2')], want: undefined },
    {
      reason: 'the claim being scheduled is not counted twice (it is in the namespace too)',
      classes: [cheap],
      quotas: [quota({ 'cost.monthly': '20' })],
      candidate: cheap,
      claims: [claim],
      want: undefined,
    },
  ]) {
    test(c.reason, () => {
      const got = check(c.classes, c.quotas, c.candidate, c.claims);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', c.want);
    });
  }
});
