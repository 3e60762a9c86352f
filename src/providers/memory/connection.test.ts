import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sqlConnectionFormatter, sqlUri, type SqlEngine } from './connection.js';

const base = { host: 'memory.invalid', username: 'app', password: 'pw', database: 'app' };

describe('sqlConnectionFormatter', () => {
  const cases: { reason: string; engine: SqlEngine; input: Record<string, string>; want: Record<string, string> | RegExp }[] = [
    {
      reason: 'PostgreSQL without a port gets 5432 and a postgresql:// URI',
      engine: 'postgresql',
      input: base,
      want: { ...base, port: '5432', uri: 'postgresql://app:pw@memory.invalid:5432/app' },
    },
    {
      reason: 'MySQL without a port gets 3306 and a mysql:// URI',
      engine: 'mysql',
      input: base,
      want: { ...base, port: '3306', uri: 'mysql://app:pw@memory.invalid:3306/app' },
    },
    {
      reason: 'a port in the details wins over the engine default',
      engine: 'mysql',
      input: { ...base, port: '6033' },
      want: { ...base, port: '6033', uri: 'mysql://app:pw@memory.invalid:6033/app' },
    },
    {
      reason: 'keys beyond the documented ones are dropped and a raw uri is rebuilt for the engine',
      engine: 'postgresql',
      input: { ...base, uri: 'mysql://elsewhere', extra: 'x' },
      want: { ...base, port: '5432', uri: 'postgresql://app:pw@memory.invalid:5432/app' },
    },
    { reason: 'a missing password is named', engine: 'postgresql', input: { ...base, password: '' }, want: /PostgreSQL connection details lack password/ },
    {
      reason: 'a port that is not a TCP port is refused',
      engine: 'mysql',
      input: { ...base, port: '70000' },
      want: /port "70000": want an integer from 1 to 65535/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const format = sqlConnectionFormatter(c.engine);
      if (c.want instanceof RegExp) assert.throws(() => format(c.input), c.want);
      else assert.deepEqual(format(c.input), c.want);
    });
  }

  test('the URI carries any user, password and database back unchanged (percent-encoded)', () => {
    const text = fc.string({ minLength: 1, maxLength: 20 });
    // A URL parser reads a path of only dots ("." or "..", even percent-encoded) as a dot
    // segment; database names are never that (they are generated from namespace and name).
    const database = text.filter((d) => !/^\.+$/.test(d));
    fc.assert(
      fc.property(
        fc.constantFrom<SqlEngine>('postgresql', 'mysql'),
        text,
        text,
        database,
        fc.integer({ min: 1, max: 65535 }),
        (engine, username, password, database, port) => {
          const url = new URL(sqlUri(engine, { host: 'memory.invalid', port, username, password, database }));
          assert.equal(url.protocol, `${engine}:`);
          assert.equal(decodeURIComponent(url.username), username);
          assert.equal(decodeURIComponent(url.password), password);
          assert.equal(decodeURIComponent(url.pathname.slice(1)), database);
          assert.equal(url.hostname, 'memory.invalid');
          assert.equal(Number(url.port), port);
        },
      ),
    );
  });
});
