/**
 * The controllers' RBAC (controller-rbac.ts) as YAML: `conductor rbac` prints a ClusterRole and
 * a Role to apply by hand; `conductor rbac --output-dir` writes the bare rule lists that the Helm
 * chart's templates include (deploy/helm/conductor/files/, written by `npm run gen:crds`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { catalog } from './catalog.js';
import { CONTROLLERS_NAMESPACE, controllerClusterRules, controllerLeaseRules } from './controller-rbac.js';

const HEADER = '# Generated from src/conductor/controller-rbac.ts by `npm run gen:crds`; do not edit.\n';

/** The name of the ClusterRole, Role and their bindings. */
export const CONTROLLERS_ROLE_NAME = 'conductor-controllers';

const toYaml = (v: unknown) => stringify(v, { aliasDuplicateObjects: false, lineWidth: 0 });

/** The rule files of the chart: name and content. */
export function controllerRuleFiles(): { name: string; content: string }[] {
  return [
    { name: 'controller-cluster-rules.yaml', content: HEADER + toYaml(controllerClusterRules(fullCatalog())) },
    { name: 'controller-lease-rules.yaml', content: HEADER + toYaml(controllerLeaseRules()) },
  ];
}

/** Every built-in kind: the chart installs every CRD (deploy/crds), and the controllers watch every concrete kind whose CRD is served. */
function fullCatalog() {
  return catalog;
}

/** Writes the rule files into `dir` (created if missing); returns their names. */
export async function writeControllerRuleFiles(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files = controllerRuleFiles();
  for (const f of files) await writeFile(join(dir, f.name), f.content);
  return files.map((f) => f.name);
}

/** A ClusterRole and a Role (in conductor-system) to bind to the controllers' ServiceAccount. */
export function controllerRbacYaml(): string {
  const clusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: CONTROLLERS_ROLE_NAME },
    rules: controllerClusterRules(fullCatalog()),
  };
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: CONTROLLERS_ROLE_NAME, namespace: CONTROLLERS_NAMESPACE },
    rules: controllerLeaseRules(),
  };
  return HEADER + [clusterRole, role].map((o) => `---\n${toYaml(o)}`).join('');
}
