import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, waitForExit } from '../process/processes.js';
import { haproxyEngine, proxyEngine } from './engines.js';
import { resolveHAProxy } from './haproxy-binary.js';
import { accepts, Listeners, type DesiredListener, type ListenerEngine } from './listeners.js';
import { httpGet, startBackend, type TestBackend } from './testing.js';

interface EngineCase {
  reason: string;
  engine: () => Promise<ListenerEngine | undefined>;
  protocol: 'TCP' | 'HTTP';
}

const cases: EngineCase[] = [
  { reason: 'the shipped proxy forwards TCP connections', engine: async () => proxyEngine(), protocol: 'TCP' },
  {
    reason: 'haproxy in mode http balances requests',
    engine: async () => resolveHAProxy().then(haproxyEngine, () => undefined),
    protocol: 'HTTP',
  },
  {
    reason: 'haproxy in mode tcp balances connections',
    engine: async () => resolveHAProxy().then(haproxyEngine, () => undefined),
    protocol: 'TCP',
  },
];

for (const c of cases) {
  describe(`Listeners: ${c.reason}`, () => {
    let root: string;
    let backends: TestBackend[];
    let listeners: Listeners;
    let engine: ListenerEngine | undefined;
    const desired = (n: number, extra: Partial<DesiredListener> = {}): DesiredListener => ({
      namespace: 'sys',
      name: 'lb',
      protocol: c.protocol,
      backends: backends.slice(0, n).map((b) => ({ host: '127.0.0.1', port: b.port })),
      ...extra,
    });
    // The distinct backends that answered `times` requests on fresh connections. (haproxy's
    // old worker may take a connection or two right after a reload, so counts are not exact.)
    const answers = async (port: number, times: number) => {
      const seen = new Set<string>();
      for (let i = 0; i < times; i++) seen.add((await httpGet(`http://127.0.0.1:${port}/`)).body);
      return [...seen].sort();
    };

    before(async () => {
      engine = await c.engine();
      root = mkdtempSync(join(tmpdir(), 'conductor-lb-'));
      backends = [await startBackend('one'), await startBackend('two'), await startBackend('three')];
      if (engine) listeners = new Listeners({ root, engine });
    });
    after(async () => {
      await listeners?.stopAll();
      for (const b of backends) await b.close();
      rmSync(root, { recursive: true, force: true });
    });

    test('starts on the preferred port, round-robins, reloads in place, restarts when killed, adopts, and removes', async (t) => {
      if (!engine) return t.skip('haproxy is not installed');
      const dir = listeners.dirFor('sys', 'lb');
      const blocker = await startBackend('squatter');
      // The preferred port is taken: a free one is chosen instead and kept.
      const first = await listeners.ensure(dir, desired(2, { preferredPort: blocker.port }));
      await blocker.close();
      assert.notEqual(first.port, blocker.port);
      assert.equal(first.started, true);
      assert.deepEqual(await answers(first.port, 4), ['one', 'two']);

      const again = await listeners.ensure(dir, desired(2));
      assert.deepEqual(again, { pid: first.pid, port: first.port, started: false, reloaded: false }, 'nothing changed: nothing done');

      const reloaded = await listeners.ensure(dir, desired(3));
      assert.equal(reloaded.reloaded, true);
      assert.equal(reloaded.pid, first.pid, 'reloaded in place, same process');
      assert.deepEqual(await answers(first.port, 6), ['one', 'three', 'two']);

      process.kill(first.pid, 'SIGKILL');
      assert.ok(await waitForExit(first.pid, 5000));
      await waitForPortClosed(first.port);
      const dead = await listeners.status(dir);
      assert.equal(dead.running, false);
      const restarted = await listeners.ensure(dir, desired(3));
      assert.equal(restarted.started, true);
      assert.equal(restarted.port, first.port, 'the port is kept across restarts');
      assert.deepEqual(await answers(restarted.port, 6), ['one', 'three', 'two']);

      // A new supervisor (a Conductor restart) adopts the running process.
      const next = new Listeners({ root, engine });
      const adopted = await next.status(dir);
      assert.equal(adopted.running, true);
      assert.equal(adopted.accepting, true);
      assert.equal(adopted.pid, restarted.pid);
      assert.deepEqual(next.trackedPids(), [restarted.pid]);

      await next.remove(dir);
      assert.equal(await isAlive(restarted.pid), false);
      await waitForPortClosed(restarted.port);
      assert.equal((await listeners.status(dir)).provisioned, false);
    });

    test('with no backends the listener accepts but serves nothing', async (t) => {
      if (!engine) return t.skip('haproxy is not installed');
      const dir = listeners.dirFor('sys', 'empty');
      const { port } = await listeners.ensure(dir, { ...desired(0), name: 'empty' });
      assert.equal(await accepts('127.0.0.1', port), true);
      const outcome = await httpGet(`http://127.0.0.1:${port}/`).then(
        (r) => r.status,
        () => 'closed',
      );
      assert.ok(outcome === 'closed' || outcome === 503, `want a closed connection or 503, got ${String(outcome)}`);
      await listeners.remove(dir);
    });
  });
}

async function waitForPortClosed(port: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (await accepts('127.0.0.1', port, 200)) {
    if (Date.now() > deadline) throw new Error(`port ${port} still accepts connections`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
