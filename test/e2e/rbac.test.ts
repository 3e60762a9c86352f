/**
 * The RBAC API with the real kubectl: creating, listing and describing roles and bindings
 * (kubectl sends them as protobuf), Kubernetes' validation, escalation prevention (and the
 * escalate and bind verbs), impersonation, SubjectAccessReview, decisions following changes
 * at once, and the bootstrap policy being reconciled on restart without losing additions.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { cliPath, kubectl, kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const run = promisify(execFile);

describe('RBAC API', () => {
  const dataDir = tempDir();
  let server: ServerProcess;
  const admin = (args: string[], input?: string) => kubectlOk(server, args, input ? { input } : {});
  const userKc = async (name: string, ...groups: string[]) => {
    const out = join(dataDir, 'users', `${name}.kubeconfig`);
    await run(process.execPath, [cliPath, 'user', 'add', name, '--data-dir', dataDir, '--out', out, ...groups.flatMap((g) => ['--group', g])]);
    return { kubeconfig: out };
  };
  let lead: { kubeconfig: string };

  before(async () => {
    server = await startServer({ dataDir, args: [] });
    await admin(['create', 'namespace', 'proj']);
    lead = await userKc('lead');
    // lead may manage roles and bindings in proj and read secrets there, nothing more.
    await admin([
      'create',
      'role',
      'rbac-editor',
      '-n',
      'proj',
      '--verb=get,list,create,update,patch,delete',
      '--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io',
    ]);
    await admin(['create', 'role', 'secret-reader', '-n', 'proj', '--verb=get,list', '--resource=secrets']);
    await admin(['create', 'rolebinding', 'lead-rbac', '-n', 'proj', '--role=rbac-editor', '--user=lead']);
    await admin(['create', 'rolebinding', 'lead-secrets', '-n', 'proj', '--role=secret-reader', '--user=lead']);
  });
  after(async () => {
    await server?.kill();
    removeDir(dataDir);
  });

  test('kubectl creates, lists and describes every RBAC kind', async () => {
    await admin(['create', 'clusterrole', 'url-reader', '--verb=get', '--non-resource-url=/logs/*']);
    await admin(['create', 'clusterrolebinding', 'url-readers', '--clusterrole=url-reader', '--group=ops', '--serviceaccount=proj:robot']);
    const roles = await admin(['get', 'roles', '-n', 'proj']);
    assert.match(roles, /^NAME\s+CREATED AT\n/);
    assert.match(roles, /^rbac-editor\s+\d{4}-\d\d-\d\dT/m);
    const bindings = await admin(['get', 'rolebindings', '-n', 'proj', '-o', 'wide']);
    assert.match(bindings, /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS/);
    assert.match(bindings, /^lead-rbac\s+Role\/rbac-editor\s+\S+\s+lead/m);
    const crb = await admin(['get', 'clusterrolebinding', 'url-readers', '-o', 'wide']);
    assert.match(crb, /ClusterRole\/url-reader\s+\S+\s+ops\s+proj\/robot/);
    const described = await admin(['describe', 'clusterrole', 'url-reader']);
    assert.match(described, /\[\/logs\/\*\]\s+\[\]\s+\[get\]/);
    const bootstrap = await admin(['get', 'clusterroles', '-l', 'kubernetes.io/bootstrapping=rbac-defaults', '-o', 'name']);
    for (const r of [
      'cluster-admin',
      'conductor:infrastructure-admin',
      'conductor:platform-admin',
      'conductor:app-developer',
      'conductor:app-developer-classes',
      'system:basic-user',
      'system:discovery',
    ]) {
      assert.match(bootstrap, new RegExp(`^clusterrole.rbac.authorization.k8s.io/${r}$`, 'm'));
    }
  });

  const invalid: Array<{ reason: string; yaml: string; message: RegExp }> = [
    {
      reason: 'a rule without verbs',
      yaml: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: bad, namespace: proj}\nrules: [{apiGroups: [""], resources: [secrets], verbs: []}]\n',
      message: /rules\[0\]\.verbs: Required value/,
    },
    {
      reason: 'a non-resource URL in a Role',
      yaml: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: bad, namespace: proj}\nrules: [{nonResourceURLs: [/x], verbs: [get]}]\n',
      message: /namespaced rules cannot apply to non-resource URLs/,
    },
    {
      reason: 'a subject of an unknown kind',
      yaml: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: bad, namespace: proj}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: x}\nsubjects: [{kind: Robot, name: r}]\n',
      message: /subjects\[0\]\.kind: Unsupported value: "Robot"/,
    },
    {
      reason: 'a ClusterRoleBinding to a Role',
      yaml: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: bad}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: x}\n',
      message: /roleRef\.kind: Unsupported value: "Role"/,
    },
  ];
  for (const c of invalid) {
    test(`refused as invalid: ${c.reason}`, async () => {
      const r = await kubectl(server, ['create', '-f', '-'], { input: c.yaml });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, c.message);
    });
  }

  test('roleRef cannot change', async () => {
    const r = await kubectl(server, ['patch', 'rolebinding', 'lead-secrets', '-n', 'proj', '--type=merge', '-p', '{"roleRef":{"name":"rbac-editor"}}']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /roleRef: Invalid value: .*cannot change roleRef/);
  });

  test('escalation: a role or binding within what the user holds is allowed, anything more is a 403 naming the missing rules', async () => {
    await kubectlOk(lead, ['create', 'role', 'narrow', '-n', 'proj', '--verb=get', '--resource=secrets']);
    await kubectlOk(lead, ['create', 'rolebinding', 'narrow-to-bob', '-n', 'proj', '--role=narrow', '--user=bob']);
    const wider = await kubectl(lead, ['create', 'role', 'wider', '-n', 'proj', '--verb=get,delete', '--resource=secrets,configmaps']);
    assert.notEqual(wider.code, 0);
    assert.match(
      wider.stderr,
      /roles\.rbac\.authorization\.k8s\.io "wider" is forbidden: user "lead" .* is attempting to grant RBAC permissions not currently held/,
    );
    assert.match(wider.stderr, /\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["delete"\]\}/);
    assert.match(wider.stderr, /\{APIGroups:\[""\], Resources:\["configmaps"\], Verbs:\["get" "delete"\]\}/);
    const bindAdmin = await kubectl(lead, ['create', 'rolebinding', 'lead-admin', '-n', 'proj', '--clusterrole=cluster-admin', '--user=lead']);
    assert.notEqual(bindAdmin.code, 0);
    assert.match(bindAdmin.stderr, /is attempting to bind ClusterRole "cluster-admin" with RBAC permissions not currently held/);
    const cluster = await kubectl(lead, ['create', 'clusterrole', 'mine', '--verb=get', '--resource=secrets']);
    assert.match(cluster.stderr, /forbidden: User "lead" cannot create resource "clusterroles"/);
  });

  test('the escalate and bind verbs lift the escalation check', async () => {
    await admin(['create', 'role', 'escalator', '-n', 'proj', '--verb=escalate', '--resource=roles.rbac.authorization.k8s.io']);
    await admin([
      'create',
      'clusterrole',
      'bind-view',
      '--verb=bind',
      '--resource=clusterroles.rbac.authorization.k8s.io',
      '--resource-name=conductor:app-developer',
    ]);
    await admin(['create', 'rolebinding', 'lead-escalate', '-n', 'proj', '--role=escalator', '--user=lead']);
    await admin(['create', 'rolebinding', 'lead-bind', '-n', 'proj', '--clusterrole=bind-view', '--user=lead']);
    await eventually(
      async () => (await kubectl(lead, ['create', 'role', 'wider', '-n', 'proj', '--verb=get,delete', '--resource=secrets,configmaps'])).code === 0,
      'lead may escalate',
      5000,
    );
    await kubectlOk(lead, ['create', 'rolebinding', 'devs', '-n', 'proj', '--clusterrole=conductor:app-developer', '--user=dev']);
    const other = await kubectl(lead, ['create', 'rolebinding', 'plat', '-n', 'proj', '--clusterrole=conductor:platform-admin', '--user=dev']);
    assert.notEqual(other.code, 0, 'bind on one ClusterRole does not cover another');
  });

  test('decisions follow binding changes at once', async () => {
    const carol = await userKc('carol');
    const ask = async () => (await kubectl(carol, ['auth', 'can-i', 'list', 'secrets', '-n', 'proj'])).stdout.trim();
    assert.match(await ask(), /^no/);
    await admin(['create', 'rolebinding', 'carol', '-n', 'proj', '--role=secret-reader', '--user=carol']);
    await eventually(async () => (await ask()) === 'yes', 'carol may list secrets', 5000);
    await admin(['delete', 'rolebinding', 'carol', '-n', 'proj']);
    await eventually(async () => /^no/.test(await ask()), 'carol may no longer list secrets', 5000);
  });

  test('impersonation needs the impersonate verb; with it kubectl --as answers for the other user', async () => {
    assert.equal((await kubectlOk(server, ['auth', 'can-i', 'list', 'secrets', '-n', 'proj', '--as=lead'])).trim(), 'yes');
    assert.match((await kubectl(server, ['auth', 'can-i', 'list', 'secrets', '-n', 'default', '--as=lead'])).stdout, /^no/);
    const r = await kubectl(lead, ['get', 'secrets', '-n', 'proj', '--as=admin', '--as-group=system:masters']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /users "admin" is forbidden: User "lead" cannot impersonate resource "users"/);
  });

  test('SubjectAccessReview and LocalSubjectAccessReview answer for another user', async () => {
    const sar = JSON.parse(
      await admin(
        ['create', '--raw', '/apis/authorization.k8s.io/v1/subjectaccessreviews', '-f', '-'],
        JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: 'lead', resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'proj' } },
        }),
      ),
    );
    assert.equal(sar.status.allowed, true);
    assert.match(sar.status.reason, /RoleBinding "lead-secrets"/);
    const lsar = JSON.parse(
      await admin(
        ['create', '--raw', '/apis/authorization.k8s.io/v1/namespaces/proj/localsubjectaccessreviews', '-f', '-'],
        JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'LocalSubjectAccessReview',
          metadata: { namespace: 'proj' },
          spec: { user: 'lead', resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'proj' } },
        }),
      ),
    );
    assert.equal(lsar.status.allowed, false);
    const denied = await kubectl(lead, ['create', '--raw', '/apis/authorization.k8s.io/v1/subjectaccessreviews', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'secrets' } },
      }),
    });
    assert.match(denied.stderr, /forbidden: User "lead" cannot create resource "subjectaccessreviews"/);
  });

  test('the bootstrap policy is reconciled on restart: removed rules come back, additions stay', async () => {
    const role = JSON.parse(await admin(['get', 'clusterrole', 'conductor:app-developer-classes', '-o', 'json']));
    role.rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
    await admin(['replace', '-f', '-'], JSON.stringify(role));
    await admin(['delete', 'clusterrolebinding', 'system:basic-user']);
    await server.stop();
    server = await startServer({ dataDir });
    const after = JSON.parse(await admin(['get', 'clusterrole', 'conductor:app-developer-classes', '-o', 'json']));
    assert.deepEqual(after.rules, [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: ['core.conductor.io'], resources: ['resourceclasses'], verbs: ['get', 'list', 'watch'] },
    ]);
    await admin(['get', 'clusterrolebinding', 'system:basic-user']);
    // Bindings made before the restart still decide.
    const lead2 = await userKc('lead');
    assert.equal((await kubectlOk(lead2, ['auth', 'can-i', 'get', 'secrets', '-n', 'proj'])).trim(), 'yes');
  });
});

/**
 * What the trust issue (10) found about roles and policy, with the real kubectl and identities
 * from `conductor user add`: only controllers write status (1a), the system namespaces cannot
 * be deleted (6), `conductor user add` refuses admin groups without --allow-admin (15), and a
 * ResourceClass naming a missing Provider gets a warning (16).
 */
