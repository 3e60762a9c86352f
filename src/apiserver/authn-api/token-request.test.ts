import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { errors, isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { keyIdOf, ServiceAccountTokens } from '../auth/index.js';
import type { RequestContext } from '../rest/context.js';
import { parseTokenRequest, tokenRequestEndpoint, type TokenRequestSpec } from './token-request.js';

describe('parseTokenRequest', () => {
  const cases: Array<{ reason: string; body: unknown; want?: TokenRequestSpec; code?: number; message?: RegExp }> = [
    { reason: 'an empty body gets the defaults', body: undefined, want: { audiences: [], expirationSeconds: 3600 } },
    {
      reason: 'kubectl create token without --duration (protobuf writes 0)',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 0 } },
      want: { audiences: [], expirationSeconds: 3600 },
    },
    {
      reason: 'audiences and a duration',
      body: { spec: { audiences: ['a', 'b'], expirationSeconds: 7200 } },
      want: { audiences: ['a', 'b'], expirationSeconds: 7200 },
    },
    {
      reason: 'bound to a Secret',
      body: { spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'u' } } },
      want: { audiences: [], expirationSeconds: 3600, boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'u' } },
    },
    { reason: 'another kind is a bad request', body: { kind: 'ConfigMap' }, code: 400, message: /kind "ConfigMap", expected TokenRequest/ },
    {
      reason: 'another apiVersion is a bad request',
      body: { apiVersion: 'v1', kind: 'TokenRequest' },
      code: 400,
      message: /apiVersion "v1", expected authentication.k8s.io\/v1/,
    },
    { reason: 'a body that is a list is a bad request', body: [1], code: 400, message: /expected a JSON object/ },
    {
      reason: 'less than ten minutes is invalid',
      body: { spec: { expirationSeconds: 599 } },
      code: 422,
      message: /spec.expirationSeconds: may not specify a duration less than 600 seconds/,
    },
    { reason: 'more than 2^32 seconds is invalid', body: { spec: { expirationSeconds: 2 ** 32 + 1 } }, code: 422, message: /larger than 2\^32 seconds/ },
    { reason: 'a fractional duration is invalid', body: { spec: { expirationSeconds: 700.5 } }, code: 422, message: /whole number of seconds/ },
    {
      reason: 'an audience that is not a string is invalid',
      body: { spec: { audiences: ['ok', 3] } },
      code: 422,
      message: /spec.audiences\[1\]: must be a non-empty string/,
    },
    {
      reason: 'binding to a Pod is not supported here',
      body: { spec: { boundObjectRef: { kind: 'Pod', name: 'p' } } },
      code: 422,
      message: /spec.boundObjectRef.kind: Unsupported value: "Pod"/,
    },
    {
      reason: 'a bound Secret needs a name',
      body: { spec: { boundObjectRef: { kind: 'Secret' } } },
      code: 422,
      message: /spec.boundObjectRef.name: Required value/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.want) return assert.deepEqual(parseTokenRequest(c.body, 'sa'), c.want);
      assert.throws(
        () => parseTokenRequest(c.body, 'sa'),
        (err: unknown) => {
          assert.ok(isApiError(err));
          assert.equal(err.code, c.code);
          assert.match(err.message, c.message!);
          return true;
        },
      );
    });
  }
});

describe('tokenRequestEndpoint', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const objects: Record<string, KObject> = {
    'serviceaccounts/apps/builder': { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'apps', uid: 'sa-uid' } },
    'secrets/apps/bound': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bound', namespace: 'apps', uid: 'secret-uid' } },
  };
  const lookup = async (kind: string, ns: string, name: string) =>
    objects[`${kind === 'ServiceAccount' ? 'serviceaccounts' : 'secrets'}/${ns}/${name}`]?.metadata.uid;
  const tokens = new ServiceAccountTokens({ key: { privateKey, publicKey, kid: keyIdOf(publicKey) }, lookup });
  const endpoint = tokenRequestEndpoint({
    tokens,
    get: async (resource, ns, name) => {
      const o = objects[`${resource}/${ns}/${name}`];
      if (!o) throw errors.notFound({ group: '', resource }, name);
      return o;
    },
    now: () => new Date('2030-01-01T00:00:00.500Z'),
  });
  const ctx: RequestContext = { user: { name: 'admin', groups: ['system:masters'] }, userAgent: 'test', warnings: [] };

  test('answers 201 with a TokenRequest whose token authenticates as the account', async () => {
    const { code, object } = await endpoint.create(ctx, { namespace: 'apps', name: 'builder' }, { spec: { expirationSeconds: 1200 } }, new URLSearchParams());
    assert.equal(code, 201);
    const tr = object as {
      kind: string;
      metadata: Record<string, unknown>;
      spec: Record<string, unknown>;
      status: { token: string; expirationTimestamp: string };
    };
    assert.equal(tr.kind, 'TokenRequest');
    assert.deepEqual(tr.metadata, { name: 'builder', namespace: 'apps', creationTimestamp: '2030-01-01T00:00:00Z' });
    assert.deepEqual(tr.spec, { audiences: [tokens.issuer], expirationSeconds: 1200, boundObjectRef: null });
    assert.match(tr.status.expirationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const user = await tokens.authenticate(tr.status.token);
    assert.equal(user?.name, 'system:serviceaccount:apps:builder');
    assert.equal(user?.uid, 'sa-uid');
  });

  test('a token bound to a Secret names it in spec.boundObjectRef', async () => {
    const { object } = await endpoint.create(
      ctx,
      { namespace: 'apps', name: 'builder' },
      { spec: { boundObjectRef: { kind: 'Secret', name: 'bound' } } },
      new URLSearchParams(),
    );
    assert.deepEqual((object as { spec: { boundObjectRef: unknown } }).spec.boundObjectRef, {
      kind: 'Secret',
      apiVersion: 'v1',
      name: 'bound',
      uid: 'secret-uid',
    });
  });

  const failures: Array<{ reason: string; name: string; body: unknown; code: number; message: RegExp }> = [
    { reason: 'a missing account is 404', name: 'ghost', body: {}, code: 404, message: /serviceaccounts "ghost" not found/ },
    {
      reason: 'a missing bound Secret is 404',
      name: 'builder',
      body: { spec: { boundObjectRef: { kind: 'Secret', name: 'gone' } } },
      code: 404,
      message: /secrets "gone" not found/,
    },
    {
      reason: 'a bound Secret with another uid is 409',
      name: 'builder',
      body: { spec: { boundObjectRef: { kind: 'Secret', name: 'bound', uid: 'old' } } },
      code: 409,
      message: /UID in the bound object reference \(old\) does not match/,
    },
  ];
  for (const c of failures) {
    test(c.reason, async () => {
      await assert.rejects(endpoint.create(ctx, { namespace: 'apps', name: c.name }, c.body, new URLSearchParams()), (err: unknown) => {
        assert.ok(isApiError(err));
        assert.equal(err.code, c.code);
        assert.match(err.message, c.message);
        return true;
      });
    });
  }

  test('the endpoint is the authorized serviceaccounts/token subresource', () => {
    assert.deepEqual([endpoint.group, endpoint.resource, endpoint.subresource, endpoint.authorize], ['', 'serviceaccounts', 'token', true]);
  });
});
