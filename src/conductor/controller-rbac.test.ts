import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { allCrds, catalog, clusterProviders } from './catalog.js';
import { crdFiles } from '../apis/manifests.js';
import { controllerClusterRules } from './controller-rbac.js';
import { controllerRbacYaml, controllerRuleFiles } from './controller-rbac-files.js';

/** deploy/helm/conductor of the repository (this file runs from dist/src/conductor). */
const chartDir = resolve(import.meta.dirname, '..', '..', '..', 'deploy', 'helm', 'conductor');

describe("the controllers' RBAC and the Helm chart's generated files", () => {
  test("the chart's crds/ holds exactly the current CRDs, as deploy/crds does (run `npm run gen:crds`)", () => {
    const want = crdFiles(allCrds());
    const dir = join(chartDir, 'crds');
    assert.deepEqual(
      readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .sort(),
      want.map((f) => f.name),
    );
    for (const f of want) assert.equal(readFileSync(join(dir, f.name), 'utf8'), f.content, `crds/${f.name} is stale`);
  });

  test("the chart's rule files are current (run `npm run gen:crds`)", () => {
    for (const f of controllerRuleFiles()) assert.equal(readFileSync(join(chartDir, 'files', f.name), 'utf8'), f.content, `files/${f.name} is stale`);
  });

  test('claims are patched, concrete resources written, and no rule has a wildcard', () => {
    const rules = controllerClusterRules(catalog);
    const allows = (group: string, resource: string, verb: string) =>
      rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb) && !r.resourceNames);
    for (const k of catalog.claimKinds) {
      assert.ok(allows(k.group, k.plural, 'patch'), `${k.plural}.${k.group} patch`);
      assert.ok(allows(k.group, `${k.plural}/status`, 'update'), `${k.plural}.${k.group}/status update`);
      assert.ok(!allows(k.group, k.plural, 'create') && !allows(k.group, k.plural, 'delete'), `claims ${k.plural} are users' to create and delete`);
    }
    for (const k of catalog.concreteKinds)
      for (const verb of ['create', 'delete', 'update']) assert.ok(allows(k.group, k.plural, verb), `${k.plural}.${k.group} ${verb}`);
    for (const k of catalog.adminKinds)
      assert.ok(!allows(k.group, k.plural, 'update') && !allows(k.group, k.plural, 'delete'), `${k.plural} are administrators'`);
    for (const r of rules) assert.ok(![...r.apiGroups, ...r.resources, ...r.verbs].includes('*'), JSON.stringify(r));
  });

  test('`conductor controllers` runs the providers whose resources are not on its machine: not local', () => {
    assert.deepEqual(
      clusterProviders.map((p) => p.name),
      ['memory', 'kubernetes', 'azure', 'gcp', 'aws'],
    );
  });

  test('`conductor rbac` prints a ClusterRole and a Role in conductor-system', () => {
    const docs = parseAllDocuments(controllerRbacYaml()).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string } });
    assert.deepEqual(
      docs.map((d) => [d.kind, d.metadata.name, d.metadata.namespace]),
      [
        ['ClusterRole', 'conductor-controllers', undefined],
        ['Role', 'conductor-controllers', 'conductor-system'],
      ],
    );
  });
});
