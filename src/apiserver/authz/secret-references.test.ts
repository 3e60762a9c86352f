import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import type { AdmissionAttributes } from '../admission/types.js';
import type { ResourceType } from '../registry/resource-type.js';
import type { UserInfo } from '../rest/context.js';
import { SecretReferenceCheck, secretReferences } from './secret-references.js';
import type { AuthorizationAttributes, Authorizer } from './types.js';

describe('secretReferences', () => {
  test('finds every kind of Secret reference at any depth, with its field path', () => {
    const spec = {
      adminCredentialsSecretRef: { name: 'admin', usernameKey: 'u' },
      credentialsSecretRef: { name: 'creds', namespace: 'elsewhere' },
      writeConnectionSecretToRef: { name: 'out' },
      tls: { secretRef: { name: 'cert' } },
      targets: [{ caSecretRef: { name: 'ca' } }],
      providerRef: { name: 'not-a-secret' },
      emptySecretRef: { name: '' },
    };
    assert.deepEqual(
      secretReferences(spec, 'spec').map((r) => [r.field, r.name, r.verb, r.namespace]),
      [
        ['spec.adminCredentialsSecretRef', 'admin', 'get', undefined],
        ['spec.credentialsSecretRef', 'creds', 'get', 'elsewhere'],
        ['spec.writeConnectionSecretToRef', 'out', 'create', undefined],
        ['spec.tls.secretRef', 'cert', 'get', undefined],
        ['spec.targets[0].caSecretRef', 'ca', 'get', undefined],
      ],
    );
  });
});

describe('SecretReferenceCheck', () => {
  // The authorizer: infra may use Secrets in conductor-system only.
  const asked: string[] = [];
  const authorizer: Authorizer = {
    authorize(a: AuthorizationAttributes) {
      asked.push(`${a.user.name} ${a.verb} ${a.resource} ${a.namespace}/${a.name}`);
      return { allowed: a.user.name === 'root' || a.namespace === 'conductor-system', reason: '' };
    },
  };
  const check = new SecretReferenceCheck(authorizer);
  const rt = (resource: string, kind: string, group: string, categories: string[] = [], namespaced = true) =>
    ({ resource, kind, group, categories, namespaced }) as unknown as ResourceType;
  const pgServers = rt('postgresqlservers', 'PostgreSQLServer', 'database.local.conductor.io', ['managed']);
  const classes = rt('resourceclasses', 'ResourceClass', 'core.conductor.io');
  const infra: UserInfo = { name: 'infra', groups: ['conductor:infrastructure-admins'] };
  const attrs = (r: ResourceType, ns: string, obj: Record<string, unknown>, old?: Record<string, unknown>, user = infra): AdmissionAttributes => ({
    operation: old ? 'UPDATE' : 'CREATE',
    rt: r,
    namespace: ns,
    name: 'x',
    subresource: '',
    object: { apiVersion: 'v1', kind: r.kind, metadata: { name: 'x', namespace: ns }, ...obj },
    oldObject: old ? { apiVersion: 'v1', kind: r.kind, metadata: { name: 'x', namespace: ns }, ...old } : undefined,
    dryRun: false,
    ctx: { user, userAgent: 't', warnings: [] },
  });
  const ref = (name: string, more: Record<string, unknown> = {}) => ({ spec: { adminCredentialsSecretRef: { name, ...more } } });

  const cases: Array<{ reason: string; a: AdmissionAttributes; want: number | undefined; message?: RegExp }> = [
    { reason: 'a Secret the writer may read', a: attrs(pgServers, 'conductor-system', ref('pg-admin')), want: undefined },
    {
      reason: "a tenant's Secret",
      a: attrs(pgServers, 'team-a', ref('app-secret')),
      want: 403,
      message: /spec\.adminCredentialsSecretRef names Secret "app-secret" in namespace "team-a", and User "infra" cannot get secrets there/,
    },
    { reason: 'system:masters (root) may', a: attrs(pgServers, 'team-a', ref('app-secret'), undefined, { name: 'root', groups: [] }), want: undefined },
    {
      reason: 'an unchanged reference on update is not asked again',
      a: attrs(pgServers, 'team-a', { ...ref('made-by-root'), metadata: {} }, ref('made-by-root')),
      want: undefined,
    },
    {
      reason: 'a changed key is a new reference',
      a: attrs(pgServers, 'team-a', ref('made-by-root', { usernameKey: 'password' }), ref('made-by-root')),
      want: 403,
    },
    {
      reason: 'a reference into another namespace is invalid',
      a: attrs(pgServers, 'conductor-system', ref('x', { namespace: 'team-a' })),
      want: 422,
      message: /spec\.adminCredentialsSecretRef\.namespace: Invalid value: "team-a"/,
    },
    {
      reason: 'a class template is checked in the class namespace and conductor-system',
      a: attrs(classes, 'team-a', { template: { spec: { adminCredentialsSecretRef: { name: 's' } } } }),
      want: 403,
      message: /template\.spec\.adminCredentialsSecretRef names Secret "s" in namespace "team-a"/,
    },
    {
      reason: 'a written Secret needs create',
      a: attrs(pgServers, 'team-a', { spec: { writeConnectionSecretToRef: { name: 'out' } } }),
      want: 403,
      message: /cannot create secrets there/,
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      assert.ok(check.handles(c.a));
      let got: number | undefined;
      try {
        await check.validate(c.a);
      } catch (err) {
        assert.ok(isApiError(err), String(err));
        got = err.code;
        if (c.message) assert.match(err.message, c.message);
      }
      assert.equal(got, c.want);
    });
  }

  test('status writes and other kinds are not its business', () => {
    assert.equal(check.handles({ ...attrs(pgServers, 'team-a', ref('s')), subresource: 'status' }), false);
    assert.equal(check.handles(attrs(rt('configmaps', 'ConfigMap', ''), 'team-a', ref('s'))), false);
    assert.equal(check.handles(attrs(rt('postgresqlinstances', 'PostgreSQLInstance', 'storage.conductor.io', ['claim']), 'team-a', ref('s'))), true);
  });

  test('a claim kind known by its label only (no claim category) is checked too', async () => {
    const labelled = {
      ...rt('warehouses', 'Warehouse', 'analytics.conductor.io'),
      source: { type: 'crd', crdName: 'warehouses.analytics.conductor.io' },
    } as unknown as ResourceType;
    const other = { ...rt('widgets', 'Widget', 'example.com'), source: { type: 'crd', crdName: 'widgets.example.com' } } as unknown as ResourceType;
    const withIndex = new SecretReferenceCheck(authorizer, async (r) => r.resource === 'warehouses');
    const a = attrs(labelled, 'team-a', ref('app-secret'));
    assert.ok(withIndex.handles(a));
    await assert.rejects(withIndex.validate(a), (err: unknown) => isApiError(err) && err.code === 403 && /cannot get secrets there/.test(err.message));
    await withIndex.validate(attrs(other, 'team-a', ref('app-secret')));
    assert.equal(check.handles(a), false, 'without the index only categories count');
  });
});
