import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Authenticator } from './authenticator.js';
import { keyIdOf, signJwt } from './jwt.js';
import type { ServiceAccountSigningKey } from './service-account-key.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, ServiceAccountTokens, type IssueRequest, type ObjectLookup } from './service-account-tokens.js';

function signingKey(): ServiceAccountSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, kid: keyIdOf(publicKey) };
}

const T0 = Date.parse('2030-01-01T00:00:00Z');
const SA_UID = '11111111-1111-1111-1111-111111111111';
const SECRET_UID = '22222222-2222-2222-2222-222222222222';
const key = signingKey();
const otherKey = signingKey();

/** objects is a fake store: "kind/ns/name" → uid. */
function lookupFrom(objects: Record<string, string>): ObjectLookup {
  return async (kind, ns, name) => objects[`${kind}/${ns}/${name}`];
}
const live = { 'ServiceAccount/team-a/builder': SA_UID, 'Secret/team-a/bound': SECRET_UID };

function tokens(opts: { objects?: Record<string, string>; now?: number; k?: ServiceAccountSigningKey; audiences?: string[] } = {}): ServiceAccountTokens {
  return new ServiceAccountTokens({
    key: opts.k ?? key,
    lookup: lookupFrom(opts.objects ?? live),
    now: () => opts.now ?? T0,
    ...(opts.audiences ? { apiAudiences: opts.audiences } : {}),
  });
}

const request: IssueRequest = { namespace: 'team-a', serviceAccount: { name: 'builder', uid: SA_UID } };

