/**
 * The implementation of a claim kind by a kind Conductor has no code for: matching portable
 * fields against resources and classes, configuring a class template from the claim, and
 * formatting the details its provider wrote into the claim kind's documented keys.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { MatchCandidate } from '../../providers/spi.js';
import { genericImplementation, MissingConnectionKeysError } from './generic-implementation.js';

const impl = genericImplementation({
  claimKind: { group: 'kv.example.org', kind: 'Store' },
  claimKeys: [
    { name: 'endpoint', optional: false },
    { name: 'token', optional: false },
    { name: 'region', optional: true },
  ],
  concreteKind: 'TinyStore',
  extraKeys: [{ name: 'server', optional: false }],
  specFields: new Set(['maxKeys', 'version', 'mode', 'providerRef', 'writeConnectionSecretToRef', 'sharing', 'claimRef']),
});

const claim = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'kv.example.org/v1',
  kind: 'Store',
  metadata: { namespace: 'a', name: 'c' },
  spec: spec,
});
const resource = (spec: Record<string, unknown>): MatchCandidate => ({
  type: 'resource',
  resource: { apiVersion: 'x/v1', kind: 'TinyStore', metadata: { namespace: 's', name: 'r' }, spec: spec },
});
const cls = (spec?: Record<string, unknown>): MatchCandidate => ({
  type: 'class',
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { namespace: 's', name: 'k' } },
  template: { apiVersion: 'x/v1', kind: 'TinyStore', ...(spec ? { spec: spec as never } : {}) },
});

describe('genericImplementation.match', () => {
  const cases: { reason: string; claim: Record<string, unknown>; candidate: MatchCandidate; want: true | string }[] = [
    { reason: 'a claim with no portable field fits any resource', claim: { requirements: { region: 'eu' } }, candidate: resource({}), want: true },
    { reason: 'an equal field fits', claim: { maxKeys: 3 }, candidate: resource({ maxKeys: 3, claimRef: null }), want: true },
    { reason: 'a different value does not', claim: { maxKeys: 3 }, candidate: resource({ maxKeys: 4 }), want: 'maxKeys is not 3' },
    { reason: 'a resource without the field does not', claim: { maxKeys: 3 }, candidate: resource({}), want: 'maxKeys is not 3' },
    { reason: 'objects compare whole', claim: { mode: { a: 1 } }, candidate: resource({ mode: { a: 1 } }), want: true },
    { reason: 'version: inside the range fits', claim: { version: '>= 2.1' }, candidate: resource({ version: '2.4' }), want: true },
    { reason: 'version: outside the range does not', claim: { version: '>= 2.1' }, candidate: resource({ version: '1.9.0' }), want: 'version not in ">= 2.1"' },
    { reason: 'null claim fields ask nothing', claim: { maxKeys: null }, candidate: resource({}), want: true },
    {
      reason: 'a Shared resource does not fit (a share needs code)',
      claim: {},
      candidate: resource({ sharing: { mode: 'Shared' } }),
      want: 'Shared TinyStore (no code in Conductor to give a claim its own share)',
    },
    { reason: 'a class whose template sets the same value fits', claim: { maxKeys: 3 }, candidate: cls({ maxKeys: 3 }), want: true },
    { reason: 'a class whose template sets another value does not', claim: { maxKeys: 3 }, candidate: cls({ maxKeys: 9 }), want: 'maxKeys is not 3' },
    { reason: 'a class that leaves a field the kind has fits (it is configured)', claim: { maxKeys: 3 }, candidate: cls(), want: true },
    { reason: 'a class cannot set a field the kind lacks', claim: { colour: 'red' }, candidate: cls({}), want: 'TinyStore has no spec.colour' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = impl.match(claim(c.claim), c.candidate);
      assert.deepEqual(got, c.want === true ? { fits: true } : { fits: false, reason: c.want });
    });
  }
});

describe('genericImplementation.configure', () => {
  test("writes the claim's portable fields the template leaves, only where the kind has them, without touching the template", () => {
    const template = { apiVersion: 'x/v1', kind: 'TinyStore', spec: { mode: { a: 1 } } };
    const spec = impl.configure(claim({ maxKeys: 3, colour: 'red', requirements: { capacity: { storage: '1Gi' } }, resourceClass: 'fast' }), template);
    assert.deepEqual(spec, { mode: { a: 1 }, maxKeys: 3 });
    assert.deepEqual(template.spec, { mode: { a: 1 } });
  });
  test("never takes the concrete kind's common fields from a tenant's claim, even where the schemas have them", () => {
    const hostile = claim({
      maxKeys: 1,
      providerRef: { name: 'someone-elses' },
      sharing: { mode: 'Shared' },
      claimRef: { name: 'victim' },
      rebindPolicy: 'Retain',
      capabilities: { region: 'x' },
      managementPolicy: 'ObserveOnly',
    });
    assert.deepEqual(impl.configure(hostile, { apiVersion: 'x/v1', kind: 'TinyStore', spec: {} }), { maxKeys: 1 });
    assert.deepEqual(impl.match(hostile, resource({ maxKeys: 1 })), { fits: true }, 'nor are they matched');
  });
  test("keeps the template's own value", () => {
    assert.deepEqual(impl.configure(claim({ version: '>= 2' }), { apiVersion: 'x/v1', kind: 'TinyStore', spec: { version: '2.4' } }), { version: '2.4' });
  });
});

describe('genericImplementation.formatConnection', () => {
  test("publishes the claim kind's keys and the concrete kind's, and nothing else", () => {
    const out = impl.formatConnection({ endpoint: 'http://x', token: 't', server: 's/r', internal: 'no' });
    assert.deepEqual(out, { endpoint: 'http://x', token: 't', server: 's/r' });
    assert.deepEqual(impl.connectionSecretKeys, ['endpoint', 'token', 'region', 'server']);
  });
  test('a missing required key is an error naming it; an optional one is not', () => {
    assert.throws(
      () => impl.formatConnection({ endpoint: 'http://x', server: 's/r' }),
      (err: unknown) => err instanceof MissingConnectionKeysError && /lack key token, which Store \(kv\.example\.org\) documents/.test(err.message),
    );
    assert.deepEqual(impl.formatConnection({ endpoint: 'e', token: 't', region: 'eu' }), { endpoint: 'e', token: 't', region: 'eu' });
  });
  test('a claim kind that documents no keys publishes what the provider wrote', () => {
    const open = genericImplementation({ claimKind: { group: 'g', kind: 'K' }, claimKeys: [], concreteKind: 'C', extraKeys: [], specFields: undefined });
    assert.deepEqual(open.formatConnection({ a: '1', b: '2' }), { a: '1', b: '2' });
  });
});