describe('roles and policy the trust issue asked for', () => {
  let server: ServerProcess;
  const admin = (args: string[], input?: string) => kubectlOk(server, args, input ? { input } : {});
  const userAdd = (name: string, ...extra: string[]) =>
    run(process.execPath, [
      cliPath,
      'user',
      'add',
      name,
      '--data-dir',
      server.dataDir,
      '--out',
      join(server.dataDir, 'users', `${name}.kubeconfig`),
      ...extra,
    ]).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
    );
  const kc = (name: string) => ({ kubeconfig: join(server.dataDir, 'users', `${name}.kubeconfig`) });

  before(async () => {
    server = await startServer();
    await admin([
      'wait',
      '--for=condition=Established',
      'crd/postgresqlinstances.storage.conductor.io',
      'crd/memorydatabases.database.memory.conductor.io',
      '--timeout=30s',
    ]);
    await admin(['create', 'namespace', 'team-a']);
    for (const [who, group] of [
      ['dev', ''],
      ['plat', 'conductor:platform-admins'],
      ['infra', 'conductor:infrastructure-admins'],
    ] as const) {
      const r = await userAdd(who, ...(group ? ['--group', group] : []));
      assert.equal(r.code, 0, r.stderr);
    }
    await admin(['create', 'rolebinding', 'devs', '--clusterrole=conductor:app-developer', '--user=dev', '-n', 'team-a']);
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('1(a): a developer may write their claim but not its status; an infrastructure admin not a concrete status; the claim still binds', async () => {
    await admin(
      ['apply', '-f', '-'],
      'apiVersion: database.memory.conductor.io/v1alpha1\nkind: MemoryDatabase\nmetadata: {name: db-1, namespace: conductor-system}\nspec: {capabilities: {capacity: {storage: 10Gi}}}\n',
    );
    await kubectlOk(kc('dev'), ['apply', '-f', '-'], {
      input:
        'apiVersion: storage.conductor.io/v1alpha1\nkind: PostgreSQLInstance\nmetadata: {name: app-db, namespace: team-a}\nspec: {resourceName: does-not-exist}\n',
    });
    const forged = JSON.stringify({
      status: {
        phase: 'Bound',
        resourceRef: { apiVersion: 'database.memory.conductor.io/v1alpha1', kind: 'MemoryDatabase', namespace: 'conductor-system', name: 'db-1' },
      },
    });
    for (const type of ['merge', 'json']) {
      const patch = type === 'merge' ? forged : JSON.stringify([{ op: 'add', path: '/status', value: JSON.parse(forged).status }]);
      const r = await kubectl(kc('dev'), ['patch', 'postgresqlinstance', 'app-db', '-n', 'team-a', '--subresource=status', `--type=${type}`, '-p', patch]);
      assert.notEqual(r.code, 0, `a ${type} patch of the status was accepted: ${r.stdout}`);
      assert.match(
        r.stderr,
        /postgresqlinstances\.storage\.conductor\.io\/status "app-db" is forbidden: User "dev" cannot patch resource "postgresqlinstances\/status" in API group "storage\.conductor\.io" in the namespace "team-a"/,
      );
    }
    const put = JSON.parse(await kubectlOk(kc('dev'), ['get', 'postgresqlinstance', 'app-db', '-n', 'team-a', '-o', 'json']));
    put.status = JSON.parse(forged).status;
    const replaced = await kubectl(kc('dev'), ['replace', '--subresource=status', '-f', '-'], { input: JSON.stringify(put) });
    assert.notEqual(replaced.code, 0);
    assert.match(replaced.stderr, /forbidden: User "dev" cannot update resource "postgresqlinstances\/status"/);
    assert.match(
      (await kubectl(kc('dev'), ['auth', 'can-i', 'patch', 'postgresqlinstances.storage.conductor.io', '--subresource=status', '-n', 'team-a'])).stdout,
      /^no/,
    );
    // The main resource is still the developer's: they point it at the real resource, and the controllers bind it.
    await kubectlOk(kc('dev'), ['patch', 'postgresqlinstance', 'app-db', '-n', 'team-a', '--type=merge', '-p', '{"spec":{"resourceName":"db-1"}}']);
    await eventually(async () => {
      const c = JSON.parse(await kubectlOk(kc('dev'), ['get', 'postgresqlinstance', 'app-db', '-n', 'team-a', '-o', 'json']));
      return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: { type: string; status: string }) => x.type === 'Ready' && x.status === 'True');
    }, 'the claim Bound and Ready');
    // Admins: no status of concrete resources, Providers, claims, quotas.
    const infraStatus = await kubectl(kc('infra'), [
      'patch',
      'memorydatabase',
      'db-1',
      '-n',
      'conductor-system',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Available"}}',
    ]);
    assert.match(infraStatus.stderr, /forbidden: User "infra" cannot patch resource "memorydatabases\/status"/);
    await kubectlOk(kc('infra'), ['label', 'memorydatabase', 'db-1', '-n', 'conductor-system', 'tier=gold']);
    for (const [who, args] of [
      ['infra', ['patch', 'providers.core.conductor.io', '-n', 'conductor-system']],
      ['plat', ['patch', 'postgresqlinstances.storage.conductor.io', '-n', 'team-a']],
      ['plat', ['patch', 'claimquotas.core.conductor.io', '-n', 'team-a']],
    ] as const) {
      assert.match(
        (await kubectl(kc(who), ['auth', 'can-i', ...args.slice(0, 2), '--subresource=status', ...args.slice(2)])).stdout,
        /^no/,
        `${who} ${args.join(' ')}/status`,
      );
    }
  });

  test('1(a): a claim or concrete kind installed by CRD while the server runs is usable by the built-in roles at once, never its status, and its rules go with its CRD', async () => {
    const crd = (o: { plural: string; kind: string; group: string; labels?: string; categories?: string }) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${o.plural}.${o.group}${o.labels ? `, labels: {${o.labels}}` : ''}}
spec:
  group: ${o.group}
  scope: Namespaced
  names: {plural: ${o.plural}, singular: ${o.kind.toLowerCase()}, kind: ${o.kind}${o.categories ? `, categories: [${o.categories}]` : ''}}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}, status: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}