describe('ServiceAccountTokens.issue', () => {
  test('a token carries the Kubernetes claims shape', async () => {
    const issued = await tokens().issue({ ...request, expirationSeconds: 1200 });
    const payload = JSON.parse(Buffer.from(issued.token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(
      { ...payload, jti: 'x' },
      {
        aud: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
        exp: T0 / 1000 + 1200,
        iat: T0 / 1000,
        iss: DEFAULT_SERVICE_ACCOUNT_ISSUER,
        jti: 'x',
        'kubernetes.io': { namespace: 'team-a', serviceaccount: { name: 'builder', uid: SA_UID } },
        nbf: T0 / 1000,
        sub: 'system:serviceaccount:team-a:builder',
      },
    );
    assert.match(String(payload.jti), /^[0-9a-f-]{36}$/);
    assert.equal(issued.expiresAt.toISOString(), '2030-01-01T00:20:00.000Z');
    const header = JSON.parse(Buffer.from(issued.token.split('.')[0], 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(header, { alg: 'ES256', kid: key.kid });
  });

  test('no expiration means one hour; explicit audiences replace the default', async () => {
    const issued = await tokens().issue({ ...request, audiences: ['vault'] });
    assert.equal(issued.expirationSeconds, 3600);
    assert.deepEqual(issued.audiences, ['vault']);
  });
});

describe('ServiceAccountTokens.verify', async () => {
  const good = (await tokens().issue(request)).token;
  const bound = (await tokens().issue({ ...request, boundSecret: { name: 'bound', uid: SECRET_UID } })).token;
  const [h, , s] = good.split('.') as [string, string, string];
  const payloadOf = (t: string) => JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payloadOf(good), sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url')}.${s}`;
  const resign = (change: (p: Record<string, unknown>) => void) => {
    const p = payloadOf(good);
    change(p);
    return signJwt(p, key.privateKey, key.kid);
  };

  const cases: Array<{ reason: string; token: string; verifier?: ServiceAccountTokens; want: RegExp | 'ok' }> = [
    { reason: 'a fresh token of a live account authenticates', token: good, want: 'ok' },
    { reason: 'a token just before it expires authenticates', token: good, verifier: tokens({ now: T0 + 3599_000 }), want: 'ok' },
    { reason: 'an expired token is refused', token: good, verifier: tokens({ now: T0 + 3600_000 }), want: /token expired at 2030-01-01T01:00:00/ },
    { reason: 'a token signed by another key is refused', token: (await tokens({ k: otherKey }).issue(request)).token, want: /not a known signing key/ },
    { reason: 'a tampered payload is refused', token: tampered, want: /does not verify/ },
    {
      reason: 'a token for another audience is refused',
      token: (await tokens().issue({ ...request, audiences: ['vault'] })).token,
      want: /audiences \["vault"\] include none/,
    },
    {
      reason: 'a verifier with extra audiences accepts one of them',
      token: (await tokens().issue({ ...request, audiences: ['vault'] })).token,
      verifier: tokens({ audiences: ['api', 'vault'] }),
      want: 'ok',
    },
    { reason: "a deleted account's token is refused", token: good, verifier: tokens({ objects: {} }), want: /service account team-a\/builder does not exist/ },
    {
      reason: 'an account deleted and re-created (new uid) is refused',
      token: good,
      verifier: tokens({ objects: { 'ServiceAccount/team-a/builder': 'new-uid' } }),
      want: /has uid new-uid, the token was issued for uid 1111/,
    },
    { reason: 'another issuer is refused', token: await resign((p) => (p.iss = 'https://elsewhere')), want: /issuer "https:\/\/elsewhere" is not/ },
    { reason: 'a token not valid yet is refused', token: await resign((p) => (p.nbf = T0 / 1000 + 600)), want: /not valid before/ },
    {
      reason: 'a subject that does not match the kubernetes.io claim is refused',
      token: await resign((p) => (p.sub = 'system:serviceaccount:team-a:other')),
      want: /does not match its kubernetes.io claim/,
    },
    {
      reason: 'a token without the kubernetes.io claim is refused',
      token: await resign((p) => delete p['kubernetes.io']),
      want: /kubernetes.io must be an object/,
    },
    { reason: 'a token without exp is refused', token: await resign((p) => delete p.exp), want: /claim exp must be a number/ },
    { reason: 'a token bound to a live Secret authenticates', token: bound, want: 'ok' },
    {
      reason: 'a token bound to a deleted Secret is refused',
      token: bound,
      verifier: tokens({ objects: { 'ServiceAccount/team-a/builder': SA_UID } }),
      want: /secret team-a\/bound the token is bound to does not exist/,
    },
    {
      reason: 'a token bound to a re-created Secret is refused',
      token: bound,
      verifier: tokens({ objects: { ...live, 'Secret/team-a/bound': 'x' } }),
      want: /has uid x, the token is bound to uid 2222/,
    },
    { reason: 'garbage is refused', token: 'not.a.jwt', want: /not base64url-encoded JSON/ },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const v = await (c.verifier ?? tokens()).verify(c.token);
      if (c.want === 'ok') {
        assert.ok(v.ok, v.ok ? '' : v.reason);
        assert.deepEqual(v.user, {
          name: 'system:serviceaccount:team-a:builder',
          uid: SA_UID,
          groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
        });
      } else {
        assert.equal(v.ok, false);
        assert.match(v.ok ? '' : v.reason, c.want);
      }
    });
  }

  test('the signature is checked before the account is looked up', async () => {
    let lookups = 0;
    const v = new ServiceAccountTokens({ key, lookup: async () => (lookups++, SA_UID), now: () => T0 });
    assert.equal((await v.verify(tampered)).ok, false);
    assert.equal(lookups, 0);
  });

  test('tokens signed with a retired key still verify when it is listed as an extra verification key', async () => {
    const old = (await tokens({ k: otherKey }).issue(request)).token;
    const v = new ServiceAccountTokens({ key, extraVerificationKeys: [otherKey.publicKey], lookup: lookupFrom(live), now: () => T0 });
    assert.ok((await v.verify(old)).ok);
  });
});

describe('Authenticator.authenticateRequestAsync', async () => {
  const sa = tokens();
  const auth = new Authenticator({ tokens: new Map([['static-token', { name: 'ops', groups: ['ops'] }]]), serviceAccountTokens: sa });
  const req = (authorization?: string) => ({ headers: authorization ? { authorization } : {}, socket: {} }) as unknown as IncomingMessage;
  const cases: Array<{ reason: string; header?: string; want?: string }> = [
    { reason: 'a static token authenticates as its user', header: 'Bearer static-token', want: 'ops' },
    {
      reason: 'a ServiceAccount token authenticates as the account',
      header: `Bearer ${(await sa.issue(request)).token}`,
      want: 'system:serviceaccount:team-a:builder',
    },
    { reason: 'an unknown opaque token is nobody', header: 'Bearer nope' },
    { reason: 'an invalid JWT is nobody', header: 'Bearer a.b.c' },
    { reason: 'no Authorization header is nobody (anonymous → 401)' },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      assert.equal((await auth.authenticateRequestAsync(req(c.header)))?.name, c.want);
    });
  }
});
