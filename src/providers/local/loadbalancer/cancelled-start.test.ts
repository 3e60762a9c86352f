import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../../../test/support/eventually.js';
import { freePort, isAlive } from '../process/processes.js';
import { processGone, processGroup } from '../process/testing.js';
import { haproxyEngine, proxyEngine } from './engines.js';
import { resolveHAProxy } from './haproxy-binary.js';
import { Listeners, type ListenerEngine } from './listeners.js';
import { ListenerClient } from './listener-kind.js';
import type { LocalListener } from './kinds.js';
import { fixture } from '../../testing.js';

/**
 * servingElsewhere is a real engine whose config binds another port than the one Conductor
 * chose: its process runs (haproxy with its worker, or the forwarder), but the port Conductor
 * waits on never answers, so the start waits until it is cancelled.
 */
function servingElsewhere(engine: ListenerEngine, elsewhere: number): ListenerEngine {
  return { ...engine, render: (desired, address) => engine.render(desired, address, elsewhere) };
}

function listener(kind: string, name: string): LocalListener {
  return fixture<LocalListener>({
    apiVersion: 'network.local.conductor.io/v1alpha1',
    kind,
    metadata: { namespace: 'sys', name },
    spec: { protocol: 'TCP', targets: [{ address: '127.0.0.1:9' }] },
  });
}

interface EngineCase {
  reason: string;
  kind: 'LocalPortForwarder' | 'HAProxyLoadBalancer';
  engine: () => Promise<ListenerEngine | undefined>;
  /** The processes the started server has once it runs (haproxy: its master and a worker). */
  processes: number;
}

const cases: EngineCase[] = [
  { reason: "the port forwarder's process", kind: 'LocalPortForwarder', engine: async () => proxyEngine(), processes: 1 },
  {
    reason: 'haproxy, its master and its worker',
    kind: 'HAProxyLoadBalancer',
    engine: async () => resolveHAProxy().then(haproxyEngine, () => undefined),
    processes: 2,
  },
];

for (const c of cases) {
  describe(`${c.kind}: a start whose port never answers`, { timeout: 120_000 }, () => {
    let root: string;
    let listeners: Listeners | undefined;
    before(async () => {
      root = await mkdtemp(join(tmpdir(), 'conductor-lb-abort-'));
    });
    after(async () => {
      await listeners?.stopAll();
      await rm(root, { recursive: true, force: true });
    });

    test(`is cancelled through the call's signal: create rejects with the abort reason and ${c.reason} are gone`, async (t) => {
      const engine = await c.engine();
      if (!engine) return t.skip('haproxy is not installed');
      listeners = new Listeners({ root, engine: servingElsewhere(engine, await freePort()), startTimeoutMs: 600_000 });
      const client = new ListenerClient(c.kind, listeners);
      const call = new AbortController();
      const creating = client.create(listener(c.kind, 'stuck'), { signal: call.signal });
      creating.catch(() => {}); // awaited below
      const pidFile = join(listeners.dirFor('sys', 'stuck'), 'listener.pid');
      const pid = await eventually(async () => {
        const p = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
        return p > 0 && (await isAlive(p)) && (await processGroup(p)).length >= c.processes ? p : undefined;
      }, `the ${engine.server} process running`);
      call.abort();
      await assert.rejects(creating, (err: Error) => err.name === 'AbortError', 'the call rejects with the signal’s reason');
      await eventually(() => processGone(pid), `${engine.server} ${pid} gone after the abort`, 30_000);
      await eventually(async () => (await processGroup(pid)).length === 0, `every process ${engine.server} started gone`, 30_000);
      await assert.rejects(readFile(pidFile, 'utf8'), /ENOENT/, 'the pid file of the killed process is removed');
    });
  });
}
