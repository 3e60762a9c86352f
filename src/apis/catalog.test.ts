/**
 * Static checks of every kind: its CRD is structural and accepted by the server's CRD
 * validation, its names and Conductor metadata are right, its printer columns point at
 * fields its schema declares, and typed samples validate against its schema (the
 * TypeScript type and the schema agree).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import type { JSONSchemaProps } from '../apiserver/registry/resource-type.js';
import { validateCrd } from '../apiserver/builtins/crd-validation.js';
import { compileSchema } from '../apiserver/schema/index.js';
import { adminKinds, allCrds, allKinds, apiRefs, claimKinds, concreteKinds, findKind } from './catalog.js';
import { implementedClaimKinds, isClaimCrd } from './crd-metadata.js';
import { sampleObjects } from './testing/index.js';
import type { Condition } from '../machinery/object.js';
import type { Claim } from './common/claim.js';
import type { ConcreteResource } from './common/concrete.js';
import type { ConditionEntry } from './common/fields.js';
import type { Bucket, MySQLInstance, Volume } from './storage/index.js';
import type { RedisCluster } from './cache/index.js';
import type { MessageQueue } from './messaging/index.js';
import type { LoadBalancer } from './network/index.js';
import type { LocalPostgreSQLInstance, PostgreSQLServer } from './local-database/index.js';
import type { MemoryDatabase } from './memory/index.js';
import { ABSTRACT_LABEL, CLAIM_CATEGORY, IMPLEMENTS_ANNOTATION, MANAGED_CATEGORY } from './well-known.js';

/** The schema node a printer-column JSONPath reaches, or undefined when the schema does not declare it. */
function schemaAt(root: JSONSchemaProps, jsonPath: string): JSONSchemaProps | 'metadata' | undefined {
  const steps = jsonPath
    .replace(/\[\?\(.*?\)\]/g, '.[]')
    .replace(/\\\./g, '\u0000')
    .split('.')
    .filter((x) => x !== '')
    .map((x) => x.replaceAll('\u0000', '.'));
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
    first[0]!.metadata.name = 'changed';
    assert.notEqual(allCrds()[0]!.metadata.name, 'changed');
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

  test('every CRD passes the API server\'s CRD validation (structural schema, CEL rules, defaults, columns)', () => {
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

  test('claims show PHASE, RESOURCE and CLASS; concrete kinds PHASE, CLAIM, CLASS and READY; all end with AGE', () => {
    const names = (k: (typeof allKinds)[number]) => k.printerColumns.filter((c) => !c.priority).map((c) => c.name.toUpperCase());
    for (const k of claimKinds) assert.deepEqual(names(k), ['PHASE', 'RESOURCE', 'CLASS', 'AGE'], k.kind);
    for (const k of concreteKinds) assert.deepEqual(names(k), ['PHASE', 'CLAIM', 'CLASS', 'READY', 'AGE'], k.kind);
    assert.deepEqual(names(findKind('core.conductor.io', 'resourceclass')!), ['PROFILE', 'KIND', 'REBIND', 'AGE']);
  });

  test('ResourceClass keeps its fields at the top level, with no spec or status', () => {
    const rc = findKind('core.conductor.io', 'ResourceClass')!;
    const props = Object.keys(rc.schema.properties ?? {});
    assert.ok(!props.includes('spec') && !props.includes('status'));
    for (const f of ['resourceClass', 'capabilities', 'supportedResources', 'rebindPolicy', 'bindingMode', 'allowedNamespaces', 'pool', 'providerRef', 'template']) {
      assert.ok(props.includes(f), f);
    }
  });
});

describe('types and schemas agree', () => {
  const samples = sampleObjects('shop');

  test('every claim type is a Claim and every concrete type a ConcreteResource', () => {
    // Compile-time checks: these assignments fail to build if the generic types drift apart.
    const claims: Claim[] = [] as (MySQLInstance | Bucket | Volume | RedisCluster | MessageQueue | LoadBalancer)[]; // PostgreSQLInstance is the same type as MySQLInstance
    const concrete: ConcreteResource[] = [] as (PostgreSQLServer | LocalPostgreSQLInstance | MemoryDatabase)[];
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
