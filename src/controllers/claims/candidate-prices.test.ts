import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { ConcreteKind, PriceContext } from '../../providers/spi.js';
import { claimInfoFromObject, classCandidateFromObject, placedClassCandidates, resourceCandidateFromObject } from '../../scheduler/index.js';
import { candidatePricer } from './candidate-prices.js';

const BUCKET = { group: 'storage.conductor.io', kind: 'Bucket' };

/** A kind whose price hook records what it was asked and answers 0.02 USD per GiB of the claim in the context's region. */
function fakeKind(seen: PriceContext[]): ConcreteKind {
  return {
    group: 'storage.fake.conductor.io',
    version: 'v1alpha1',
    kind: 'FakeBucket',
    plural: 'fakebuckets',
    sharing: 'Exclusive',
    lifecycle: 'Managed',
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: BUCKET,
        connectionSecretKeys: [],
        match: () => ({ fits: true }),
        configure: () => ({}),
        formatConnection: (d) => d,
        price: (claim, _candidate, context) => {
          seen.push(context);
          const gi = Number(/^(\d+)Gi$/.exec(String((claim.spec as any).requirements.capacity.storage))![1]);
          return { amount: (gi * 0.02).toFixed(2), currency: 'USD', basis: `in ${context.region ?? '?'}`, table: '2024-01-01; test' };
        },
      },
    ],
    connector: { connect: () => Promise.reject(new Error('not used')) },
  };
}

const claim = claimInfoFromObject({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'Bucket',
  metadata: { name: 'b', namespace: 'shop', uid: 'u' },
  spec: { requirements: { capacity: { storage: '10Gi' }, maxMonthlyPrice: '1' } },
});

const cls = (name: string, annotations: Record<string, string> = {}, providerRef?: string): KObject => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'ResourceClass',
  metadata: { name, namespace: 'conductor-system', annotations },
  supportedResources: ['Bucket.v1alpha1.storage.conductor.io'],
  ...(providerRef ? { providerRef: { name: providerRef } } : {}),
  capabilities: { region: 'us-east-1' },
  template: { apiVersion: 'storage.fake.conductor.io/v1alpha1', kind: 'FakeBucket', spec: {} },
});

const providerObj: KObject = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'cloud', namespace: 'conductor-system' },
  spec: { type: 'aws', region: 'eu-west-1' },
};

function pricer(seen: PriceContext[] = []) {
  const kind = fakeKind(seen);
  return candidatePricer({
    kind: (g, k) => (g === kind.group && k === kind.kind ? kind : undefined),
    provider: (ns, name) => (ns === 'conductor-system' && name === 'cloud' ? providerObj : undefined),
    systemNamespace: 'conductor-system',
  });
}

describe('candidatePricer', () => {
  test("a class's conductor.io/monthly-cost wins over its kind's price (with a currency, or USD)", () => {
    assert.deepEqual(pricer()(claim, classCandidateFromObject(cls('a', { 'conductor.io/monthly-cost': '25' }))), {
      amount: 25,
      currency: 'USD',
      basis: "the class's annotation conductor.io/monthly-cost",
    });
    assert.equal(pricer()(claim, classCandidateFromObject(cls('a', { 'conductor.io/monthly-cost': '12.50 EUR' }))).amount, 12.5);
    assert.match(pricer()(claim, classCandidateFromObject(cls('a', { 'conductor.io/monthly-cost': 'lots' }))).note ?? '', /is "lots", expected an amount/);
  });

  test("otherwise the template kind's hook prices the claim's size, with the class's Provider and region", () => {
    const seen: PriceContext[] = [];
    const p = pricer(seen)(claim, classCandidateFromObject(cls('a', {}, 'cloud')));
    assert.deepEqual(p, { amount: 0.2, currency: 'USD', basis: 'in us-east-1; 2024-01-01; test' });
    assert.equal(seen[0].provider, providerObj);
  });

  test('a class placed on a Provider is priced with that Provider', () => {
    const seen: PriceContext[] = [];
    const [placed] = placedClassCandidates(
      classCandidateFromObject(cls('a')),
      'aws',
      [{ namespace: 'conductor-system', name: 'cloud', type: 'aws', ready: true, capabilities: { capacity: {} } }],
      'conductor-system',
    );
    pricer(seen)(claim, placed);
    assert.equal(seen[0].provider, providerObj);
  });

  test('a kind without a hook, or not served: no price, saying what to set', () => {
    const other = { ...cls('a'), template: { apiVersion: 'x.io/v1', kind: 'Other', spec: {} } };
    assert.deepEqual(pricer()(claim, classCandidateFromObject(other)), { note: "Other states no price: set the class's annotation conductor.io/monthly-cost" });
  });

  test('a resource: what it advertises in status.atProvider, before its kind', () => {
    const resource = (status: object): KObject => ({
      apiVersion: 'storage.fake.conductor.io/v1alpha1',
      kind: 'FakeBucket',
      metadata: { name: 'r', namespace: 'conductor-system' },
      spec: {},
      status,
    });
    const implementsBucket = { implements: [BUCKET] };
    const advertised = resourceCandidateFromObject(
      resource({ atProvider: { monthlyPrice: { amount: '7.25', currency: 'USD', basis: 'b', table: 't' } } }),
      implementsBucket,
    );
    assert.equal(pricer()(claim, advertised).amount, 7.25);
    assert.deepEqual(pricer()(claim, resourceCandidateFromObject(resource({ atProvider: { priceNote: 'per request' } }), implementsBucket)), {
      note: 'per request',
    });
    assert.equal(pricer()(claim, resourceCandidateFromObject(resource({}), implementsBucket)).amount, 0.2);
  });
});
