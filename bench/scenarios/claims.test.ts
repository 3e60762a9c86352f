import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClaimEvents, Milestones, claimJson, countWarnings, memoryDatabaseJson, type WatchEvent } from './claims.js';

const claimEvent = (type: string, name: string, phase?: string, ready?: boolean): WatchEvent => ({
  type,
  object: {
    metadata: { name, resourceVersion: '1' },
    status: { ...(phase ? { phase } : {}), ...(ready ? { conditions: [{ type: 'Ready', status: 'True' }] } : {}) },
  },
});
const secretEvent = (type: string, name: string, secretType = 'connection.conductor.io/v1alpha1'): WatchEvent => ({
  type,
  object: { type: secretType, metadata: { name } },
});

describe('Milestones', () => {
  test('records the first time of each name and completes when the expected count is reached', () => {
    const m = new Milestones(2);
    assert.equal(m.reach('a', 10), true);
    assert.equal(m.reach('a', 20), false);
    assert.equal(m.completedAt, undefined);
    m.reach('b', 30);
    assert.equal(m.timeOf('a'), 10);
    assert.equal(m.completedAt, 30);
  });

  test('a count expected after the names were reached completes at the last of them', () => {
    const m = new Milestones(0);
    m.reach('a', 5);
    m.reach('b', 7);
    assert.equal(m.completedAt, undefined, 'no set is expected yet');
    m.expect(2);
    assert.equal(m.completedAt, 7);
  });

  test('names it does not accept are not counted', () => {
    const m = new Milestones(1, (n) => n.startsWith('x'));
    assert.equal(m.reach('y', 1), false);
    assert.equal(m.count, 0);
  });
});

describe('ClaimEvents', () => {
  const cases: {
    reason: string;
    events: ['claim' | 'secret', WatchEvent, number][];
    want: { bound: number; ready: number; secrets: number; doneAt?: number; unexpected?: number };
  }[] = [
    {
      reason: 'a claim counts as Bound at its first Bound event, and the set is done when every claim also has its Secret',
      events: [
        ['claim', claimEvent('ADDED', 'c1'), 1],
        ['claim', claimEvent('MODIFIED', 'c1', 'Pending'), 2],
        ['claim', claimEvent('MODIFIED', 'c1', 'Bound'), 3],
        ['claim', claimEvent('MODIFIED', 'c1', 'Bound', true), 9],
        ['secret', secretEvent('ADDED', 'c1'), 8],
      ],
      want: { bound: 1, ready: 1, secrets: 1, doneAt: 8 },
    },
    {
      reason: 'Secrets of another type, or only modified, do not count',
      events: [
        ['claim', claimEvent('MODIFIED', 'c1', 'Bound'), 1],
        ['secret', secretEvent('ADDED', 'c1', 'Opaque'), 2],
        ['secret', secretEvent('MODIFIED', 'c1'), 3],
      ],
      want: { bound: 1, ready: 0, secrets: 0 },
    },
    {
      reason: 'bookmarks are ignored and ERROR events are counted as unexpected',
      events: [
        ['claim', { type: 'BOOKMARK', object: { metadata: { resourceVersion: '5' } } }, 1],
        ['claim', { type: 'ERROR', object: { code: 410, message: 'too old' } }, 2],
      ],
      want: { bound: 0, ready: 0, secrets: 0, unexpected: 1 },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const e = new ClaimEvents(1);
      for (const [stream, ev, at] of c.events)
        if (stream === 'claim') e.onClaim(ev, at);
        else e.onSecret(ev, at);
      assert.deepEqual(
        { bound: e.bound.count, ready: e.ready.count, secrets: e.secrets.count, doneAt: e.doneAt(), unexpected: e.unexpected },
        { doneAt: undefined, unexpected: 0, ...c.want },
      );
    });
  }
});

describe('bodies', () => {
  test("a static MemoryDatabase is Exclusive, profile-free, and fits the claims' version range", () => {
    const o = JSON.parse(memoryDatabaseJson('memdb', 42));
    assert.equal(o.metadata.name, 'memdb-000042');
    assert.deepEqual(o.spec, { version: '16.4', sharing: { mode: 'Exclusive' }, rebindPolicy: 'Retain' });
    assert.deepEqual(JSON.parse(claimJson('ns', 'c')).spec, { version: '>= 15' });
  });
});

describe('countWarnings', () => {
  test('groups warnings and errors by message and error, names blanked, most frequent first; ignores info and non-JSON lines', () => {
    const line = (level: number, msg: string, err?: string) => JSON.stringify({ level, msg, ...(err ? { err } : {}) });
    const log = [
      line(40, 'cannot reconcile claim', 'Operation cannot be fulfilled on x "memdb-1": the object has been modified'),
      line(40, 'cannot reconcile claim', 'Operation cannot be fulfilled on x "memdb-2": the object has been modified'),
      line(50, 'cannot stop provider', 'boom'),
      line(30, 'published connection details'),
      'not json',
      '',
    ].join('\n');
    assert.deepEqual(countWarnings(log), [
      { message: 'cannot reconcile claim: Operation cannot be fulfilled on x "…": the object has been modified', count: 2 },
      { message: 'cannot stop provider: boom', count: 1 },
    ]);
  });
});
