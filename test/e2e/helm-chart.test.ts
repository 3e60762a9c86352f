/**
 * The Helm chart (deploy/helm/conductor) with a real helm (scripts/fetch-helm.mjs): it lints,
 * renders the objects a cluster needs (2 replicas of `conductor controllers` with leader
 * election, a ServiceAccount, least-privilege RBAC, the CRDs, conductor-system), its values
 * reach the command line and bad ones are refused by name; the rendered objects apply with the
 * real kubectl to a Conductor server (a Kubernetes-compatible API); and `conductor controllers`
 * running with the ServiceAccount's token — only what the chart's roles grant — binds a claim,
 * writes its connection Secret and releases it, while the same token may not touch pods or RBAC.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { allCrds } from '../../src/conductor/catalog.js';
import { helm } from '../support/helm.js';
import { cliPath, kubectl, kubectlOk, removeDir, repoRoot, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const CHART = join(repoRoot, 'deploy', 'helm', 'conductor');
const SYS = 'conductor-system';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [k: string]: any;
}

async function render(...args: string[]): Promise<Obj[]> {
  const { stdout } = await helm(['template', 'conductor', CHART, ...args]);
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

const byKind = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const one = (objs: Obj[], kind: string) => {
  const found = byKind(objs, kind);
  assert.equal(found.length, 1, `exactly one ${kind}`);
  return found[0];
};

describe('the Helm chart', () => {
  let objs: Obj[];

  before(async () => {
    objs = await render('--include-crds');
  });

  test('helm lint passes', async () => {
    const { stdout } = await helm(['lint', CHART]);
    assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  test('renders the namespace, ServiceAccount, RBAC, every CRD and a 2-replica Deployment of `conductor controllers`', () => {
    const counts = new Map<string, number>();
    for (const o of objs) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(counts), {
      CustomResourceDefinition: allCrds().length,
      Namespace: 1,
      ServiceAccount: 1,
      ClusterRole: 1,
      ClusterRoleBinding: 1,
      Role: 1,
      RoleBinding: 1,
      Deployment: 1,
    });
    assert.equal(one(objs, 'Namespace').metadata.name, SYS);
    assert.deepEqual(
      byKind(objs, 'CustomResourceDefinition').sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)),
      allCrds().sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!)),
      "the chart's CRDs are Conductor's current CRDs",
    );
    const deploy = one(objs, 'Deployment');
    assert.equal(deploy.metadata.namespace, SYS);
    assert.equal(deploy.spec.replicas, 2);
    const pod = deploy.spec.template.spec;
    const sa = one(objs, 'ServiceAccount');
    assert.equal(pod.serviceAccountName, sa.metadata.name);
    assert.equal(sa.metadata.namespace, SYS);
    const [container] = pod.containers;
    assert.deepEqual(container.command, ['conductor']);
    assert.equal(container.args[0], 'controllers');
    assert.ok(!container.args.includes('--no-leader-elect'), 'leader election stays on');
    assert.ok(container.args.includes('--log-level=info'));
    assert.equal(container.image, 'conductor:0.1.0');
    assert.ok(container.resources.requests.memory && container.resources.limits.memory);
    assert.equal(container.readinessProbe.httpGet.path, '/readyz');
    assert.equal(container.livenessProbe.httpGet.path, '/healthz');
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    for (const binding of [one(objs, 'ClusterRoleBinding'), one(objs, 'RoleBinding')]) {
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: SYS }]);
    }
    assert.equal(one(objs, 'RoleBinding').metadata.namespace, SYS);
  });

  test('values reach the Deployment: image, log level, providers, replicas, resources', async () => {
    const custom = await render(
      '--set',
      'image.repository=registry.example/conductor',
      '--set',
      'image.tag=9.9.9',
      '--set',
      'logLevel=debug',
      '--set',
      'providers={kubernetes,aws}',
      '--set',
      'replicas=3',
      '--set',
      'resources.limits.memory=1Gi',
      '--set',
      'createNamespace=false',
    );
    const deploy = one(custom, 'Deployment');
    const [c] = deploy.spec.template.spec.containers;
    assert.equal(c.image, 'registry.example/conductor:9.9.9');
    assert.ok(c.args.includes('--log-level=debug'));
    assert.ok(c.args.includes('--providers=kubernetes,aws'));
    assert.equal(deploy.spec.replicas, 3);
    assert.equal(c.resources.limits.memory, '1Gi');
    assert.equal(byKind(custom, 'Namespace').length, 0);
  });

  test('bad values are refused naming the value', async () => {
    await assert.rejects(render('--set', 'providers={local}'), /providers: "local" is not a provider the controllers can run on a cluster/);
    await assert.rejects(render('--set', 'logLevel=loud'), /logLevel: "loud" must be one of/);
  });

  test('the RBAC grants nothing cluster-admin-like', () => {
    const rules = [...one(objs, 'ClusterRole').rules, ...one(objs, 'Role').rules] as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    for (const r of rules) {
      for (const field of [r.apiGroups, r.resources, r.verbs]) assert.ok(!field.includes('*'), `no wildcard: ${JSON.stringify(r)}`);
      assert.ok(!r.verbs.some((v) => ['escalate', 'bind', 'impersonate', 'deletecollection'].includes(v)), `no escalation verbs: ${JSON.stringify(r)}`);
      assert.ok(
        !r.apiGroups.some((g) =>
          ['rbac.authorization.k8s.io', 'authentication.k8s.io', 'certificates.k8s.io', 'admissionregistration.k8s.io', 'apps'].includes(g),
        ),
        `no RBAC, token, certificate, webhook or workload groups: ${JSON.stringify(r)}`,
      );
      assert.ok(!r.resources.some((x) => ['pods', 'pods/exec', 'nodes', 'serviceaccounts', 'serviceaccounts/token'].includes(x)), JSON.stringify(r));
    }
    // The Lease is granted in conductor-system only, through the Role.
    assert.ok(!one(objs, 'ClusterRole').rules.some((r: { resources: string[] }) => r.resources.includes('leases')));
    assert.ok(one(objs, 'Role').rules.some((r: { resources: string[] }) => r.resources.includes('leases')));
    // CRDs other than Conductor's cannot be changed.
    const crdWrites = one(objs, 'ClusterRole').rules.filter(
      (r: { resources: string[]; verbs: string[] }) =>
        r.resources.includes('customresourcedefinitions') && r.verbs.some((v) => v === 'update' || v === 'patch'),
    );
    for (const r of crdWrites)
      assert.deepEqual(
        [...r.resourceNames].sort(),
        allCrds()
          .map((c) => c.metadata.name)
          .sort(),
      );
    // Every kind of Conductor's is readable (the controllers watch them all).
    for (const crd of allCrds()) {
      const spec = crd.spec as { group: string; names: { plural: string } };
      assert.ok(
        rules.some(
          (r) => r.apiGroups.includes(spec.group) && r.resources.includes(spec.names.plural) && ['get', 'list', 'watch'].every((v) => r.verbs.includes(v)),
        ),
        `${crd.metadata.name} can be read`,
      );
    }
  });
});

describe('the chart applied to a Conductor server, and the controllers running with its ServiceAccount only', () => {
  let server: ServerProcess;
  let controllers: ChildProcess | undefined;
  let out = '';
  const dir = tempDir('conductor-helm-');
  const saKubeconfig = join(dir, 'sa.kubeconfig');

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_CONTROLLERS: 'false' } });
  });

  after(async () => {
    controllers?.kill('SIGKILL');
    await server?.kill();
    if (server) removeDir(server.dataDir);
    removeDir(dir);
  });

  test('kubectl applies the rendered chart: namespace, CRDs, ServiceAccount and RBAC', async () => {
    // Conductor serves Deployments read-only (it runs no pods): everything else is applied.
    const docs = (await render('--include-crds')).filter((o) => o.kind !== 'Deployment');
    const applied = await kubectlOk(server, ['apply', '-f', '-'], { input: docs.map((d) => `---\n${stringify(d)}`).join(''), timeoutMs: 60_000 });
    assert.match(applied, /clusterrole\.rbac\.authorization\.k8s\.io\/conductor-controllers created/);
    assert.match(applied, /rolebinding\.rbac\.authorization\.k8s\.io\/conductor-controllers created/);
    assert.match(applied, /serviceaccount\/conductor-controllers created/);
    assert.match(applied, /customresourcedefinition\.apiextensions\.k8s\.io\/postgresqlinstances\.storage\.conductor\.io/);
    const got = JSON.parse(await kubectlOk(server, ['get', 'clusterrole', 'conductor-controllers', '-o', 'json']));
    const rendered = (await render()).find((o) => o.kind === 'ClusterRole')!;
    assert.deepEqual(got.rules, rendered.rules, 'the server stored the rules as rendered');
  });

  test('with only the chart’s roles, `conductor controllers` binds a claim, publishes its Secret and releases it', async () => {
    const token = (await kubectlOk(server, ['create', 'token', 'conductor-controllers', '-n', SYS, '--duration', '1h'])).trim();
    const admin = parse(readFileSync(server.kubeconfig, 'utf8'));
    const cluster = admin.clusters[0];
    writeFileSync(
      saKubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [cluster],
        users: [{ name: 'sa', user: { token } }],
        contexts: [{ name: 'sa', context: { cluster: cluster.name, user: 'sa' } }],
        'current-context': 'sa',
      }),
      { mode: 0o600 },
    );
    const sa = { kubeconfig: saKubeconfig };
    assert.equal(
      (await kubectlOk(sa, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).trim(),
      `system:serviceaccount:${SYS}:conductor-controllers`,
    );
    for (const [verb, what] of [
      ['create', 'pods'],
      ['create', 'clusterroles'],
      ['delete', 'customresourcedefinitions/widgets.example.com'],
      ['update', 'leases'],
    ] as const) {
      const ns = what === 'leases' ? ['-n', 'default'] : [];
      const r = await kubectl(sa, ['auth', 'can-i', verb, what, ...ns]);
      assert.equal(r.stdout.trim(), 'no', `the ServiceAccount may not ${verb} ${what} ${ns.join(' ')}`);
    }

    controllers = spawn(
      process.execPath,
      [
        cliPath,
        'controllers',
        '--kubeconfig',
        saKubeconfig,
        '--data-dir',
        join(dir, 'data'),
        '--health-port',
        '0',
        '--log-level',
        'warn',
        '--providers',
        'memory',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    controllers.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    controllers.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => /conductor controllers ready/.test(out) || undefined, `the controllers ready (output: ${out})`, 60_000);

    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: memory, namespace: ${SYS}, annotations: {conductor.io/is-default-class: "true"}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: apps}
spec: {writeConnectionSecretToRef: {name: orders-db}}
`,
    });
    const bound = await eventually(
      async () => {
        const c = JSON.parse(await kubectlOk(server, ['get', 'postgresqlinstance', 'orders', '-n', 'apps', '-o', 'json']));
        return c.status?.phase === 'Bound' && c.status.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `the claim Bound and Ready (controllers' output: ${out})`,
      60_000,
    );
    assert.equal(bound.status.resourceRef.kind, 'MemoryDatabase');
    const secret = JSON.parse(await kubectlOk(server, ['get', 'secret', 'orders-db', '-n', 'apps', '-o', 'json']));
    assert.ok(secret.data.host && secret.data.password, 'the connection Secret has the details');

    await kubectlOk(server, ['delete', 'postgresqlinstance', 'orders', '-n', 'apps', '--timeout=60s']);
    await eventually(
      async () => (await kubectl(server, ['get', 'memorydatabase', bound.status.resourceRef.name, '-n', SYS])).code !== 0,
      'the released MemoryDatabase deleted (rebindPolicy Delete)',
      60_000,
    );
    assert.doesNotMatch(out, /forbidden|\b403\b/i, 'the controllers were never refused');
  });
});
