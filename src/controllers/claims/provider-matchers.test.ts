import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { doesNotFit, fits, type ConcreteKind, type MatchCandidate } from '../../providers/spi.js';
import { claimInfoFromObject, classCandidateFromObject, resourceCandidateFromObject, Scheduler } from '../../scheduler/index.js';
import { providerMatchers } from './provider-matchers.js';

const PG = { group: 'storage.conductor.io', kind: 'PostgreSQLInstance' };

/** A kind whose matcher reads the observed version (status.atProvider), which the built-in check cannot see. */
function observedVersionKind(seen: MatchCandidate[]): ConcreteKind {
  return {
    group: 'database.example.io',
    version: 'v1alpha1',
    kind: 'ExampleServer',
    plural: 'exampleservers',
    sharing: 'Exclusive',
    lifecycle: 'Managed',
    deterministicExternalNames: true,
    connector: {
      connect: async () => {
        throw new Error('not used');
      },
    },
    implements: [
      {
        claimKind: PG,
        connectionSecretKeys: [],
        configure: () => ({}),
        formatConnection: (d) => d,
        match(claim, candidate) {
          seen.push(candidate);
          if (candidate.type === 'class') return (candidate.template.spec?.['tier'] as string) === 'gold' ? fits : doesNotFit('only gold classes');
          const observed = (candidate.resource.status as { atProvider?: { version?: string } } | undefined)?.atProvider?.version;
          const wantMajor = Number(String((claim.spec as { version?: string }).version ?? '0').replace(/[^0-9.]/g, ''));
          return observed && Number(observed) >= wantMajor ? fits : doesNotFit(`observed version ${observed ?? 'unknown'} is below ${wantMajor}`);
        },
      },
    ],
  };
}

function resource(name: string, observed: string): KObject {
  return {
    apiVersion: 'database.example.io/v1alpha1',
    kind: 'ExampleServer',
    metadata: { namespace: 'conductor-system', name, uid: `uid-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { rebindPolicy: 'Retain', sharing: { mode: 'Exclusive' } },
    status: { phase: 'Available', atProvider: { version: observed } },
  };
}

const claim: KObject = {
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'PostgreSQLInstance',
  metadata: { namespace: 'app', name: 'db', uid: 'claim-uid' },
  spec: { version: '16' },
};

describe("providers' matchers in the scheduler", () => {
  test("a provider's matcher judges candidates by the whole object (here its observed version), and its reason is the explanation", async () => {
    const seen: MatchCandidate[] = [];
    const scheduler = new Scheduler({ portableMatchers: providerMatchers([observedVersionKind(seen)]) });
    for (const r of [resource('old', '15'), resource('new', '17')]) scheduler.upsert(resourceCandidateFromObject(r, { implements: [PG] }));
    const result = await scheduler.schedule(claimInfoFromObject(claim, {}));
    assert.equal(result.decision.type, 'resource');
    assert.equal(result.decision.type === 'resource' && result.decision.candidate.name, 'new');
    assert.match(result.explanation.message, /rejected: 1 observed version 15 is below 16/);
    assert.ok(
      seen.some((c) => c.type === 'resource' && c.resource.status !== undefined),
      'the matcher saw the stored object, status included',
    );
  });

  test('classes are judged with their template, and a class the provider refuses is not chosen', async () => {
    const seen: MatchCandidate[] = [];
    const scheduler = new Scheduler({ portableMatchers: providerMatchers([observedVersionKind(seen)]) });
    const cls = (name: string, tier: string): KObject => ({
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { namespace: 'conductor-system', name, creationTimestamp: '2026-01-01T00:00:00Z', annotations: { 'conductor.io/is-default-class': 'true' } },
      supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
      template: { apiVersion: 'database.example.io/v1alpha1', kind: 'ExampleServer', spec: { tier } },
    });
    scheduler.upsert(classCandidateFromObject(cls('bronze', 'bronze')));
    scheduler.upsert(classCandidateFromObject(cls('gold', 'gold')));
    const result = await scheduler.schedule(claimInfoFromObject(claim, {}));
    assert.equal(result.decision.type === 'class' && result.decision.candidate.name, 'gold');
    assert.match(result.explanation.message, /only gold classes/);
  });
});
