import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programOutput } from '../process/executable-lookup.js';
import { parseNatsVersion, resolveNatsBinary } from './binaries.js';
import { claimPermissions, renderNatsConfig, type NatsServerState } from './config.js';
import { formatNatsConnection, natsEndpoint } from './connection.js';
import { natsMatcher } from './matchers.js';
import { fixture } from '../../testing.js';
import type { NATSServer } from './kinds.js';

const state: NatsServerState = {
  namespace: 's',
  name: 'bus',
  port: 4333,
  adminPassword: 'admin-pw',
  accounts: { team_a_1: { claim: { namespace: 'team', name: 'a' }, username: 'team_a_1', password: 'pw"with\\quotes', subject: 'team_a_1' } },
  createdAt: '',
};

describe('renderNatsConfig', () => {
  const dirs: string[] = [];
  after(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test("has Conductor's account and one account per claim with its permissions", () => {
    const config = JSON.parse(renderNatsConfig(state));
    assert.equal(config.listen, '127.0.0.1:4333');
    assert.deepEqual(config.accounts.CONDUCTOR.users, [{ user: 'conductor', password: 'admin-pw' }]);
    assert.deepEqual(config.accounts.team_a_1.users[0].permissions, claimPermissions('team_a_1'));
    assert.deepEqual(claimPermissions('q').publish.allow, ['q', 'q.>', '_INBOX.>']);
  });

  test('nats-server accepts the rendered file, quotes in passwords included', async () => {
    const binary = await resolveNatsBinary();
    const dir = await mkdtemp(join(tmpdir(), 'conductor-nats-conf-'));
    dirs.push(dir);
    await writeFile(join(dir, 'nats.conf'), renderNatsConfig(state, { maxPayload: 4096 }));
    const out = await programOutput(binary.path, ['-t', '-c', join(dir, 'nats.conf')]);
    assert.match(out, /configuration file .* (is valid|test is successful)/i);
  });
});

describe('NATS connection details and matching', () => {
  test('formatNatsConnection keeps exactly the four keys and wants all of them', () => {
    const d = { endpoint: natsEndpoint('127.0.0.1', 4222), queue: 'q', username: 'u', password: 'p', extra: 'x' };
    assert.deepEqual(formatNatsConnection(d), { endpoint: 'nats://127.0.0.1:4222', queue: 'q', username: 'u', password: 'p' });
    assert.throws(() => formatNatsConnection({ endpoint: 'nats://h:1', queue: 'q' }), /lack username, password/);
    assert.throws(() => formatNatsConnection({ endpoint: 'http://h', queue: 'q', username: 'u', password: 'p' }), /want nats:\/\/host:port/);
  });
  test('parseNatsVersion reads nats-server --version', () => assert.equal(parseNatsVersion('nats-server: v2.9.10'), '2.9.10'));
  const match = natsMatcher('2.9.10');
  const claim = (spec: Record<string, unknown>) => ({ apiVersion: 'messaging.conductor.io/v1alpha1', kind: 'MessageQueue', metadata: { name: 'q' }, spec });
  const resource = { type: 'resource' as const, resource: fixture<NATSServer>({ apiVersion: 'x', kind: 'NATSServer', metadata: { name: 'bus' }, spec: {} }) };
  const cases = [
    { reason: 'a plain queue fits', spec: {}, fits: true },
    { reason: 'fifo cannot be honoured by core NATS', spec: { fifo: true }, fits: false },
    { reason: 'retention cannot be honoured without storage', spec: { retentionSeconds: 60 }, fits: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(match(claim(c.spec), resource).fits, c.fits));
});
