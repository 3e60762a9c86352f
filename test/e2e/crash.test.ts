/**
 * Durability: SIGKILL the server in the middle of a burst of writes, restart it on the same
 * data dir, and find every acknowledged write with its value — and nothing that was never
 * attempted.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiFromKubeconfig } from '../support/api.js';
import { removeDir, startServer, tempDir } from '../support/server.js';

describe('crash safety', () => {
  test('every acknowledged write survives SIGKILL during a burst', async () => {
    const dataDir = tempDir();
    let server = await startServer({ dataDir });
    let api = apiFromKubeconfig(server.kubeconfig);
    try {
      assert.equal((await api.request('POST', '/api/v1/namespaces', { metadata: { name: 'burst' } })).status, 201);
      const path = '/api/v1/namespaces/burst/configmaps';
      const attempted = new Set<string>();
      const acknowledged = new Map<string, string>();
      let stop = false;
      let next = 0;
      const writer = async () => {
        while (!stop) {
          const name = `cm-${next++}`;
          const value = `value-of-${name}`;
          attempted.add(name);
          try {
            const r = await api.request('POST', path, { metadata: { name }, data: { v: value } });
            if (r.status === 201) acknowledged.set(name, value);
          } catch {
            return; // the server died under us
          }
        }
      };
      const writers = Array.from({ length: 24 }, writer);
      // Let the burst run until enough writes were acknowledged to be meaningful (however slow
      // the machine), then kill the server without warning while the writers are still going.
      const deadline = Date.now() + 60_000;
      while (acknowledged.size < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await server.kill();
      stop = true;
      await Promise.all(writers);
      api.close();
      assert.ok(acknowledged.size > 100, `the burst wrote too little to be meaningful (${acknowledged.size})`);

      server = await startServer({ dataDir });
      api = apiFromKubeconfig(server.kubeconfig);
      const list = (await api.request('GET', path)).json();
      const present = new Map<string, string>(list.items.map((i: any) => [i.metadata.name, i.data.v]));
      for (const [name, value] of acknowledged) {
        assert.equal(present.get(name), value, `acknowledged write ${name} is missing or wrong after the crash`);
      }
      for (const name of present.keys()) assert.ok(attempted.has(name), `${name} exists but was never written`);
    } finally {
      api.close();
      await server.kill();
      removeDir(dataDir);
    }
  });
});
