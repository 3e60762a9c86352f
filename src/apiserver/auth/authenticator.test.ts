import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator, bearerToken, type PeerCertificate } from './authenticator.js';
import { adminUser, type UserInfo } from './user-info.js';

const ADMIN_TOKEN = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MDEyMzQ1Njc4OTA';
const admin: UserInfo = { name: 'conductor-admin', groups: ['system:masters', 'system:authenticated'] };

describe('Authenticator', () => {
  let dir: string;
  let tokenFile: string;
  let auth: Authenticator;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conductor-authn-'));
    tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, ['alice-token,alice,1001,"dev,ops"', 'bob-token,bob,1002', 'shadow,mallory,666', `${ADMIN_TOKEN},impostor,0`].join('\n'));
    auth = new Authenticator({
      tokens: new Map([
        [ADMIN_TOKEN, adminUser()],
        ['shadow', { name: 'static', groups: [] }],
      ]),
      tokenFile,
    });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const tokenCases: Array<{ reason: string; header: string | undefined; want: UserInfo | undefined }> = [
    { reason: 'the admin token', header: `Bearer ${ADMIN_TOKEN}`, want: admin },
    { reason: 'the scheme is case-insensitive', header: `bearer ${ADMIN_TOKEN}`, want: admin },
    { reason: 'surrounding whitespace is ignored', header: `  BEARER ${ADMIN_TOKEN}  `, want: admin },
    {
      reason: 'a token-file user with groups',
      header: 'Bearer alice-token',
      want: { name: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] },
    },
    { reason: 'a token-file user without groups', header: 'Bearer bob-token', want: { name: 'bob', uid: '1002', groups: ['system:authenticated'] } },
    { reason: 'a static token wins over the token file', header: 'Bearer shadow', want: { name: 'static', groups: ['system:authenticated'] } },
    { reason: 'an unknown token', header: 'Bearer not-a-token', want: undefined },
    { reason: 'a prefix of a valid token', header: `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, want: undefined },
    { reason: 'a valid token with a suffix', header: `Bearer ${ADMIN_TOKEN}x`, want: undefined },
    { reason: 'no header', header: undefined, want: undefined },
    { reason: 'an empty header', header: '', want: undefined },
    { reason: 'the scheme alone', header: 'Bearer', want: undefined },
    { reason: 'the scheme and a space', header: 'Bearer ', want: undefined },
    { reason: 'two spaces before the token', header: `Bearer  ${ADMIN_TOKEN}`, want: undefined },
    { reason: 'a tab instead of a space', header: `Bearer\t${ADMIN_TOKEN}`, want: undefined },
    { reason: 'extra words after the token', header: `Bearer ${ADMIN_TOKEN} extra`, want: undefined },
    { reason: 'another scheme', header: `Basic ${Buffer.from('admin:pw').toString('base64')}`, want: undefined },
    { reason: 'a token without a scheme', header: ADMIN_TOKEN, want: undefined },
  ];
  for (const c of tokenCases) {
    test(`token: ${c.reason}`, () => {
      assert.deepEqual(auth.authenticate(c.header, undefined, false), c.want);
    });
  }

  const certCases: Array<{ reason: string; cert: PeerCertificate | undefined; verified: boolean; header?: string; want: UserInfo | undefined }> = [
    {
      reason: 'a verified certificate: CN is the name, O the groups',
      cert: { subject: { CN: 'carol', O: 'dev' } },
      verified: true,
      want: { name: 'carol', groups: ['dev', 'system:authenticated'] },
    },
    {
      reason: 'several O values become several groups',
      cert: { subject: { CN: 'dave', O: ['dev', 'system:masters'] } },
      verified: true,
      want: { name: 'dave', groups: ['dev', 'system:masters', 'system:authenticated'] },
    },
    {
      reason: 'no O means only system:authenticated',
      cert: { subject: { CN: 'erin' } },
      verified: true,
      want: { name: 'erin', groups: ['system:authenticated'] },
    },
    {
      reason: 'of several CNs the last one counts',
      cert: { subject: { CN: ['a', 'b'] } },
      verified: true,
      want: { name: 'b', groups: ['system:authenticated'] },
    },
    { reason: 'an unverified certificate is ignored', cert: { subject: { CN: 'mallory', O: 'system:masters' } }, verified: false, want: undefined },
    { reason: 'a certificate without CN authenticates nobody', cert: { subject: { O: 'dev' } }, verified: true, want: undefined },
    { reason: 'no certificate (node gives an empty object)', cert: {}, verified: true, want: undefined },
    {
      reason: 'a verified certificate wins over a token',
      cert: { subject: { CN: 'carol' } },
      verified: true,
      header: 'Bearer bob-token',
      want: { name: 'carol', groups: ['system:authenticated'] },
    },
    {
      reason: 'a token is used when the certificate is not verified',
      cert: { subject: { CN: 'mallory' } },
      verified: false,
      header: 'Bearer bob-token',
      want: { name: 'bob', uid: '1002', groups: ['system:authenticated'] },
    },
    {
      reason: 'a token is used when the certificate has no CN',
      cert: { subject: {} },
      verified: true,
      header: `Bearer ${ADMIN_TOKEN}`,
      want: admin,
    },
  ];
  for (const c of certCases) {
    test(`certificate: ${c.reason}`, () => {
      assert.deepEqual(auth.authenticate(c.header, c.cert, c.verified), c.want);
    });
  }

  test('the returned user is a copy', () => {
    const u = auth.authenticate(`Bearer ${ADMIN_TOKEN}`, undefined, false);
    u?.groups.push('changed');
    assert.deepEqual(auth.authenticate(`Bearer ${ADMIN_TOKEN}`, undefined, false), admin);
  });

  test('counts a token given both statically and in the file once', () => {
    // alice-token, bob-token, shadow and the admin token.
    assert.equal(auth.size, 4);
  });

  test('a missing token file is an error naming the file', () => {
    assert.throws(() => new Authenticator({ tokens: new Map(), tokenFile: join(dir, 'missing.csv') }), /cannot read token file .*missing\.csv/);
  });

  test('a malformed token file is an error naming the file', async () => {
    const bad = join(dir, 'bad.csv');
    await writeFile(bad, 'only,two\n');
    assert.throws(() => new Authenticator({ tokens: new Map(), tokenFile: bad }), /token file .*bad\.csv: record 1 has 2 column\(s\)/);
  });

  test('an empty static token is refused', () => {
    assert.throws(() => new Authenticator({ tokens: new Map([['', adminUser()]]) }), /empty static token/);
  });
});

describe('bearerToken', () => {
  test('returns the token of a well-formed header', () => {
    assert.equal(bearerToken('Bearer abc.def-_~+/='), 'abc.def-_~+/=');
  });
  test('returns undefined for a malformed one', () => {
    for (const h of ['Bearer', 'Token abc', 'Bearer a b', 'Bearer\u00a0abc']) assert.equal(bearerToken(h), undefined, h);
  });
});

describe('Authenticator on a kept-alive connection (real HTTP server and client)', () => {
  test('each request is answered for its own header: the same token again, another one, a wrong one, none', async () => {
    const { createServer, Agent, request } = await import('node:http');
    const auth = new Authenticator({
      tokens: new Map([
        ['alice-token', { name: 'alice', groups: ['dev'] }],
        ['bob-token', { name: 'bob', groups: [] }],
      ]),
    });
    const server = createServer((req, res) => {
      const user = auth.authenticateRequest(req);
      res.end(JSON.stringify({ user: user ?? null, port: req.socket.remotePort }));
      // A caller that changes the user it was given changes nothing for the next request.
      user?.groups.push('system:masters');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (authorization: string | undefined) =>
      new Promise<{ user: UserInfo | null; port: number }>((resolve, reject) => {
        const address = server.address() as { port: number };
        const req = request({ host: '127.0.0.1', port: address.port, agent, headers: authorization ? { authorization } : {} }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(JSON.parse(body) as { user: UserInfo | null; port: number }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      const answers = [];
      for (const header of ['Bearer alice-token', 'Bearer alice-token', 'Bearer bob-token', 'Bearer alice-tokeN', undefined, 'Bearer alice-token']) {
        answers.push(await ask(header));
      }
      assert.equal(new Set(answers.map((a) => a.port)).size, 1, 'one connection');
      assert.deepEqual(
        answers.map((a) => a.user?.name ?? null),
        ['alice', 'alice', 'bob', null, null, 'alice'],
      );
      assert.deepEqual(answers[1].user?.groups, ['dev', 'system:authenticated']);
      assert.deepEqual(answers[5].user?.groups, ['dev', 'system:authenticated']);
    } finally {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
