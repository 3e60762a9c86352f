/**
 * defineProviderKind writes a concrete kind's CRD, its implemented claim kinds and the keys it
 * publishes from one list; startedKindProblems and defineProvider hold a provider's running
 * kinds to what it declared.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { s } from '../apis/schema/builder.js';
import { IMPLEMENTS_ANNOTATION } from '../apis/well-known.js';
import { redisClusterKind, REDIS_CONNECTION_KEYS } from '../apis/cache/kinds.js';
import { bucketKind, BUCKET_CONNECTION_KEYS } from '../apis/storage/kinds.js';
import { defineProvider, defineProviderKind, kindNames, ProviderStartError, startedKindProblems } from './kind-definition.js';
import type { ClaimImplementation, ConcreteKind, ConcreteKindDefinition, ProviderModule } from './spi.js';
import { doesNotFit } from './spi.js';

const cacheKind = () =>
  defineProviderKind({
    group: 'cache.example.io',
    version: 'v1alpha1',
    kind: 'ExampleCache',
    plural: 'examplecaches',
    shortNames: [],
    description: 'An ExampleCache is a cache for tests.',
    sharing: 'Shared',
    lifecycle: 'Managed',
    implements: [{ claim: redisClusterKind, portableKeys: REDIS_CONNECTION_KEYS, connectionSecretKeys: [...REDIS_CONNECTION_KEYS, 'tlsCA'] }],
    fields: { size: s.integer({ minimum: 1 }).optional() },
  });

const description = (def: ConcreteKindDefinition) =>
  (def.crd().spec as { versions: { schema: { openAPIV3Schema: { description: string } } }[] }).versions[0].schema.openAPIV3Schema.description;

/** A running kind that implements `claims` (claim kind name → keys) the way a provider's start would build it. */
function running(def: ConcreteKindDefinition, overrides: Partial<ConcreteKind> = {}, keys?: readonly string[]): ConcreteKind {
  const impls: ClaimImplementation[] = def.implements.map((i) => ({
    claimKind: i.claimKind,
    connectionSecretKeys: keys ?? i.connectionSecretKeys,
    match: () => doesNotFit('test'),
    configure: () => ({}),
    formatConnection: (d) => d,
  }));
  return {
    ...kindNames(def),
    deterministicExternalNames: true,
    implements: impls,
    connector: { connect: () => Promise.reject(new Error('not in this test')) },
    ...overrides,
  };
}

describe('defineProviderKind', () => {
  test('the CRD names the implemented claim kinds and its description lists the published keys, its own ones said', () => {
    const def = cacheKind();
    assert.equal(def.crd().metadata.annotations?.[IMPLEMENTS_ANNOTATION], 'redisclusters.cache.conductor.io');
    assert.match(
      description(def),
      /^An ExampleCache is a cache for tests\. For a RedisCluster claim it publishes the connection keys host, port, password, uri, tlsCA \(beyond the claim kind's, its own: tlsCA\)\.$/,
    );
    assert.deepEqual(def.implements, [
      { claimKind: { group: 'cache.conductor.io', kind: 'RedisCluster' }, connectionSecretKeys: ['host', 'port', 'password', 'uri', 'tlsCA'] },
    ]);
    assert.equal(def.sharing, 'Shared');
    assert.equal(def.lifecycle, 'Managed');
  });

  test('a Shared kind defaults spec.sharing.mode to Shared; an Exclusive kind sets no default', () => {
    const sharingOf = (def: ConcreteKindDefinition) =>
      (def.crd().spec as { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: { sharing: { default?: unknown } } } } } } }[] })
        .versions[0].schema.openAPIV3Schema.properties.spec.properties.sharing.default;
    assert.deepEqual(sharingOf(cacheKind()), { mode: 'Shared' });
    const exclusive = defineProviderKind({
      group: 'storage.example.io',
      version: 'v1alpha1',
      kind: 'ExampleBucket',
      plural: 'examplebuckets',
      shortNames: [],
      description: 'A bucket.',
      sharing: 'Exclusive',
      lifecycle: 'Managed',
      implements: [{ claim: bucketKind, portableKeys: BUCKET_CONNECTION_KEYS, connectionSecretKeys: BUCKET_CONNECTION_KEYS }],
      fields: {},
    });
    assert.equal(sharingOf(exclusive), undefined);
    assert.match(description(exclusive), /For a Bucket claim it publishes the connection keys endpoint, bucket, region, accessKeyId, secretAccessKey\.$/);
  });

  test('a kind that would publish less than the claim kind documents is refused, naming the missing keys', () => {
    assert.throws(
      () =>
        defineProviderKind({
          group: 'cache.example.io',
          version: 'v1alpha1',
          kind: 'ThinCache',
          plural: 'thincaches',
          shortNames: [],
          description: 'Thin.',
          sharing: 'Exclusive',
          lifecycle: 'Managed',
          implements: [{ claim: redisClusterKind, portableKeys: REDIS_CONNECTION_KEYS, connectionSecretKeys: ['host', 'port'] }],
          fields: {},
        }),
      /ThinCache publishes no password, uri for RedisCluster claims/,
    );
  });
});

