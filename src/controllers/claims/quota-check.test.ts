import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { claimInfoFromObject, classCandidateFromObject } from '../../scheduler/index.js';
import { IS_DEFAULT_CLASS_ANNOTATION } from '../../apis/index.js';
import { MONTHLY_COST_ANNOTATION, RESOURCE_CLASS_LABEL } from '../../apis/quota/usage.js';
import { classQuotaCheck } from './quota-check.js';
import { boundResourceIndex } from './binding-check.js';

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
});

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

/** The resource a class made for a claim, its spec.claimRef naming the claim (the record quota believes). */
const madeFor = (c: KObject, className?: string): KObject => ({
  apiVersion: 'database.memory.conductor.io/v1alpha1',
  kind: 'MemoryDatabase',
  metadata: {
    name: `${c.metadata.name}-db`,
    namespace: 'conductor-system',
    ...(className ? { labels: { [RESOURCE_CLASS_LABEL]: `conductor-system.${className}` } } : {}),
  },
  spec: { claimRef: { namespace: c.metadata.namespace, name: c.metadata.name, uid: c.metadata.uid } },
});

/** Resources for every claim whose status says it is bound (honest claims: their records agree). */
const recordsOf = (claims: KObject[]) =>
  claims
    .filter((c) => (c.status as { classRef?: { name: string } } | undefined)?.classRef)
    .map((c) => madeFor(c, (c.status as { classRef: { name: string } }).classRef.name));

function check(
  classes: KObject[],
  quotas: KObject[],
  candidate: KObject,
  claims: KObject[] = [claim],
  resources: KObject[] = recordsOf(claims),
): string | undefined {
  const c = classCandidateFromObject(candidate);
  const bound = boundResourceIndex(resources);
  const fn = classQuotaCheck({
    quotasIn: (ns) => quotas.filter((q) => q.metadata.namespace === ns),
    claimsIn: (ns) => claims.filter((o) => o.metadata.namespace === ns),
    classes: () => classes,
    classOf: (cand) => classes.find((x) => x.metadata.name === cand.name),
    boundTo: bound,
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
    {
      reason: 'a class dearer than the limit on its own is refused',
      classes: [cheap, dear],
      quotas: [quota({ 'cost.monthly': '100' })],
      candidate: dear,
      want: /cost\.monthly would be 200, over 100/,
    },
    {
      reason: 'a class without a price costs nothing',
      classes: [cls('free')],
      quotas: [quota({ 'cost.monthly': '0' })],
      candidate: cls('free'),
      claims: [claim, bound('a', 'u2')],
      want: undefined,
    },
    {
      reason: 'the claim being scheduled is not counted twice (it is in the namespace too)',
      classes: [cheap],
      quotas: [quota({ 'cost.monthly': '20' })],
      candidate: cheap,
      claims: [claim],
      want: undefined,
    },
    {
      // A status written by the claim's owner: classRef to a free class, resourceRef to anything.
      reason: 'a forged status (classRef to a free class) is not believed: a claim no resource binds counts at the dearest class it could get',
      classes: [cheap, cls('free')],
      quotas: [quota({ 'cost.monthly': '50' })],
      candidate: cheap,
      claims: [claim, claimObj('a', 'u2', 'free'), claimObj('b', 'u3', 'free')],
      resources: [],
      want: /cost\.monthly would be 60, over 50/,
    },
    {
      reason: "a claim is priced by the class label of the resource binding it, whatever its status's classRef says",
      classes: [cheap, cls('free')],
      quotas: [quota({ 'cost.monthly': '50' })],
      candidate: cheap,
      claims: [claim, claimObj('a', 'u2', 'free'), claimObj('b', 'u3', 'free')],
      resources: [madeFor(claimObj('a', 'u2'), 'cheap'), madeFor(claimObj('b', 'u3'), 'cheap')],
      want: /cost\.monthly would be 60, over 50/,
    },
    {
      reason: "a resource whose claimRef names another uid binds nothing: the claim's forged status does not make it free",
      classes: [cheap],
      quotas: [quota({ 'cost.monthly': '50' })],
      candidate: cheap,
      claims: [claim, claimObj('a', 'u2', 'cheap'), claimObj('b', 'u3', 'cheap')],
      resources: [madeFor(claimObj('a', 'other-uid')), madeFor(claimObj('b', 'other-uid'))],
      want: /cost\.monthly would be 60, over 50/,
    },
    {
      reason: 'a claim bound to a resource no class made costs nothing',
      classes: [cheap],
      quotas: [quota({ 'cost.monthly': '20' })],
      candidate: cheap,
      claims: [claim, claimObj('a', 'u2'), claimObj('b', 'u3')],
      resources: [madeFor(claimObj('a', 'u2')), madeFor(claimObj('b', 'u3'))],
      want: undefined,
    },
  ] as { reason: string; classes: KObject[]; quotas: KObject[]; candidate: KObject; claims?: KObject[]; resources?: KObject[]; want: RegExp | undefined }[]) {
    test(c.reason, () => {
      const got = check(c.classes, c.quotas, c.candidate, c.claims, c.resources);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', c.want);
    });
  }
});
