/**
 * Static checks of every kind of the catalog (apis/' kinds and the built-in providers'): its
 * CRD is structural and accepted by the server's CRD validation, its names and Conductor
 * metadata are right, its printer columns point at fields its schema declares, and typed
 * samples validate against its schema (the TypeScript type and the schema agree). Then the
 * catalog's validation (a kind naming an unknown claim kind, a kind defined twice) and the
 * providers' connection keys in their CRD descriptions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import type { JSONSchemaProps } from '../apiserver/registry/resource-type.js';
import { validateCrd } from '../apiserver/builtins/crd-validation.js';
import { compileSchema } from '../apiserver/schema/index.js';
import {
  adminKinds,
  allCrds,
  allKinds,
  apiRefs,
  buildCatalog,
  builtInProviders,
  CatalogError,
  claimKinds,
  concreteKinds,
  findKind,
  validateCatalog,
} from './catalog.js';
import type { ConcreteKindDefinition } from '../providers/spi.js';
import { implementedClaimKinds, isClaimCrd } from '../apis/crd-metadata.js';
import { sampleObjects } from '../apis/testing/index.js';
import { localSampleObjects } from '../providers/local/samples.js';
import { memorySampleObjects } from '../providers/memory/samples.js';
import { kubernetesSampleObjects } from '../providers/kubernetes/samples.js';
import { azureSampleObjects } from '../providers/azure/samples.js';
import { gcpSampleObjects } from '../providers/gcp/samples.js';
import { awsSampleObjects } from '../providers/aws/samples.js';
import type { Condition } from '../machinery/object.js';
import type { Claim } from '../apis/common/claim.js';
import type { ConcreteResource } from '../apis/common/concrete.js';
import type { ConditionEntry } from '../apis/common/fields.js';
import type { Bucket, MySQLInstance, Volume } from '../apis/storage/index.js';
import type { RedisCluster } from '../apis/cache/index.js';
import type { MessageQueue } from '../apis/messaging/index.js';
import type { LoadBalancer } from '../apis/network/index.js';
import type { LocalPostgreSQLInstance, PostgreSQLServer } from '../providers/local/postgresql/kinds.js';
import type { LocalRedisInstance, RedisServer } from '../providers/local/redis/kinds.js';
import type { LocalListener } from '../providers/local/loadbalancer/kinds.js';
import type { MemoryDatabase } from '../providers/memory/kinds.js';
import { ABSTRACT_LABEL, CLAIM_CATEGORY, IMPLEMENTS_ANNOTATION, MANAGED_CATEGORY } from '../apis/well-known.js';

/** The schema node a printer-column JSONPath reaches, or undefined when the schema does not declare it. */
function schemaAt(root: JSONSchemaProps, jsonPath: string): JSONSchemaProps | 'metadata' | undefined {
  const steps = jsonPath
    .replace(/\[\?\(.*?\)\]/g, '.[]')
    .replace(/\\\./g, '\u0000')
    .split('.')
    .filter((x) => x !== '')
    // eslint-disable-next-line no-control-regex -- NUL stands for an escaped dot in the path, on purpose
    .map((x) => x.replace(/\u0000/g, '.'));
  let node: JSONSchemaProps | undefined = root;
  for (const step of steps) {
    if (node === root && step === 'metadata') return 'metadata';
    if (!node) return undefined;
    node = step === '[]' ? node.items : node.properties?.[step];
  }
  return node;
}

