/**
 * What RBAC is told of Conductor's kinds: the catalog's claim and concrete resources, and
 * which CRDs are claims (category `claim` or label `conductor.io/abstract: "true"`) and which
 * concrete kinds (category `managed`, or annotated `conductor.io/implements`); policyResourcesOf applies it to installed CRDs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import { policyResourcesOf } from '../apiserver/authz/index.js';
import { conductorKinds } from './kinds.js';
import { conductorCrdKinds, conductorRbacKinds } from './rbac-kinds.js';
import type { ClaimTypeIndex } from './admission/claim-types.js';

const crd = (o: { plural: string; categories?: string[]; abstract?: string; scope?: string; implements?: string }): KObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: `${o.plural}.x.example.com`,
    ...(o.abstract ? { labels: { 'conductor.io/abstract': o.abstract } } : {}),
    ...(o.implements ? { annotations: { 'conductor.io/implements': o.implements } } : {}),
  },
  spec: {
    group: 'x.example.com',
    scope: o.scope ?? 'Namespaced',
    names: { plural: o.plural, kind: 'K', ...(o.categories ? { categories: o.categories } : {}) },
  },
});

describe('conductorCrdKinds', () => {
  test('claims by the claim category or the abstract label, concrete kinds by the managed category or the implements annotation', () => {
    const got = policyResourcesOf(
      [
        crd({ plural: 'bycategory', categories: ['claim'] }),
        crd({ plural: 'bylabel', abstract: 'true' }),
        crd({ plural: 'labelfalse', abstract: 'false' }),
        crd({ plural: 'clusterclaim', abstract: 'true', scope: 'Cluster' }),
        crd({ plural: 'concrete', categories: ['managed', 'all'] }),
        crd({ plural: 'outofprocess', implements: 'bylabel.x.example.com' }),
        crd({ plural: 'other', categories: ['all'] }),
      ],
      conductorCrdKinds,
    );
    assert.deepEqual(
      got.claimResources.map((r) => r.resource),
      ['bycategory', 'bylabel'],
    );
    assert.deepEqual(
      got.concreteResources.map((r) => r.resource),
      ['concrete', 'outofprocess'],
    );
  });
  test('a CRD without names or categories is neither', () => {
    const bare: KObject = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'bare' } };
    assert.equal(conductorCrdKinds.isClaim(bare), false);
    assert.equal(conductorCrdKinds.isConcrete(bare), false);
  });
});

describe('conductorRbacKinds', () => {
  test('names every claim and concrete kind of the catalog, and asks the claim-type index which served types are claims', async () => {
    const kinds = conductorKinds();
    const asked: string[] = [];
    const claimTypes = { isClaim: async (rt: { resource: string }) => (asked.push(rt.resource), rt.resource === 'widgets') } as unknown as ClaimTypeIndex;
    const rbac = conductorRbacKinds(kinds, claimTypes);
    assert.deepEqual(
      rbac.resources.claimResources,
      kinds.claimKinds.map((k) => ({ group: k.group, resource: k.plural })),
    );
    assert.deepEqual(
      rbac.resources.concreteResources,
      kinds.concreteKinds.map((k) => ({ group: k.group, resource: k.plural })),
    );
    assert.ok(rbac.resources.claimResources.length > 0 && rbac.resources.concreteResources.length > 0);
    assert.equal(await rbac.isClaim!({ resource: 'widgets' } as never), true);
    assert.equal(await rbac.isClaim!({ resource: 'gadgets' } as never), false);
    assert.deepEqual(asked, ['widgets', 'gadgets']);
  });
});
