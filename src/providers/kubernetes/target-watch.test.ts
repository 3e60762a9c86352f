/**
 * TargetWatches over a fake target (an object with function fields standing in for the
 * TargetClient; the real one is exercised by test/e2e/kubernetes-watch.test.ts): an event
 * enqueues the KubernetesObjects keeping its object, a list enqueues them all, a 410 lists
 * again from a new resourceVersion, a 403 leaves them to the poll, and the last untrack stops
 * the watch.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TargetError, type TargetClient, type WatchEvent } from './target-client.js';
import { TargetWatches } from './target-watch.js';

interface FakeTarget {
  client: TargetClient;
  lists: number;
  /** Sends an event to the running watch stream; resolves the stream when `end`. */
  send(e: WatchEvent): void;
  watching: Promise<void>;
  aborted: boolean;
}

/** fakeTarget lists with resourceVersions "1", "2" … (or fails with `listError`) and keeps one watch stream open. */
function fakeTarget(listError?: () => Error): FakeTarget {
  let onEvent: ((e: WatchEvent) => Error | undefined) | undefined;
  let failStream: ((err: Error) => void) | undefined;
  let markWatching: () => void = () => {};
  const fake: FakeTarget = {
    lists: 0,
    aborted: false,
    watching: new Promise<void>((r) => (markWatching = r)),
    send(e) {
      const stop = onEvent?.(e);
      if (stop) failStream?.(stop);
    },
    client: {
      collectionPathOf: async () => '/api/v1/namespaces/default/configmaps',
      listVersion: async () => {
        fake.lists++;
        if (listError) throw listError();
        return String(fake.lists);
      },
      watch: (_path: string, _rv: string, handler: (e: WatchEvent) => Error | undefined, signal: AbortSignal) =>
        new Promise<void>((_resolve, reject) => {
          onEvent = handler;
          failStream = reject;
          signal.addEventListener('abort', () => {
            fake.aborted = true;
            reject(signal.reason as Error);
          });
          markWatching();
        }),
    } as unknown as TargetClient,
  };
  return fake;
}

const key = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });
const tick = () => new Promise((r) => setTimeout(r, 5));
const cm = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', resourceVersion: rv } });

/** recording makes TargetWatches that record each owner they enqueue (`namespace/name`) in `seen`. */
function recording(options?: ConstructorParameters<typeof TargetWatches>[0]) {
  const watches = new TargetWatches(options);
  const seen: string[] = [];
  watches.onChange((ns, name) => seen.push(`${ns}/${name}`));
  return { watches, seen };
}

/** tracked: a fake target whose ConfigMap `a` is tracked for the owner `sys/ko-a`, its watch running. */
async function tracked() {
  const target = fakeTarget();
  const { watches, seen } = recording();
  watches.track('sys/p', target.client, key('a'), 'sys/ko-a');
  await target.watching;
  return { target, watches, seen };
}

