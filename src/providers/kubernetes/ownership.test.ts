import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KObject } from '../../machinery/object.js';
import { ownedElsewhereMessage, ownershipOf, OWNER_UID_ANNOTATION, type Ownership } from './ownership.js';

const NAME = 'v1/ConfigMap/default/shop-media';
const resource = (annotations: Record<string, string> = {}): KObject => ({
  apiVersion: 'kubernetes.conductor.io/v1alpha1',
  kind: 'KubernetesObject',
  metadata: { namespace: 'conductor-system', name: 'k', uid: 'uid-mine', annotations },
});
const live = (mark?: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'shop-media', namespace: 'default', uid: 'target-uid', ...(mark ? { annotations: { [OWNER_UID_ANNOTATION]: mark } } : {}) },
});

describe('ownershipOf', () => {
  const cases: { reason: string; resource: KObject; live: JsonObject; observeOnly?: boolean; want: Ownership }[] = [
    { reason: 'marked with its uid: ours', resource: resource(), live: live('uid-mine'), want: { owned: true, why: 'Marked' } },
    { reason: "marked with another's uid: not ours", resource: resource(), live: live('uid-other'), want: { owned: false, why: 'MarkedForAnother' } },
    { reason: 'unmarked (not made by Conductor): not ours', resource: resource(), live: live(), want: { owned: false, why: 'Unmarked' } },
    {
      reason: 'ObserveOnly reads what the admin named',
      resource: resource(),
      live: live('uid-other'),
      observeOnly: true,
      want: { owned: true, why: 'ObserveOnly' },
    },
    {
      reason: 'an admin import: external-name names it and no create was ever made',
      resource: resource({ 'conductor.io/external-name': NAME }),
      live: live('uid-other'),
      want: { owned: true, why: 'Import' },
    },
    {
      reason: 'an external-name written by an earlier create is no import',
      resource: resource({
        'conductor.io/external-name': NAME,
        'conductor.io/external-create-pending': '2026-01-01T00:00:00Z',
        'conductor.io/external-create-succeeded': '2026-01-01T00:00:00Z',
      }),
      live: live('uid-other'),
      want: { owned: false, why: 'MarkedForAnother' },
    },
    {
      reason: 'created by this KubernetesObject before owner marks existed',
      resource: resource({
        'conductor.io/external-name': NAME,
        'conductor.io/external-create-pending': '2026-01-01T00:00:00Z',
        'conductor.io/external-create-succeeded': '2026-01-01T00:00:00Z',
      }),
      live: live(),
      want: { owned: true, why: 'CreatedBeforeMarks' },
    },
    {
      reason: 'external-name naming another object is no import',
      resource: resource({ 'conductor.io/external-name': 'v1/ConfigMap/default/other' }),
      live: live('uid-other'),
      want: { owned: false, why: 'MarkedForAnother' },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(ownershipOf(c.resource, NAME, c.live, c.observeOnly ?? false), c.want));
  }

  test("the message names only the object the claim chose, never the other owner's uid", () => {
    const m = ownedElsewhereMessage('ConfigMap default/shop-media', 'MarkedForAnother');
    assert.match(m, /^ConfigMap default\/shop-media already exists in the target and is kept by another KubernetesObject/);
    assert.doesNotMatch(m, /uid-other/);
  });
});
