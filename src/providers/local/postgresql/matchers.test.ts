import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KObject } from '../../../machinery/object.js';
import type { MatchCandidate, MatchResult, ResourceTemplate } from '../../spi.js';
import type { LocalPostgreSQLInstance, PostgreSQLServer } from './kinds.js';
import { configureLocalInstance, localInstanceMatcher, matchSharedServer } from './matchers.js';
import { fixture } from '../../testing.js';

function claim(spec: JsonObject): KObject {
  return { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', metadata: { namespace: 'ns', name: 'c' }, spec };
}

function server(spec: Record<string, unknown>, observedVersion?: string): MatchCandidate<PostgreSQLServer> {
  return {
    type: 'resource',
    resource: fixture<PostgreSQLServer>({
      apiVersion: 'database.local.conductor.io/v1alpha1',
      kind: 'PostgreSQLServer',
      metadata: { namespace: 'conductor-system', name: 's' },
      spec: { host: 'db', ...spec },
      ...(observedVersion ? { status: { atProvider: { version: observedVersion } } } : {}),
    }),
  };
}

function instance(spec: Record<string, unknown>, observedVersion?: string): MatchCandidate<LocalPostgreSQLInstance> {
  return {
    type: 'resource',
    resource: fixture<LocalPostgreSQLInstance>({
      apiVersion: 'database.local.conductor.io/v1alpha1',
      kind: 'LocalPostgreSQLInstance',
      metadata: { namespace: 'conductor-system', name: 'i' },
      spec,
      ...(observedVersion ? { status: { atProvider: { version: observedVersion } } } : {}),
    }),
  };
}

function klass(spec: JsonObject = {}): MatchCandidate<never> {
  const template: ResourceTemplate = { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance', spec };
  return { type: 'class', resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'k' } }, template };
}

function verdict(result: MatchResult): string {
  return result.fits ? 'fits' : result.reason;
}

describe('matchSharedServer', () => {
  const cases: { reason: string; claim: JsonObject; candidate: MatchCandidate<PostgreSQLServer>; want: string | RegExp }[] = [
    { reason: 'no portable fields: any server fits', claim: {}, candidate: server({}), want: 'fits' },
    { reason: 'observed version inside the range', claim: { version: '>= 14' }, candidate: server({}, '15.4'), want: 'fits' },
    { reason: 'observed version outside the range', claim: { version: '16' }, candidate: server({}, '15.4'), want: 'version 15.4 does not satisfy "16"' },
    { reason: 'observed version wins over the declared one', claim: { version: '15' }, candidate: server({ version: '16' }, '15.4'), want: 'fits' },
    { reason: 'declared version when not yet observed', claim: { version: '15' }, candidate: server({ version: '15' }), want: 'fits' },
    { reason: 'unknown version cannot satisfy a range', claim: { version: '15' }, candidate: server({}), want: 'server version not yet known' },
    {
      reason: 'a chosen user name cannot be honoured',
      claim: { masterUsername: 'masteruser' },
      candidate: server({}),
      want: /masterUsername "masteruser" cannot be honoured/,
    },
    { reason: 'a chosen database name cannot be honoured', claim: { databaseName: 'wp' }, candidate: server({}), want: /databaseName "wp" cannot be honoured/ },
    { reason: 'classes cannot create shared servers', claim: {}, candidate: klass(), want: /a class cannot provision one/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = verdict(matchSharedServer(claim(c.claim), c.candidate));
      if (typeof c.want === 'string') assert.equal(got, c.want);
      else assert.match(got, c.want);
    });
  }
});

describe('localInstanceMatcher', () => {
  const match = localInstanceMatcher('18.4');
  const cases: { reason: string; claim: JsonObject; candidate: MatchCandidate<LocalPostgreSQLInstance>; want: string | RegExp }[] = [
    { reason: 'a class fits a claim the binaries satisfy', claim: { version: '>= 15' }, candidate: klass(), want: 'fits' },
    {
      reason: 'a class does not fit a version the binaries cannot run',
      claim: { version: '15' },
      candidate: klass(),
      want: 'version 18.4 does not satisfy "15"',
    },
    {
      reason: 'a class pinning another major cannot work here',
      claim: {},
      candidate: klass({ version: '15' }),
      want: /class pins version "15" but this machine runs PostgreSQL 18.4/,
    },
    { reason: 'a class takes the claim user name', claim: { masterUsername: 'wp' }, candidate: klass({ masterUsername: 'other' }), want: 'fits' },
    { reason: 'an invalid user name never fits', claim: { masterUsername: 'pg_admin' }, candidate: klass(), want: /reserved/ },
    { reason: 'an existing instance with the same user fits', claim: { masterUsername: 'wp' }, candidate: instance({ masterUsername: 'wp' }), want: 'fits' },
    {
      reason: 'an existing instance with another user does not',
      claim: { masterUsername: 'wp' },
      candidate: instance({}),
      want: 'instance user is "app", claim wants "wp"',
    },
    {
      reason: 'an existing instance with another database does not',
      claim: { databaseName: 'wp' },
      candidate: instance({ databaseName: 'blog' }),
      want: 'instance database is "blog", claim wants "wp"',
    },
    { reason: 'an instance is judged by its observed version', claim: { version: '17' }, candidate: instance({}, '17.2'), want: 'fits' },
    { reason: 'an unobserved instance runs the binaries', claim: { version: '17' }, candidate: instance({}), want: 'version 18.4 does not satisfy "17"' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = verdict(match(claim(c.claim), c.candidate));
      if (typeof c.want === 'string') assert.equal(got, c.want);
      else assert.match(got, c.want);
    });
  }

  test('without binaries no class fits', () => {
    assert.equal(verdict(localInstanceMatcher(undefined)(claim({}), klass())), 'no PostgreSQL server binaries on this machine');
  });
});

describe('configureLocalInstance', () => {
  const cases: { reason: string; claim: JsonObject; template: JsonObject; want: JsonObject }[] = [
    { reason: 'an empty claim keeps the template', claim: {}, template: { port: 5499 }, want: { port: 5499 } },
    {
      reason: 'claim names replace the template names',
      claim: { masterUsername: 'wp', databaseName: 'blog' },
      template: { masterUsername: 'x', databaseName: 'y' },
      want: { masterUsername: 'wp', databaseName: 'blog' },
    },
    { reason: 'a template version inside the claim range stays', claim: { version: '>= 15' }, template: { version: '18' }, want: { version: '18' } },
    { reason: 'a template without a version takes the claim range', claim: { version: '>= 15' }, template: {}, want: { version: '>= 15' } },
    {
      reason: 'capacity requests replace, region fills in only what is open',
      claim: { requirements: { capacity: { storage: '25Gi' }, region: 'north-america', cost: 'free-tier' } },
      template: { capabilities: { capacity: { storage: '50Gi', cpu: '2' }, region: 'us-east-1' } },
      want: { capabilities: { capacity: { storage: '25Gi', cpu: '2' }, region: 'us-east-1', cost: 'free-tier' } },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const template: ResourceTemplate = { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance', spec: c.template };
      const before = structuredClone(template);
      assert.deepEqual(configureLocalInstance(claim(c.claim), template), c.want);
      assert.deepEqual(template, before, 'the template is not modified');
    });
  }
});
