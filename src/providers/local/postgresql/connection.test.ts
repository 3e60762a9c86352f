import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { endpointFromDetails, formatPostgresConnection, postgresUri } from './connection.js';

const base = { host: '127.0.0.1', port: 5432, username: 'app', password: 'secret', database: 'orders' };

describe('postgresUri', () => {
  const cases = [
    { reason: 'plain parts', input: base, want: 'postgresql://app:secret@127.0.0.1:5432/orders' },
    {
      reason: 'reserved characters are percent-encoded',
      input: { ...base, password: 'p@ss:w/rd?#', database: 'my db' },
      want: 'postgresql://app:p%40ss%3Aw%2Frd%3F%23@127.0.0.1:5432/my%20db',
    },
    { reason: 'IPv6 hosts are bracketed', input: { ...base, host: '::1' }, want: 'postgresql://app:secret@[::1]:5432/orders' },
    {
      reason: 'sslmode require is carried',
      input: { ...base, sslMode: 'require' as const },
      want: 'postgresql://app:secret@127.0.0.1:5432/orders?sslmode=require',
    },
    {
      reason: 'sslmode disable is libpq-compatible without a parameter',
      input: { ...base, sslMode: 'disable' as const },
      want: 'postgresql://app:secret@127.0.0.1:5432/orders',
    },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(postgresUri(c.input), c.want));

  test('property: the URI parses back to the same parts', () => {
    fc.assert(
      // A URL parser reads a path of only dots ("." or "..", even percent-encoded) as a dot
      // segment; database names are never that (they are generated from namespace and name).
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }).filter((d) => !/^\.+$/.test(d)),
        fc.integer({ min: 1, max: 65535 }),
        (username, password, database, port) => {
          const url = new URL(postgresUri({ host: 'db.example', port, username, password, database }));
          assert.equal(decodeURIComponent(url.username), username);
          assert.equal(decodeURIComponent(url.password), password);
          assert.equal(decodeURIComponent(url.pathname.slice(1)), database);
          assert.equal(Number(url.port), port);
        },
      ),
    );
  });
});

describe('formatPostgresConnection', () => {
  test('gives exactly the documented keys, building uri when missing', () => {
    const got = formatPostgresConnection({ host: 'h', port: '5433', username: 'u', password: 'p', database: 'd', extra: 'dropped' });
    assert.deepEqual(got, { host: 'h', port: '5433', username: 'u', password: 'p', database: 'd', uri: 'postgresql://u:p@h:5433/d' });
  });

  test('keeps a uri the provider made (e.g. with sslmode)', () => {
    const uri = 'postgresql://u:p@h:5433/d?sslmode=require';
    assert.equal(formatPostgresConnection({ host: 'h', port: '5433', username: 'u', password: 'p', database: 'd', uri }).uri, uri);
  });

  const failures: { reason: string; input: Record<string, string>; want: RegExp }[] = [
    {
      reason: 'missing keys are named',
      input: { host: 'h', port: '1' },
      want: /lack username, password, database: want host, port, username, password and database/,
    },
    {
      reason: 'a bad port is named',
      input: { host: 'h', port: 'x', username: 'u', password: 'p', database: 'd' },
      want: /port "x": want an integer from 1 to 65535/,
    },
  ];
  for (const c of failures) test(c.reason, () => assert.throws(() => formatPostgresConnection(c.input), c.want));

  test('endpointFromDetails reads details back, or nothing when incomplete', () => {
    assert.deepEqual(endpointFromDetails({ host: 'h', port: '5', username: 'u', password: 'p', database: 'd' }), {
      host: 'h',
      port: 5,
      username: 'u',
      password: 'p',
      database: 'd',
    });
    assert.equal(endpointFromDetails({ host: 'h' }), undefined);
  });
});