describe('the catalog', () => {
  test('kind names, plurals, short names and CRD names are unique', () => {
    const seen = new Map<string, string>();
    for (const k of allKinds) {
      for (const name of [k.crdName, `${k.group}/${k.kind}`, ...k.shortNames]) {
        assert.ok(!seen.has(name), `${name} is used by ${seen.get(name)} and ${k.kind}`);
        seen.set(name, k.kind);
      }
      assert.equal(k.plural, k.plural.toLowerCase());
      assert.equal(k.crdName, `${k.plural}.${k.group}`);
    }
  });

  test('allCrds has one CRD per kind and apiRefs one ResourceRef per kind', () => {
    const crds = allCrds();
    assert.equal(crds.length, allKinds.length);
    assert.equal(Object.keys(apiRefs).length, allKinds.length);
    for (const k of allKinds) {
      const ref = apiRefs[k.plural as keyof typeof apiRefs];
      assert.deepEqual(ref, { group: k.group, version: k.version, resource: k.plural, namespaced: true, kind: k.kind }, k.kind);
    }
  });

  test('allCrds returns copies: changing one does not change the next', () => {
    const first = allCrds();
    first[0].metadata.name = 'changed';
    assert.notEqual(allCrds()[0].metadata.name, 'changed');
  });

  test('claim kinds carry the abstract label and the claim category; nothing else does', () => {
    for (const k of allKinds) {
      const crd = k.crd();
      const isClaim = claimKinds.includes(k);
      assert.equal(isClaimCrd(crd), isClaim, k.kind);
      assert.equal(crd.metadata.labels?.[ABSTRACT_LABEL] === 'true', isClaim, k.kind);
      assert.equal(k.categories.includes(CLAIM_CATEGORY), isClaim, k.kind);
    }
  });

  test('concrete kinds carry the managed category and name the claim kinds they implement, which exist', () => {
    const claimCrdNames = new Set(claimKinds.map((k) => k.crdName));
    for (const k of concreteKinds) {
      const crd = k.crd();
      assert.ok(k.categories.includes(MANAGED_CATEGORY), k.kind);
      const implemented = implementedClaimKinds(crd);
      assert.ok(implemented.length > 0, `${k.kind} has no ${IMPLEMENTS_ANNOTATION}`);
      for (const c of implemented) assert.ok(claimCrdNames.has(c), `${k.kind} implements unknown ${c}`);
    }
    for (const k of [...claimKinds, ...adminKinds]) assert.ok(!k.categories.includes(MANAGED_CATEGORY), k.kind);
  });

  test("every CRD passes the API server's CRD validation (structural schema, CEL rules, defaults, columns)", () => {
    for (const crd of allCrds()) {
      // The server's create strategy records the stored versions before validating.
      crd.status = { storedVersions: ['v1alpha1'] };
      const causes = validateCrd(crd, { operation: 'create', subresource: '' });
      assert.deepEqual(causes, [], `${crd.metadata.name}: ${JSON.stringify(causes, null, 1)}`);
    }
  });

  test('every printer column points at a field the schema declares', () => {
    for (const k of allKinds) {
      for (const c of k.printerColumns) {
        assert.ok(schemaAt(k.schema, c.jsonPath), `${k.kind} column ${c.name}: ${c.jsonPath} is not in the schema`);
      }
    }
  });

  test('claims show PHASE, RESOURCE, CLASS and TERMINATING; concrete kinds PHASE, CLAIM, CLASS, READY, SYNCED and TERMINATING; all end with AGE', () => {
    const names = (k: (typeof allKinds)[number]) => k.printerColumns.filter((c) => !c.priority).map((c) => c.name.toUpperCase());
    for (const k of claimKinds) assert.deepEqual(names(k), ['PHASE', 'RESOURCE', 'CLASS', 'TERMINATING', 'AGE'], k.kind);
    for (const k of concreteKinds) assert.deepEqual(names(k), ['PHASE', 'CLAIM', 'CLASS', 'READY', 'SYNCED', 'TERMINATING', 'AGE'], k.kind);
    assert.deepEqual(names(findKind('core.conductor.io', 'resourceclass')!), ['PROFILE', 'KIND', 'REBIND', 'AGE']);
  });

  test('ResourceClass keeps its fields at the top level, with no spec or status', () => {
    const rc = findKind('core.conductor.io', 'ResourceClass')!;
    const props = Object.keys(rc.schema.properties ?? {});
    assert.ok(!props.includes('spec') && !props.includes('status'));
    for (const f of [
      'resourceClass',
      'capabilities',
      'supportedResources',
      'rebindPolicy',
      'bindingMode',
      'allowedNamespaces',
      'pool',
      'providerRef',
      'template',
    ]) {
      assert.ok(props.includes(f), f);
    }
  });
});