`;
    // A new abstract kind, marked only by the label docs/design.md 3.1 names, and a new concrete kind.
    await admin(
      ['apply', '-f', '-'],
      crd({ plural: 'warehouses', kind: 'Warehouse', group: 'analytics.conductor.io', labels: '"conductor.io/abstract": "true"' }),
    );
    await admin(['apply', '-f', '-'], crd({ plural: 'sandboxes', kind: 'Sandbox', group: 'compute.example.conductor.io', categories: 'managed' }));
    await admin([
      'wait',
      '--for=condition=Established',
      'crd/warehouses.analytics.conductor.io',
      'crd/sandboxes.compute.example.conductor.io',
      '--timeout=60s',
    ]);
    const warehouse = 'apiVersion: analytics.conductor.io/v1alpha1\nkind: Warehouse\nmetadata: {name: wh-1, namespace: team-a}\nspec: {size: small}\n';
    await eventually(
      async () => (await kubectl(kc('dev'), ['create', '-f', '-'], { input: warehouse })).code === 0,
      'the developer may create a Warehouse (no restart)',
    );
    const devStatus = await kubectl(kc('dev'), [
      'patch',
      'warehouse',
      'wh-1',
      '-n',
      'team-a',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Bound"}}',
    ]);
    assert.notEqual(devStatus.code, 0, `the developer patched the status: ${devStatus.stdout}`);
    assert.match(
      devStatus.stderr,
      /warehouses\.analytics\.conductor\.io\/status "wh-1" is forbidden: User "dev" cannot patch resource "warehouses\/status" in API group "analytics\.conductor\.io" in the namespace "team-a"/,
    );
    assert.equal(JSON.parse(await kubectlOk(kc('dev'), ['get', 'warehouse', 'wh-1', '-n', 'team-a', '-o', 'json'])).spec.size, 'small');
    // A claim kind known by its label only gets the Secret-reference check of every claim.
    const foreign = await kubectl(kc('dev'), ['create', '-f', '-'], {
      input:
        'apiVersion: analytics.conductor.io/v1alpha1\nkind: Warehouse\nmetadata: {name: wh-2, namespace: team-a}\nspec: {credentialsSecretRef: {name: pg-admin, namespace: conductor-system}}\n',
    });
    assert.notEqual(foreign.code, 0, `a Warehouse naming a Secret in conductor-system was accepted: ${foreign.stdout}`);
    assert.match(
      foreign.stderr,
      /spec\.credentialsSecretRef\.namespace: Invalid value: "conductor-system": a Secret reference may only name a Secret in the namespace of the Warehouse \("team-a"\)/,
    );
    assert.match(
      (await kubectl(kc('dev'), ['auth', 'can-i', 'create', 'warehouses.analytics.conductor.io', '-n', 'team-b'])).stdout,
      /^no/,
      'only in the namespace the developer is bound in',
    );
    // Platform admins read the new claim kind; infrastructure admins use the new concrete kind.
    assert.equal((await kubectlOk(kc('plat'), ['auth', 'can-i', 'list', 'warehouses.analytics.conductor.io', '-A'])).trim(), 'yes');
    const sandbox = 'apiVersion: compute.example.conductor.io/v1alpha1\nkind: Sandbox\nmetadata: {name: sb-1, namespace: conductor-system}\nspec: {cpus: 1}\n';
    await eventually(
      async () => (await kubectl(kc('infra'), ['create', '-f', '-'], { input: sandbox })).code === 0,
      'the infrastructure admin may create a Sandbox (no restart)',
    );
    const infraStatus = await kubectl(kc('infra'), [
      'patch',
      'sandbox',
      'sb-1',
      '-n',
      'conductor-system',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"ready":true}}',
    ]);
    assert.match(infraStatus.stderr, /forbidden: User "infra" cannot patch resource "sandboxes\/status"/);
    assert.match(
      (await kubectl(kc('dev'), ['auth', 'can-i', 'create', 'sandboxes.compute.example.conductor.io', '-n', 'team-a'])).stdout,
      /^no/,
      "a concrete kind is not the developer's",
    );
    const devRole = JSON.parse(await admin(['get', 'clusterrole', 'conductor:app-developer', '-o', 'json']));
    assert.deepEqual(
      devRole.rules.filter((r: { apiGroups?: string[] }) => r.apiGroups?.includes('analytics.conductor.io')),
      [
        { apiGroups: ['analytics.conductor.io'], resources: ['warehouses'], verbs: ['*'] },
        { apiGroups: ['analytics.conductor.io'], resources: ['warehouses/status'], verbs: ['get', 'list', 'watch'] },
      ],
    );
    const canCreate = async () => (await kubectl(kc('dev'), ['auth', 'can-i', 'create', 'warehouses.analytics.conductor.io', '-n', 'team-a'])).stdout.trim();
    // Without the label the kind is no claim: the developer loses it; with it again, has it again.
    await admin(['label', 'crd', 'warehouses.analytics.conductor.io', 'conductor.io/abstract-']);
    await eventually(async () => /^no/.test(await canCreate()), 'the developer no longer may create Warehouses once the CRD is no claim kind');
    await admin(['label', 'crd', 'warehouses.analytics.conductor.io', 'conductor.io/abstract=true']);
    await eventually(async () => (await canCreate()) === 'yes', 'the developer may create Warehouses again');
    // Deleting the CRDs removes their rules from every built-in role. (Admission gave the claim
    // the claim-protection finalizer, but the claim controller only serves the catalog's claim
    // kinds, so nothing would release it: the admin does, or the CRD's deletion waits forever.)
    await admin(['patch', 'warehouse', 'wh-1', '-n', 'team-a', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await admin(['delete', 'crd', 'warehouses.analytics.conductor.io', 'sandboxes.compute.example.conductor.io']);
    await eventually(async () => {
      const roles = JSON.parse(await admin(['get', 'clusterroles', '-l', 'kubernetes.io/bootstrapping=rbac-defaults', '-o', 'json']));
      return !/analytics\.conductor\.io|compute\.example\.conductor\.io|warehouses|sandboxes/.test(
        JSON.stringify(roles.items.map((r: { rules: unknown }) => r.rules)),
      );
    }, 'no built-in role names the deleted kinds');
    assert.match(await canCreate(), /^no/);
    // The catalog's kinds are untouched.
    assert.equal((await kubectlOk(kc('dev'), ['auth', 'can-i', 'create', 'postgresqlinstances.storage.conductor.io', '-n', 'team-a'])).trim(), 'yes');
  });

  test('6: nobody deletes a system namespace, not even in a dry run', async () => {
    for (const ns of ['conductor-system', 'kube-system', 'kube-public', 'kube-node-lease', 'default']) {
      for (const [who, dry] of [
        [kc('plat'), true],
        [kc('plat'), false],
        [server, true],
        [server, false],
      ] as const) {
        const r = await kubectl(who, ['delete', 'namespace', ns, ...(dry ? ['--dry-run=server'] : [])]);
        assert.notEqual(r.code, 0, `${ns} ${dry ? '(dry run) ' : ''}was deleted: ${r.stdout}`);
        assert.match(
          r.stderr,
          new RegExp(`Error from server \\(Forbidden\\): namespaces "${ns}" is forbidden: ${ns} is a system namespace.* may not be deleted`),
        );
      }
      const phase = await kubectlOk(server, ['get', 'namespace', ns, '-o', 'jsonpath={.status.phase}']);
      assert.equal(phase, 'Active');
    }
    // Other namespaces are the platform admin's to delete.
    await admin(['create', 'namespace', 'scratch']);
    await kubectlOk(kc('plat'), ['delete', 'namespace', 'scratch', '--dry-run=server']);
  });

  test('15: conductor user add refuses system:masters and other system: groups without --allow-admin', async () => {
    for (const group of ['system:masters', 'system:nodes']) {
      const r = await userAdd('mallory', '--group', 'developers', '--group', group);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`conductor user add: the group "${group}" .*pass --allow-admin`));
    }
    assert.equal(existsSync(kc('mallory').kubeconfig), false, 'a refused user add writes no kubeconfig');
    const ok = await userAdd('root2', '--group', 'system:masters', '--allow-admin');
    assert.equal(ok.code, 0, ok.stderr);
    const who = JSON.parse(await kubectlOk(kc('root2'), ['auth', 'whoami', '-o', 'json']));
    assert.ok(who.status.userInfo.groups.includes('system:masters'));
    assert.equal((await kubectlOk(kc('root2'), ['auth', 'can-i', 'get', 'secrets', '-n', 'conductor-system'])).trim(), 'yes');
  });

  test('16: a ResourceClass or concrete resource naming a missing Provider is accepted with a warning', async () => {
    const cls = (provider: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ghost-${provider}, namespace: conductor-system}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
providerRef: {name: ${provider}}
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`;
    const missing = await kubectl(kc('plat'), ['apply', '-f', '-'], { input: cls('nowhere') });
    assert.equal(missing.code, 0, missing.stderr);
    assert.match(
      missing.stderr,
      /Warning: providerRef names Provider "nowhere", which does not exist in namespace "conductor-system": resources provisioned from this class cannot become ready until that Provider is created/,
    );
    await admin(
      ['apply', '-f', '-'],
      'apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: here, namespace: conductor-system}\nspec: {type: local}\n',
    );
    const present = await kubectl(kc('plat'), ['apply', '-f', '-'], { input: cls('here') });
    assert.equal(present.code, 0, present.stderr);
    assert.doesNotMatch(present.stderr, /Warning/);
    const resource = await kubectl(kc('infra'), ['apply', '--dry-run=server', '-f', '-'], {
      input:
        'apiVersion: database.memory.conductor.io/v1alpha1\nkind: MemoryDatabase\nmetadata: {name: db-2, namespace: conductor-system}\nspec: {providerRef: {name: nowhere}}\n',
    });
    assert.equal(resource.code, 0, resource.stderr);
    assert.match(
      resource.stderr,
      /Warning: spec\.providerRef names Provider "nowhere", which does not exist in namespace "conductor-system": this resource cannot become ready/,
    );
  });
});
