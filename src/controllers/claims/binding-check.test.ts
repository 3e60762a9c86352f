import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { admitsClaim, resourceNamesClaim } from './binding-check.js';

const claim: KObject = { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', metadata: { namespace: 'team-a', name: 'db', uid: 'uid-a' } };
const ref = (over: Record<string, unknown> = {}) => ({ namespace: 'team-a', name: 'db', uid: 'uid-a', ...over });
const exclusive = (claimRef?: unknown): KObject => ({
  apiVersion: 'x/v1',
  kind: 'R',
  metadata: { namespace: 'conductor-system', name: 'r' },
  spec: { ...(claimRef ? { claimRef } : {}) },
});
const shared = (bindings: unknown): KObject => ({
  apiVersion: 'x/v1',
  kind: 'R',
  metadata: { namespace: 'conductor-system', name: 'r' },
  spec: { sharing: { mode: 'Shared' } },
  status: { bindings },
});

describe('resourceNamesClaim', () => {
  for (const c of [
    { reason: 'Exclusive: claimRef names namespace, name and uid', resource: exclusive(ref()), want: true },
    { reason: 'Exclusive: no claimRef', resource: exclusive(), want: false },
    { reason: 'Exclusive: another uid (a claim of the same name, recreated)', resource: exclusive(ref({ uid: 'uid-old' })), want: false },
    { reason: 'Exclusive: the same uid in another namespace', resource: exclusive(ref({ namespace: 'team-b' })), want: false },
    { reason: 'Exclusive: the same uid under another name', resource: exclusive(ref({ name: 'other' })), want: false },
    { reason: 'Exclusive: a reservation without uid binds nothing yet', resource: exclusive(ref({ uid: undefined })), want: false },
    { reason: 'Shared: a binding names the claim', resource: shared([{ claimRef: ref({ uid: 'x' }) }, { claimRef: ref() }]), want: true },
    {
      reason: 'Shared: a claimRef on the spec is not a binding',
      resource: { ...shared([]), spec: { sharing: { mode: 'Shared' }, claimRef: ref() } },
      want: false,
    },
    { reason: 'Shared: bindings of others only', resource: shared([{ claimRef: ref({ uid: 'uid-b', namespace: 'team-b' }) }]), want: false },
    { reason: 'Shared: bindings not a list', resource: shared('nonsense'), want: false },
    { reason: 'Shared: a binding without claimRef', resource: shared([null, {}]), want: false },
  ]) {
    test(c.reason, () => assert.equal(resourceNamesClaim(c.resource, claim), c.want));
  }
});

describe('admitsClaim', () => {
  for (const c of [
    { reason: 'no claimRef: free', ref: undefined, want: true },
    { reason: 'a reservation by namespace and name', ref: ref({ uid: undefined }), want: true },
    { reason: 'the claim itself', ref: ref(), want: true },
    {
      reason: 'a reservation with the kind and group of the claim',
      ref: ref({ uid: undefined, kind: 'postgresqlinstance', apiVersion: 'storage.conductor.io/v1' }),
      want: true,
    },
    { reason: 'another uid: a claim of that name before this one', ref: ref({ uid: 'uid-old' }), want: false },
    { reason: 'another namespace', ref: ref({ uid: undefined, namespace: 'team-b' }), want: false },
    { reason: 'another kind', ref: ref({ uid: undefined, kind: 'MySQLInstance' }), want: false },
    { reason: 'another group', ref: ref({ uid: undefined, apiVersion: 'other.io/v1' }), want: false },
  ]) {
    test(c.reason, () => assert.equal(admitsClaim(c.ref, claim), c.want));
  }
});
