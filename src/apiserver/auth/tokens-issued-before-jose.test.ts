import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { keyIdOf } from './jwt.js';
import { ServiceAccountTokens, type ObjectLookup } from './service-account-tokens.js';

// Tokens issued by Conductor's hand-written ES256 signer (before signing moved to jose), with the
// PKCS#8 PEM signing key as service-account-key.ts keeps it on disk. They were produced once by
// ServiceAccountTokens.issue at 2030-01-01T00:00:00Z and must keep verifying: a restarted API
// server must accept the tokens it handed out before the upgrade.
const KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgXo76/qJqpLAKN6uH
taBXpSQ6CfLDZ9KyOBmnE0gnFC+hRANCAAQ8ba03KtFkPhMUrrZjK/7gpSRCiP9r
2Q+JAxg7javxiztT6Ex6iSBHmLaI9XI1ooe3iVzsFXqoBwDxUIoSZfYN
-----END PRIVATE KEY-----
`;
const KID = 'kVYkfQcseORyf0juIru5ssAqlHDPgVrAf2NcMFFqveE';
const PLAIN_TOKEN =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImtWWWtmUWNzZU9SeWYwanVJcnU1c3NBcWxIRFBnVnJBZjJOY01GRnF2ZUUifQ.eyJhdWQiOlsiaHR0cHM6Ly9rdWJlcm5ldGVzLmRlZmF1bHQuc3ZjLmNsdXN0ZXIubG9jYWwiXSwiZXhwIjoxODkzNDU5NjAwLCJpYXQiOjE4OTM0NTYwMDAsImlzcyI6Imh0dHBzOi8va3ViZXJuZXRlcy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIiwianRpIjoiMmFlYWQyZGMtYjVkMy00YmZhLTgxODEtOWQxNGU4ZTJhMTU0Iiwia3ViZXJuZXRlcy5pbyI6eyJuYW1lc3BhY2UiOiJ0ZWFtLWEiLCJzZXJ2aWNlYWNjb3VudCI6eyJuYW1lIjoiYnVpbGRlciIsInVpZCI6IjExMTExMTExLTExMTEtMTExMS0xMTExLTExMTExMTExMTExMSJ9fSwibmJmIjoxODkzNDU2MDAwLCJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6dGVhbS1hOmJ1aWxkZXIifQ._ssC7tU5SmZcU0JX5YZwb6LPDswkVNeZNpevKPVgEMHDa_Qd5FVjudR4JtctRUT8KVPI0idAJCUxAtXgqoTcug';
/** Audience vault, 2 hours, bound to Secret team-a/bound. */
const BOUND_TOKEN =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImtWWWtmUWNzZU9SeWYwanVJcnU1c3NBcWxIRFBnVnJBZjJOY01GRnF2ZUUifQ.eyJhdWQiOlsidmF1bHQiXSwiZXhwIjoxODkzNDYzMjAwLCJpYXQiOjE4OTM0NTYwMDAsImlzcyI6Imh0dHBzOi8va3ViZXJuZXRlcy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIiwianRpIjoiN2I1OGEwMDEtNDkzYS00YjQ3LTkzMzItZWNlYzQ2MmY0MjllIiwia3ViZXJuZXRlcy5pbyI6eyJuYW1lc3BhY2UiOiJ0ZWFtLWEiLCJzZXJ2aWNlYWNjb3VudCI6eyJuYW1lIjoiYnVpbGRlciIsInVpZCI6IjExMTExMTExLTExMTEtMTExMS0xMTExLTExMTExMTExMTExMSJ9LCJzZWNyZXQiOnsibmFtZSI6ImJvdW5kIiwidWlkIjoiMjIyMjIyMjItMjIyMi0yMjIyLTIyMjItMjIyMjIyMjIyMjIyIn19LCJuYmYiOjE4OTM0NTYwMDAsInN1YiI6InN5c3RlbTpzZXJ2aWNlYWNjb3VudDp0ZWFtLWE6YnVpbGRlciJ9.fThsLxQqmkQxtx9-huIpyTyFPme_lOc2GvEwjXLjzU0bnYR-3ywSivW9sxasGhJ9uePvoaUfFv1KjFRQxuGUWg';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const SA_UID = '11111111-1111-1111-1111-111111111111';
const SECRET_UID = '22222222-2222-2222-2222-222222222222';
const objects: Record<string, string> = { 'ServiceAccount/team-a/builder': SA_UID, 'Secret/team-a/bound': SECRET_UID };
const live: ObjectLookup = async (kind, ns, name) => objects[`${kind}/${ns}/${name}`];

function verifier(now: number, apiAudiences?: string[]): ServiceAccountTokens {
  const privateKey = createPrivateKey(KEY_PEM);
  const key = { privateKey, publicKey: createPublicKey(privateKey), kid: keyIdOf(privateKey) };
  return new ServiceAccountTokens({ key, lookup: live, now: () => now, ...(apiAudiences ? { apiAudiences } : {}) });
}

test('the key on disk keeps its key id', () => {
  assert.equal(keyIdOf(createPrivateKey(KEY_PEM)), KID);
});

test('a token issued before the move to jose still authenticates', async () => {
  const v = await verifier(T0 + 60_000).verify(PLAIN_TOKEN);
  assert.ok(v.ok, v.ok ? '' : v.reason);
  assert.equal(v.user.name, 'system:serviceaccount:team-a:builder');
  assert.equal(v.claims.exp, T0 / 1000 + 3600);
});

test('a bound token with its own audience issued before the move to jose still authenticates', async () => {
  const v = await verifier(T0 + 60_000, ['vault']).verify(BOUND_TOKEN);
  assert.ok(v.ok, v.ok ? '' : v.reason);
  assert.deepEqual(v.claims['kubernetes.io'].secret, { name: 'bound', uid: SECRET_UID });
});

test('an old token is still refused once it has expired', async () => {
  const v = await verifier(T0 + 3600_000).verify(PLAIN_TOKEN);
  assert.equal(v.ok, false);
  assert.match(v.ok ? '' : v.reason, /token expired at 2030-01-01T01:00:00/);
});

test('a token issued now has the same header and claim layout as one issued before', async () => {
  const issued = await verifier(T0).issue({ namespace: 'team-a', serviceAccount: { name: 'builder', uid: SA_UID } });
  const [newHeader, newPayload] = issued.token.split('.') as [string, string];
  const [oldHeader, oldPayload] = PLAIN_TOKEN.split('.') as [string, string];
  assert.equal(newHeader, oldHeader);
  const withoutJti = (part: string) =>
    Buffer.from(part, 'base64url')
      .toString()
      .replace(/"jti":"[0-9a-f-]{36}"/, '"jti":"-"');
  assert.equal(withoutJti(newPayload), withoutJti(oldPayload));
});
