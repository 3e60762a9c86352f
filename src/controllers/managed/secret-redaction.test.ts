import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { ExternalClient } from '../../providers/spi.js';
import { redactingClient, Redactor } from './secret-redaction.js';

describe('Redactor', () => {
  const r = new Redactor(['s3cr3t-value', 'p@ss word/+', 'ab']);
  const cases: Array<{ reason: string; text: string; want: string }> = [
    { reason: 'a quoted value', text: 'password authentication failed for user "s3cr3t-value"', want: 'password authentication failed for user "[redacted]"' },
    { reason: 'every occurrence', text: "s3cr3t-value and 's3cr3t-value'@localhost", want: "[redacted] and '[redacted]'@localhost" },
    { reason: 'URL-encoded in a URI', text: 'postgres://u:p%40ss%20word%2F%2B@h/db', want: 'postgres://u:[redacted]@h/db' },
    { reason: 'base64', text: `data ${Buffer.from('s3cr3t-value').toString('base64')}`, want: 'data [redacted]' },
    { reason: 'values too short to be secrets are left', text: 'tab stop', want: 'tab stop' },
    { reason: 'nothing known', text: 'connect ECONNREFUSED 127.0.0.1:5432', want: 'connect ECONNREFUSED 127.0.0.1:5432' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(r.redact(c.text), c.want));

  test('an error is replaced only when it quotes a value, keeping its name, dropping driver fields', () => {
    const plain = new Error('timeout');
    assert.equal(r.redactError(plain), plain);
    const driver = Object.assign(new Error('syntax error'), { name: 'QueryError', sql: "CREATE USER x IDENTIFIED BY 's3cr3t-value'" });
    const out = r.redactError(driver) as Error & { sql?: string };
    assert.notEqual(out, driver);
    assert.equal(out.name, 'QueryError');
    assert.equal(out.message, 'syntax error');
    assert.equal(out.sql, undefined);
  });

  test('connection details: only secret keys count', () => {
    const d = new Redactor().addDetails({
      host: 'db.example.com',
      username: 'app_user',
      password: 'generated-pw',
      uri: 'postgres://app_user:generated-pw@db.example.com/app',
    });
    assert.equal(d.redact('db.example.com app_user generated-pw'), 'db.example.com app_user [redacted]');
  });
});

describe('redactingClient', () => {
  test('rejections of every method lose the values; bindClaim also those of the previous details', async () => {
    const client = {
      async observe() {
        throw new Error('login failed for user "admin-name-1"');
      },
      async bindClaim(_r: KObject, _c: KObject, previous?: Record<string, string>) {
        throw new Error(`cannot set password ${previous?.password}`);
      },
      async create() {
        return { externalName: 'admin-name-1' };
      },
    } as unknown as ExternalClient<KObject>;
    const wrapped = redactingClient(client, new Redactor(['admin-name-1'])) as ExternalClient<KObject> & {
      bindClaim(r: KObject, c: KObject, p?: Record<string, string>): Promise<unknown>;
    };
    await assert.rejects(wrapped.observe({} as KObject), { message: 'login failed for user "[redacted]"' });
    await assert.rejects(wrapped.bindClaim({} as KObject, {} as KObject, { password: 'claim-password' }), { message: 'cannot set password [redacted]' });
    assert.deepEqual(await wrapped.create({} as KObject), { externalName: 'admin-name-1' }, 'results pass unchanged');
  });

  test("an observation's atProvider and drift lose the values; its connection details keep them", async () => {
    const client = {
      async observe() {
        return {
          exists: true,
          upToDate: false,
          drift: 'admin admin-name-1 lacks CREATEROLE',
          atProvider: { adminUser: 'admin-name-1', claims: 2, nested: [{ who: 'admin-name-1' }] },
          connectionDetails: { password: 'admin-name-1' },
        };
      },
    } as unknown as ExternalClient<KObject>;
    const got = await redactingClient(client, new Redactor(['admin-name-1'])).observe({} as KObject);
    assert.deepEqual(got, {
      exists: true,
      upToDate: false,
      drift: 'admin [redacted] lacks CREATEROLE',
      atProvider: { adminUser: '[redacted]', claims: 2, nested: [{ who: '[redacted]' }] },
      connectionDetails: { password: 'admin-name-1' },
    });
  });
});