describe('startedKindProblems', () => {
  const def = cacheKind();
  const cases: { reason: string; running: ConcreteKind[]; want: RegExp[] }[] = [
    { reason: 'the declared kind, as declared', running: [running(def)], want: [] },
    {
      reason: 'a running kind without a definition has no CRD',
      running: [running(def), { ...running(def), kind: 'Stray' }],
      want: [/runs cache\.example\.io\/Stray, which it does not declare \(no CRD\)/],
    },
    { reason: 'a declared kind that does not run', running: [], want: [/declares cache\.example\.io\/ExampleCache but does not run it/] },
    { reason: 'another sharing mode than declared', running: [running(def, { sharing: 'Exclusive' })], want: [/with sharing Exclusive, but declares Shared/] },
    {
      reason: 'other published keys than declared',
      running: [running(def, {}, ['host', 'port', 'password', 'uri'])],
      want: [/publishes host, port, password, uri for cache\.conductor\.io\/RedisCluster, but its definition says host, port, password, uri, tlsCA/],
    },
    {
      reason: 'an implementation of a claim kind the definition does not name',
      running: [
        running(def, {
          implements: [...running(def).implements, { ...running(def).implements[0], claimKind: { group: 'storage.conductor.io', kind: 'Bucket' } }],
        }),
      ],
      want: [/implements storage\.conductor\.io\/Bucket, which its definition does not name/],
    },
    {
      reason: 'a declared claim kind without an implementation',
      running: [running(def, { implements: [] })],
      want: [/is declared to implement cache\.conductor\.io\/RedisCluster but has no implementation of it/],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = startedKindProblems('test', [def], c.running);
      assert.equal(got.length, c.want.length, `want ${c.want.length} problems, got: ${JSON.stringify(got)}`);
      c.want.forEach((w, i) => assert.match(got[i], w));
    });
  }
});

describe('defineProvider', () => {
  test('start returns the module when it runs exactly the declared kinds', async () => {
    const def = cacheKind();
    const module: ProviderModule = { type: 'local', kinds: [running(def)] };
    const provider = defineProvider({ name: 'test', type: 'local', kinds: [def], start: async () => module });
    assert.equal(await provider.start({ dataDir: '/nonexistent' }), module);
    assert.deepEqual(provider.kinds, [def]);
  });

  test('start stops what it started and fails with every problem when the running kinds disagree', async () => {
    const def = cacheKind();
    let stopped = 0;
    const provider = defineProvider({
      name: 'test',
      type: 'local',
      kinds: [def],
      start: async () => ({ type: 'local', kinds: [{ ...running(def), kind: 'Stray' }], stop: async () => void stopped++ }),
    });
    await assert.rejects(provider.start({ dataDir: '/nonexistent' }), (err: unknown) => {
      assert.ok(err instanceof ProviderStartError);
      assert.equal(err.problems.length, 2);
      assert.match(err.message, /runs cache\.example\.io\/Stray, which it does not declare/);
      assert.match(err.message, /declares cache\.example\.io\/ExampleCache but does not run it/);
      return true;
    });
    assert.equal(stopped, 1);
  });
});
