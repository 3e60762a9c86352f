import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KObject } from '../../../machinery/object.js';
import type { MatchCandidate } from '../../spi.js';
import type { LocalMySQLInstance, MySQLServer } from './kinds.js';
import { configureLocalInstance, configureSharedServer, localInstanceMatcher, matchSharedServer } from './matchers.js';
import { fixture } from '../../testing.js';

const claim = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'MySQLInstance',
  metadata: { namespace: 'app', name: 'db' },
  spec,
});
const server = (spec: Record<string, unknown>, observed?: string): MatchCandidate<MySQLServer> => ({
  type: 'resource',
  resource: fixture<MySQLServer>({
    apiVersion: 'database.local.conductor.io/v1alpha1',
    kind: 'MySQLServer',
    metadata: { namespace: 'sys', name: 's' },
    spec: { host: 'h', ...spec },
    ...(observed ? { status: { atProvider: { version: observed } } } : {}),
  }),
});
const instance = (spec: Record<string, unknown>): MatchCandidate<LocalMySQLInstance> => ({
  type: 'resource',
  resource: fixture<LocalMySQLInstance>({
    apiVersion: 'database.local.conductor.io/v1alpha1',
    kind: 'LocalMySQLInstance',
    metadata: { namespace: 'sys', name: 'i' },
    spec,
  }),
});
const klass = (spec: JsonObject): MatchCandidate<LocalMySQLInstance> => ({
  type: 'class',
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'c' } },
  template: { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalMySQLInstance', spec },
});

describe('matchSharedServer', () => {
  const cases = [
    { reason: 'no version asked: fits', claim: {}, candidate: server({}), want: undefined },
    { reason: 'an observed MariaDB 10.11 meets ">= 5.6"', claim: { version: '>= 5.6' }, candidate: server({}, '10.11.19-MariaDB-0+deb12u1'), want: undefined },
    {
      reason: 'an observed MariaDB does not meet ">= 8.0"',
      claim: { version: '>= 8.0' },
      candidate: server({}, '10.11.19-MariaDB'),
      want: /compatible with MySQL 5.7/,
    },
    { reason: 'the spec version is used until one is observed', claim: { version: '>= 8.0' }, candidate: server({ version: '8.0' }), want: undefined },
    { reason: 'an unknown version does not fit a claim asking for one', claim: { version: '>= 5.6' }, candidate: server({}), want: /not yet known/ },
    { reason: 'a shared server names users itself', claim: { masterUsername: 'wp' }, candidate: server({}), want: /masterUsername "wp" cannot be honoured/ },
    { reason: 'a shared server names databases itself', claim: { databaseName: 'wp' }, candidate: server({}), want: /databaseName "wp" cannot be honoured/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = matchSharedServer(claim(c.claim), c.candidate);
      if (c.want === undefined) assert.deepEqual(got, { fits: true });
      else assert.match(got.fits ? '' : got.reason, c.want);
    });
  }
  test('a class cannot provide a registered server', () => {
    const got = matchSharedServer(claim({}), klass({}) as unknown as MatchCandidate<MySQLServer>);
    assert.equal(got.fits, false);
    assert.throws(() => configureSharedServer(), /cannot be provisioned from a class/);
  });
});

describe('localInstanceMatcher', () => {
  const match = localInstanceMatcher('10.11.19-MariaDB');
  const cases = [
    { reason: 'a class fits ">= 5.6" with MariaDB 10.11 binaries', claim: { version: '>= 5.6' }, candidate: klass({}), want: undefined },
    { reason: 'a class does not fit MySQL 8', claim: { version: '8.0' }, candidate: klass({}), want: /does not satisfy "8.0"/ },
    { reason: 'a class pinning another version cannot be used', claim: {}, candidate: klass({ version: '>= 11' }), want: /class pins version ">= 11"/ },
    {
      reason: 'an instance with another user',
      claim: { masterUsername: 'wp' },
      candidate: instance({ masterUsername: 'app2' }),
      want: /instance user is "app2"/,
    },
    { reason: 'an instance with the default database fits a claim asking for it', claim: { databaseName: 'app' }, candidate: instance({}), want: undefined },
    { reason: 'an invalid user name is refused before anything else', claim: { masterUsername: 'root' }, candidate: klass({}), want: /reserved/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = match(claim(c.claim), c.candidate);
      if (c.want === undefined) assert.deepEqual(got, { fits: true });
      else assert.match(got.fits ? '' : got.reason, c.want);
    });
  }
  test('without binaries a class says why it cannot provision', () => {
    assert.deepEqual(localInstanceMatcher(undefined)(claim({}), klass({})), { fits: false, reason: 'no MariaDB server binaries on this machine' });
  });
});

describe('configureLocalInstance', () => {
  test('claim names, version and requirements override the template, which is left alone', () => {
    const template = {
      apiVersion: 'database.local.conductor.io/v1alpha1',
      kind: 'LocalMySQLInstance',
      spec: { version: '8.0', capabilities: { region: 'eu', capacity: { storage: '1Gi' } } },
    };
    const before = JSON.stringify(template);
    const spec = configureLocalInstance(
      claim({ version: '>= 5.6', masterUsername: 'wp', databaseName: 'wordpress', requirements: { capacity: { storage: '5Gi' }, region: 'us', cost: 'free' } }),
      template,
    );
    assert.deepEqual(spec, {
      version: '8.0',
      masterUsername: 'wp',
      databaseName: 'wordpress',
      capabilities: { region: 'eu', cost: 'free', capacity: { storage: '5Gi' } },
    });
    assert.equal(JSON.stringify(template), before);
  });
  test("a template version outside the claim's range is replaced by the range", () => {
    const spec = configureLocalInstance(claim({ version: '>= 10.6' }), { apiVersion: 'v', kind: 'k', spec: { version: '8.0' } });
    assert.equal(spec.version, '>= 10.6');
  });
});