describe('types and schemas agree', () => {
  const samples = [
    ...sampleObjects('shop'),
    ...localSampleObjects('shop'),
    ...memorySampleObjects(),
    ...kubernetesSampleObjects(),
    ...azureSampleObjects(),
    ...gcpSampleObjects(),
    ...awsSampleObjects(),
  ];

  test('every claim type is a Claim and every concrete type a ConcreteResource', () => {
    // Compile-time checks: these assignments fail to build if the generic types drift apart.
    const claims: Claim[] = [] as (MySQLInstance | Bucket | Volume | RedisCluster | MessageQueue | LoadBalancer)[];
    const concrete: ConcreteResource[] = [] as (
      PostgreSQLServer | LocalPostgreSQLInstance | RedisServer | LocalRedisInstance | LocalListener | MemoryDatabase
    )[];
    const condition: Condition = {} as ConditionEntry;
    const entry: ConditionEntry = {} as Condition;
    assert.ok(claims && concrete && condition && entry);
  });

  test('there is a typed sample of every kind', () => {
    assert.deepEqual(new Set(samples.map((o) => o.kind)), new Set(allKinds.map((k) => k.kind)));
  });

  for (const obj of samples) {
    test(`a ${obj.kind} written with its TypeScript type is valid and loses nothing to pruning`, () => {
      const kind = allKinds.find((k) => k.kind === obj.kind)!;
      assert.equal(obj.apiVersion, kind.apiVersion);
      const compiled = compileSchema(kind.schema, { group: kind.group, kind: kind.kind });
      const copy = structuredClone<KObject>(obj);
      compiled.applyDefaults(copy);
      assert.deepEqual(compiled.validate(copy), []);
      assert.deepEqual(compiled.unknownFields(copy), [], 'every field of the type is declared in the schema');
    });
  }
});

/** The description of a CRD's object schema (what `kubectl explain <kind>` shows). */
function crdDescription(crd: KObject): string {
  return (crd.spec as { versions: { schema: { openAPIV3Schema: { description: string } } }[] }).versions[0].schema.openAPIV3Schema.description;
}

