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
    await admin(['create', 'role', 'rbac-editor', '-n', 'proj', '--verb=get,list,create,update,patch,delete', '--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io']);
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
    for (const r of ['cluster-admin', 'conductor:infrastructure-admin', 'conductor:platform-admin', 'conductor:app-developer', 'conductor:app-developer-classes', 'system:basic-user', 'system:discovery']) {
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
    assert.match(wider.stderr, /roles\.rbac\.authorization\.k8s\.io "wider" is forbidden: user "lead" .* is attempting to grant RBAC permissions not currently held/);
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
    await admin(['create', 'clusterrole', 'bind-view', '--verb=bind', '--resource=clusterroles.rbac.authorization.k8s.io', '--resource-name=conductor:app-developer']);
    await admin(['create', 'rolebinding', 'lead-escalate', '-n', 'proj', '--role=escalator', '--user=lead']);
    await admin(['create', 'rolebinding', 'lead-bind', '-n', 'proj', '--clusterrole=bind-view', '--user=lead']);
    await eventually(async () => (await kubectl(lead, ['create', 'role', 'wider', '-n', 'proj', '--verb=get,delete', '--resource=secrets,configmaps'])).code === 0, 'lead may escalate', 5000);
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
      await admin(['create', '--raw', '/apis/authorization.k8s.io/v1/subjectaccessreviews', '-f', '-'], JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'lead', resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'proj' } } })),
    );
    assert.equal(sar.status.allowed, true);
    assert.match(sar.status.reason, /RoleBinding "lead-secrets"/);
    const lsar = JSON.parse(
      await admin(['create', '--raw', '/apis/authorization.k8s.io/v1/namespaces/proj/localsubjectaccessreviews', '-f', '-'], JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: 'proj' }, spec: { user: 'lead', resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'proj' } } })),
    );
    assert.equal(lsar.status.allowed, false);
    const denied = await kubectl(lead, ['create', '--raw', '/apis/authorization.k8s.io/v1/subjectaccessreviews', '-f', '-'], { input: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'secrets' } } }) });
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