describe('TargetWatches', () => {
  test('polled until the watch runs; a list enqueues every owner, an event the owners of its object only', async () => {
    const target = fakeTarget();
    const { watches, seen } = recording();
    assert.equal(watches.track('sys/p', target.client, key('a'), 'sys/ko-a'), 'poll');
    await target.watching;
    assert.deepEqual(seen, ['sys/ko-a'], 'the list enqueued the owner');
    assert.equal(watches.track('sys/p', target.client, key('b'), 'sys/ko-b'), 'watch');
    assert.equal(watches.size, 1, 'one watch per Provider, kind and namespace');
    seen.length = 0;
    target.send({ type: 'MODIFIED', object: cm('b', '7') });
    target.send({ type: 'ADDED', object: cm('unrelated', '8') });
    target.send({ type: 'BOOKMARK', object: cm('a', '9') });
    assert.deepEqual(seen, ['sys/ko-b']);
    watches.close();
  });

  test('an event of a version the owner saw (read, or written by its apply) enqueues nothing; any other version does', async () => {
    const target = fakeTarget();
    const { watches, seen } = recording();
    watches.track('sys/p', target.client, key('a'), 'sys/ko-a');
    watches.track('sys/p', target.client, key('a'), 'sys/ko-a2');
    await target.watching;
    seen.length = 0;
    watches.saw('sys/ko-a', '10');
    target.send({ type: 'ADDED', object: cm('a', '10') });
    assert.deepEqual(seen, ['sys/ko-a2'], 'only the owner that did not see version 10');
    seen.length = 0;
    target.send({ type: 'MODIFIED', object: cm('a', '11') });
    target.send({ type: 'DELETED', object: cm('a', '12') });
    assert.deepEqual(seen, ['sys/ko-a', 'sys/ko-a2', 'sys/ko-a', 'sys/ko-a2']);
    watches.close();
  });

  test('events during a reconcile (hold … release) are judged at its release: enqueued once unless it saw their version', async () => {
    const { target, watches, seen } = await tracked();
    seen.length = 0;

    // The operator's change came while the reconcile's read was on its way, and the read saw it.
    watches.hold('sys/ko-a');
    target.send({ type: 'MODIFIED', object: cm('a', '20') });
    assert.deepEqual(seen, [], 'held while the reconcile runs');
    watches.saw('sys/ko-a', '20');
    watches.release('sys/ko-a');
    assert.deepEqual(seen, [], 'its version was seen: nothing new');

    // The read answered before the change: the change is news once the reconcile ends.
    watches.hold('sys/ko-a');
    watches.hold('sys/ko-a');
    watches.saw('sys/ko-a', '21');
    target.send({ type: 'MODIFIED', object: cm('a', '22') });
    target.send({ type: 'MODIFIED', object: cm('a', '23') });
    watches.release('sys/ko-a');
    assert.deepEqual(seen, [], 'held until the last release');
    watches.release('sys/ko-a');
    assert.deepEqual(seen, ['sys/ko-a'], 'enqueued once');

    // After the release, events go through at once again.
    seen.length = 0;
    target.send({ type: 'MODIFIED', object: cm('a', '24') });
    assert.deepEqual(seen, ['sys/ko-a']);
    watches.close();
  });

  test('a flood of target events during a reconcile is enqueued once at its release, even when the reconcile saw the last ones', async () => {
    const { target, watches, seen } = await tracked();
    seen.length = 0;
    watches.hold('sys/ko-a');
    for (let v = 100; v < 200; v++) target.send({ type: 'MODIFIED', object: cm('a', String(v)) });
    for (let v = 196; v < 200; v++) watches.saw('sys/ko-a', String(v));
    watches.release('sys/ko-a');
    assert.deepEqual(seen, ['sys/ko-a'], 'versions 100–195 were not seen');
    watches.close();
  });

  test('an ERROR 410 event lists again, and enqueues every owner', async () => {
    const { target, watches, seen } = await tracked();
    target.watching = new Promise<void>((r) => setTimeout(r, 50));
    target.send({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    await target.watching;
    assert.equal(target.lists, 2);
    assert.deepEqual(seen, ['sys/ko-a', 'sys/ko-a']);
    watches.close();
  });

  test('a watch the credentials may not make (403) leaves the object to the poll', async () => {
    const target = fakeTarget(() => new TargetError('Forbidden', 'the credentials may not list configmaps (403 Forbidden)', 403));
    const { watches, seen } = recording({ forbiddenRetryMs: 60_000 });
    assert.equal(watches.track('sys/p', target.client, key('a'), 'sys/ko-a'), 'poll');
    await tick();
    assert.equal(watches.track('sys/p', target.client, key('a'), 'sys/ko-a'), 'poll');
    assert.equal(target.lists, 1, 'not tried again before forbiddenRetryMs');
    assert.deepEqual(seen, ['sys/ko-a'], 'told once that it is polled');
    watches.close();
  });

  test('the last untrack stops the watch; new credentials of the Provider replace its watches', async () => {
    const target = fakeTarget();
    const watches = new TargetWatches();
    watches.track('sys/p', target.client, key('a'), 'sys/ko-a');
    await target.watching;
    watches.untrack('sys/ko-a');
    await tick();
    assert.equal(target.aborted, true);
    assert.equal(watches.size, 0);

    const old = fakeTarget();
    const renewed = fakeTarget();
    watches.track('sys/p', old.client, key('a'), 'sys/ko-a');
    await old.watching;
    watches.track('sys/p', renewed.client, key('a'), 'sys/ko-a');
    await tick();
    assert.equal(old.aborted, true, "the old credentials' watch stopped");
    assert.equal(watches.size, 1);
    watches.close();
    await tick();
    assert.equal(renewed.aborted, true, 'close stops every watch');
  });
});