/** A concrete kind definition for validation tests: names, one CRD, claim kinds implemented. */
function concreteDef(
  kind: string,
  claims: { group: string; kind: string }[],
  annotated = claims.map((c) => `${c.kind.toLowerCase()}s.${c.group}`),
): ConcreteKindDefinition {
  const group = 'test.example.io';
  const plural = `${kind.toLowerCase()}s`;
  return {
    group,
    version: 'v1alpha1',
    kind,
    plural,
    sharing: 'Exclusive',
    lifecycle: 'Managed',
    implements: claims.map((c) => ({ claimKind: c, connectionSecretKeys: ['host'] })),
    crd: () => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}`, annotations: { [IMPLEMENTS_ANNOTATION]: annotated.join(',') } },
      spec: { group, names: { kind, plural }, scope: 'Namespaced' },
    }),
  };
}

describe('validateCatalog and buildCatalog', () => {
  const redis = { group: 'cache.conductor.io', kind: 'RedisCluster' };
  const bucket = { group: 'storage.conductor.io', kind: 'Bucket' };
  const sources = (...providers: { name: string; kinds: ConcreteKindDefinition[] }[]) => ({ claimKinds, adminKinds, providers });
  const cases: { reason: string; providers: { name: string; kinds: ConcreteKindDefinition[] }[]; want: RegExp[] }[] = [
    {
      reason: 'kinds that implement known claim kinds fit',
      providers: [{ name: 'p', kinds: [concreteDef('Cache', [redis]), concreteDef('Store', [bucket])] }],
      want: [],
    },
    {
      reason: 'a claim kind is matched by group and kind, the kind case-insensitively',
      providers: [{ name: 'p', kinds: [concreteDef('Cache', [{ group: 'cache.conductor.io', kind: 'rediscluster' }], ['redisclusters.cache.conductor.io'])] }],
      want: [],
    },
    {
      reason: 'a concrete kind that names a claim kind not in the catalog',
      providers: [{ name: 'p', kinds: [concreteDef('Queue', [{ group: 'messaging.conductor.io', kind: 'Topic' }])] }],
      want: [
        /provider p: test\.example\.io\/Queue implements messaging\.conductor\.io\/Topic, which is not a claim kind of the catalog \(known: .*cache\.conductor\.io\/RedisCluster/,
      ],
    },
    {
      reason: 'a concrete kind that implements nothing',
      providers: [{ name: 'p', kinds: [concreteDef('Idle', [])] }],
      want: [/provider p: test\.example\.io\/Idle implements no claim kind/],
    },
    {
      reason: 'a CRD whose implements annotation disagrees with the implementations',
      providers: [{ name: 'p', kinds: [concreteDef('Cache', [redis], ['buckets.storage.conductor.io'])] }],
      want: [
        /the CRD of test\.example\.io\/Cache says it implements buckets\.storage\.conductor\.io, its implementations say redisclusters\.cache\.conductor\.io/,
      ],
    },
    {
      reason: 'one kind defined by two providers',
      providers: [
        { name: 'a', kinds: [concreteDef('Cache', [redis])] },
        { name: 'b', kinds: [concreteDef('Cache', [redis])] },
      ],
      want: [/test\.example\.io\/Cache is defined twice: by provider a and by provider b/, /CRD caches\.test\.example\.io is defined twice/],
    },
    {
      reason: 'a provider kind that redefines a claim kind',
      providers: [{ name: 'p', kinds: [{ ...concreteDef('Bucket', [redis]), group: 'storage.conductor.io' }] }],
      want: [/storage\.conductor\.io\/Bucket is defined twice: by apis \(claim kinds\) and by provider p/],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = validateCatalog(sources(...c.providers));
      assert.equal(got.length, c.want.length, `want ${c.want.length} problems, got: ${JSON.stringify(got, null, 1)}`);
      c.want.forEach((w, i) => assert.match(got[i], w));
      if (c.want.length === 0) assert.equal(buildCatalog(sources(...c.providers)).concreteKinds.length, c.providers.flatMap((p) => p.kinds).length);
      else
        assert.throws(
          () => buildCatalog(sources(...c.providers)),
          (err: unknown) => err instanceof CatalogError && c.want.every((w) => w.test(err.message)),
        );
    });
  }

  test('a concrete kind that is not a KindDefinition gets its ref from its names and CRD scope', () => {
    const catalog = buildCatalog(sources({ name: 'p', kinds: [concreteDef('Cache', [redis])] }));
    assert.deepEqual(catalog.findKind('test.example.io', 'cache')?.ref, {
      group: 'test.example.io',
      version: 'v1alpha1',
      resource: 'caches',
      namespaced: true,
      kind: 'Cache',
    });
    assert.deepEqual(
      catalog
        .crds()
        .map((c) => c.metadata.name)
        .slice(-1),
      ['caches.test.example.io'],
    );
  });

  test("the built-in catalog holds every built-in provider's kinds, in provider order", () => {
    assert.deepEqual(
      concreteKinds.map((k) => k.kind),
      builtInProviders.flatMap((p) => p.kinds.map((k) => k.kind)),
    );
  });
});

describe('built-in providers', () => {
  for (const provider of builtInProviders) {
    test(`${provider.name}: start runs exactly the declared kinds (start checks it and would throw otherwise)`, async () => {
      // No programs on an empty PATH and a data dir that does not exist: nothing is started for real.
      const running = await provider.start({ dataDir: '/nonexistent', env: {} });
      try {
        assert.deepEqual(running.kinds.map((k) => `${k.group}/${k.kind}`).sort(), provider.kinds.map((k) => `${k.group}/${k.kind}`).sort());
      } finally {
        await running.stop?.();
      }
    });

    test(`${provider.name}: each kind's CRD description names every connection key it publishes, per claim kind`, () => {
      assert.ok(provider.kinds.length > 0);
      for (const kind of provider.kinds) {
        const text = crdDescription(kind.crd());
        assert.ok(kind.implements.length > 0, `${kind.kind} implements nothing`);
        for (const i of kind.implements) {
          const sentence = new RegExp(`For a ${i.claimKind.kind} claim it publishes the connection keys ${i.connectionSecretKeys.join(', ')}[ .]`);
          assert.match(text, sentence, `${kind.kind}: ${text}`);
        }
      }
    });
  }
});
