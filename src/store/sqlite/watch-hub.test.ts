import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { StoreEvent } from '../types.js';
import { WatchHub, type HubSubscriber } from './watch-hub.js';

function event(key: string, revision: number): StoreEvent {
  return { type: 'put', kv: { key, value: '', createRevision: revision, modRevision: revision } };
}

/** recorder is a subscriber that keeps every delivery (one array per call). */
function recorder(prefix: string): HubSubscriber & { calls: string[][] } {
  const calls: string[][] = [];
  return { prefix, calls, deliver: (events) => calls.push(events.map((e) => e.kv.key)) };
}

describe('WatchHub', () => {
  test('delivers each subscriber the events under its prefix, one call per publish', () => {
    const cases = [
      { reason: 'a directory prefix gets its keys and nested keys', prefix: '/r/pods/', want: [['/r/pods/a/x', '/r/pods/b', '/r/pods/ab']] },
      { reason: 'a prefix without a trailing / also gets keys that merely share its text', prefix: '/r/pods/a', want: [['/r/pods/a/x', '/r/pods/ab']] },
      { reason: 'the empty prefix gets everything', prefix: '', want: [['/r/pods/a/x', '/r/pods/b', '/r/svc/s', '/r/pods/ab', 'plain']] },
      { reason: 'a prefix with no matching keys gets no call', prefix: '/r/nodes/', want: [] },
      { reason: 'a key used as prefix gets that key', prefix: '/r/svc/s', want: [['/r/svc/s']] },
    ];
    const hub = new WatchHub();
    const subscribers = cases.map((c) => recorder(c.prefix));
    for (const s of subscribers) hub.add(s);
    hub.publish(['/r/pods/a/x', '/r/pods/b', '/r/svc/s', '/r/pods/ab', 'plain'].map((k, i) => event(k, i + 1)));
    cases.forEach((c, i) => assert.deepEqual(subscribers[i]?.calls, c.want, c.reason));
  });

  test('a removed subscriber gets nothing; size counts subscribers', () => {
    const hub = new WatchHub();
    const a = recorder('/x/');
    const b = recorder('/x/');
    hub.add(a);
    hub.add(b);
    hub.add(a);
    assert.equal(hub.size, 2);
    hub.remove(a);
    hub.remove(a);
    assert.equal(hub.size, 1);
    hub.publish([event('/x/1', 1)]);
    assert.deepEqual(a.calls, []);
    assert.deepEqual(b.calls, [['/x/1']]);
  });

  test('matches exactly the keys starting with the prefix, in order (property)', () => {
    const segment = fc.constantFrom('a', 'ab', 'b', '');
    const path = fc.array(segment, { maxLength: 4 }).chain((parts) => fc.boolean().map((slash) => parts.join('/') + (slash ? '/' : '')));
    fc.assert(
      fc.property(fc.array(path, { maxLength: 8 }), fc.array(path, { maxLength: 20 }), (prefixes, keys) => {
        const hub = new WatchHub();
        const subscribers = prefixes.map((p) => recorder(p));
        for (const s of subscribers) hub.add(s);
        hub.publish(keys.map((k, i) => event(k, i + 1)));
        for (const s of subscribers) {
          const want = keys.filter((k) => k.startsWith(s.prefix));
          assert.deepEqual(s.calls, want.length > 0 ? [want] : []);
        }
      }),
      { numRuns: 500 },
    );
  });
});
