/**
 * Every shipped CRD (deploy/crds, the files `kubectl apply` and the Helm chart install) passes
 * the API server's CRD validation, CEL cost estimation included (apiserver/schema/cel/cost.ts):
 * what Conductor accepts, a Kubernetes cluster accepts too.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { validateStructuralSchema } from '../apiserver/schema/structural.js';
import type { JSONSchemaProps } from '../apiserver/registry/resource-type.js';

const deployDir = resolve(import.meta.dirname, '..', '..', '..', 'deploy', 'crds');

describe('the shipped CRDs within the CEL cost budgets', () => {
  const files = readdirSync(deployDir).filter((f) => f.endsWith('.yaml'));
  test('deploy/crds has CRDs', () => assert.ok(files.length > 20));
  for (const file of files) {
    test(`${file}: every version's schema passes, rule costs included`, () => {
      const crd = parse(readFileSync(join(deployDir, file), 'utf8')) as { spec: { versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[] } };
      crd.spec.versions.forEach((v, i) => {
        assert.deepEqual(validateStructuralSchema(v.schema.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`), []);
      });
    });
  }
});
