import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClient } from '../client/testing/index.js';
import { builtinRefs } from '../client/types.js';
import { errors } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';
import { EVENT_MESSAGE_LIMIT, eventName, recordEvent } from './events.js';

const subject: KObject = {
  apiVersion: 'database.local.conductor.io/v1alpha1',
  kind: 'LocalPostgreSQLInstance',
  metadata: { name: 'db', namespace: 'conductor-system', uid: 'u-1' },
};
const at = (s: number) => () => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

async function events(client: FakeClient, namespace = 'conductor-system'): Promise<KObject[]> {
  return (await client.list(builtinRefs.events, { namespace })).items;
}

describe('recordEvent', () => {
  test('records an old-style Event about the object', async () => {
    const client = new FakeClient();
    await recordEvent(client, subject, 'Warning', 'CannotObserve', 'cannot observe: refused', { component: 'managed', now: at(1) });
    const [ev, ...rest] = await events(client);
    assert.equal(rest.length, 0);
    assert.deepEqual(ev.involvedObject, { apiVersion: subject.apiVersion, kind: subject.kind, namespace: 'conductor-system', name: 'db', uid: 'u-1' });
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.reason, 'CannotObserve');
    assert.equal(ev.message, 'cannot observe: refused');
    assert.equal(ev.count, 1);
    assert.equal(ev.firstTimestamp, '2026-01-01T00:00:01Z');
    assert.deepEqual(ev.source, { component: 'managed' });
  });

  test('repeats are one Event whose count and lastTimestamp grow; a different message is another Event', async () => {
    const client = new FakeClient();
    for (let s = 1; s <= 3; s++) await recordEvent(client, subject, 'Warning', 'CannotObserve', 'same', { now: at(s) });
    await recordEvent(client, subject, 'Warning', 'CannotObserve', 'different', { now: at(4) });
    const list = await events(client);
    assert.equal(list.length, 2);
    const same = list.find((e) => e.message === 'same')!;
    assert.equal(same.count, 3);
    assert.equal(same.firstTimestamp, '2026-01-01T00:00:01Z');
    assert.equal(same.lastTimestamp, '2026-01-01T00:00:03Z');
  });

  test('concurrent repeats are all counted', async () => {
    const client = new FakeClient();
    await Promise.all(Array.from({ length: 4 }, () => recordEvent(client, subject, 'Normal', 'Created', 'made it')));
    const [ev] = await events(client);
    assert.equal(ev.count, 4);
  });

  test('never throws; a failure is logged', async () => {
    const client = new FakeClient();
    client.create = async () => {
      throw errors.forbidden('events are not allowed here');
    };
    const warnings: object[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (o: object) => void warnings.push(o) };
    await recordEvent(client, subject, 'Normal', 'Created', 'made it', { logger });
    assert.equal(warnings.length, 1);
  });

  test('cluster-scoped objects get their events in default; long messages are cut', async () => {
    const client = new FakeClient();
    const node: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'u-2' } };
    await recordEvent(client, node, 'Normal', 'Seen', 'x'.repeat(5000));
    const [ev] = await events(client, 'default');
    assert.equal(String(ev.message).length, EVENT_MESSAGE_LIMIT);
  });

  test('event names are valid and stable, and differ by reason and message', () => {
    const a = eventName(subject, 'Normal', 'Created', 'm');
    assert.equal(a, eventName(subject, 'Normal', 'Created', 'm'));
    assert.notEqual(a, eventName(subject, 'Normal', 'Created', 'n'));
    assert.notEqual(a, eventName(subject, 'Warning', 'Created', 'm'));
    assert.match(a, /^db\.[0-9a-f]{16}$/);
    const odd = eventName({ ...subject, metadata: { name: 'system:Admin' + 'x'.repeat(300) } }, 'Normal', 'R', 'm');
    assert.ok(odd.length <= 253);
    assert.match(odd, /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
  });
});
