/**
 * Every CEL rule of a shipped CRD runs a bounded number of times. Kubernetes estimates a
 * rule's cost times how often it may run (from the maxItems and maxProperties of the arrays and
 * maps above it; without them, from the largest request) and refuses a CRD over its budget
 * ("estimated rule cost exceeds budget"). A rule under an unbounded array or map is what made
 * three of Conductor's CRDs fail to install on a real cluster; this test finds any such rule.
 * (It is a bound on cardinality, not Kubernetes' full cost estimator.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPlainObject, type KObject } from '../machinery/object.js';
import { allCrds } from './catalog.js';

type Schema = Record<string, unknown>;

/** The paths of rules below an array without maxItems or a map without maxProperties. */
function unboundedRules(schema: Schema, path: string, unbounded: string | undefined, out: string[]): void {
  if (Array.isArray(schema['x-kubernetes-validations']) && unbounded) out.push(`${path} (under ${unbounded})`);
  const props = isPlainObject(schema.properties) ? schema.properties : {};
  for (const [name, child] of Object.entries(props)) if (isPlainObject(child)) unboundedRules(child, `${path}.${name}`, unbounded, out);
  if (isPlainObject(schema.items)) {
    const bound = typeof schema.maxItems === 'number' ? unbounded : (unbounded ?? `${path}[] without maxItems`);
    unboundedRules(schema.items, `${path}[]`, bound, out);
  }
  if (isPlainObject(schema.additionalProperties)) {
    const bound = typeof schema.maxProperties === 'number' ? unbounded : (unbounded ?? `${path}{} without maxProperties`);
    unboundedRules(schema.additionalProperties, `${path}{}`, bound, out);
  }
}

function versionsOf(crd: KObject): { name: string; schema: Schema }[] {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  return versions.flatMap((v) =>
    isPlainObject(v.schema) && isPlainObject(v.schema.openAPIV3Schema) ? [{ name: String(v.name), schema: v.schema.openAPIV3Schema }] : [],
  );
}

describe('CEL rules of the shipped CRDs', () => {
  for (const crd of allCrds()) {
    test(`${crd.metadata.name}: every rule runs a bounded number of times`, () => {
      const found: string[] = [];
      for (const v of versionsOf(crd)) unboundedRules(v.schema, `${v.name}:`, undefined, found);
      assert.deepEqual(found, []);
    });
  }
});
