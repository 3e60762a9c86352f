import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { endpointFromDetails, formatMySqlConnection, mysqlUri } from './connection.js';

const full = { host: '127.0.0.1', port: '3306', username: 'app', password: 'p@ss/word', database: 'orders' };

describe('formatMySqlConnection', () => {
  test('keeps exactly the documented keys and builds a mysql:// uri', () => {
    const got = formatMySqlConnection({ ...full, extra: 'x' });
    assert.deepEqual(Object.keys(got).sort(), ['database', 'host', 'password', 'port', 'uri', 'username']);
    assert.equal(got.uri, 'mysql://app:p%40ss%2Fword@127.0.0.1:3306/orders');
  });
  const bad = [
    { reason: 'a missing password', input: { ...full, password: '' }, want: /lack password/ },
    { reason: 'a port that is not a number', input: { ...full, port: 'x' }, want: /port "x": want an integer/ },
    { reason: 'a port out of range', input: { ...full, port: '70000' }, want: /want an integer from 1 to 65535/ },
  ];
  for (const c of bad) test(`refuses ${c.reason}`, () => assert.throws(() => formatMySqlConnection(c.input), c.want));
  test('an IPv6 host is bracketed in the uri', () => {
    assert.equal(mysqlUri({ host: '::1', port: 3306, username: 'a', password: 'b', database: 'c' }), 'mysql://a:b@[::1]:3306/c');
  });
  test('property: the uri parses back to the same endpoint', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/),
        fc.integer({ min: 1, max: 65535 }),
        (username, password, database, port) => {
          const details = formatMySqlConnection({ host: 'db.example', port: String(port), username, password, database });
          const url = new URL(details.uri);
          assert.equal(url.protocol, 'mysql:');
          assert.equal(decodeURIComponent(url.username), username);
          assert.equal(decodeURIComponent(url.password), password);
          assert.equal(decodeURIComponent(url.pathname.slice(1)), database);
          assert.equal(Number(url.port), port);
          assert.deepEqual(endpointFromDetails(details), { host: 'db.example', port, username, password, database });
        },
      ),
    );
  });
});
