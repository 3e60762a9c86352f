/**
 * @kubernetes/client-node 2.x (beside the 1.4 tests of client-node.test.ts) against a real
 * Conductor server: list with limit/continue, and an informer that keeps working across a
 * restart of the server (same data dir and port) in the middle. Client-node 2 needs Node 22+;
 * the client runs as test/clients/node/client-node-2-check.mjs under a newer node found or
 * fetched by test/clients/node/newer-node.ts. With none, the tests are reported as skipped
 * with the reason.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { removeDir, repoRoot, startServer, type ServerProcess } from '../support/server.js';
import { newerNode, type NodeBinary } from '../clients/node/newer-node.js';

const SCRIPT = join(repoRoot, 'test', 'clients', 'node', 'client-node-2-check.mjs');
const NS = 'cn2';

/** One run of the client script: the JSON documents it printed so far, and a way to wait for one. */
interface ClientRun {
  child: ChildProcess;
  docs: any[];
  /** Resolves with the first document (already printed or to come) that `match` accepts. */
  waitFor(match: (doc: any) => boolean, what: string, timeoutMs?: number): Promise<any>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stderr(): string;
}

function runClient(node: string, kubeconfig: string, args: string[]): ClientRun {
  const child = spawn(node, [SCRIPT, kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'], cwd: repoRoot });
  const docs: any[] = [];
  const waiters: { match: (doc: any) => boolean; resolve: (doc: any) => void }[] = [];
  let pending = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!line) continue;
      const doc = JSON.parse(line);
      docs.push(doc);
      for (const w of [...waiters]) {
        if (w.match(doc)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(doc);
        }
      }
    }
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    docs,
    exited,
    stderr: () => err,
    waitFor(match, what, timeoutMs = 60_000) {
      const done = docs.find(match);
      if (done) return Promise.resolve(done);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`client-node 2 never printed ${what}; printed:\n${docs.map((d) => JSON.stringify(d)).join('\n')}\nstderr:\n${err}`)),
          timeoutMs,
        );
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(`client-node 2 exited ${code} before printing ${what}; printed:\n${docs.map((d) => JSON.stringify(d)).join('\n')}\nstderr:\n${err}`),
          );
        });
        waiters.push({
          match,
          resolve: (doc) => {
            clearTimeout(timer);
            resolve(doc);
          },
        });
      });
    },
  };
}

async function runToEnd(node: string, kubeconfig: string, args: string[]): Promise<any[]> {
  const run = runClient(node, kubeconfig, args);
  run.child.stdin!.end();
  const code = await run.exited;
  assert.equal(code, 0, `client-node 2 ${args.join(' ')} exited ${code}; stderr:\n${run.stderr()}`);
  return run.docs;
}

describe('@kubernetes/client-node 2.x (under Node ≥ 22)', { concurrency: 1 }, () => {
  let node: NodeBinary = { missing: 'not looked for yet' };
  let server: ServerProcess | undefined;
  let api: ApiHandle | undefined;
  before(
    async () => {
      node = await newerNode(22, 24);
      if ('missing' in node) return;
      server = await startServer();
      api = apiFromKubeconfig(server.kubeconfig);
      assert.equal((await api.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    },
    { timeout: 600_000 },
  );
  after(async () => {
    api?.close();
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });
  /** The node binary, or a skip naming why there is none. */
  const nodeOr = (t: { skip(message: string): void }): string | undefined => {
    if ('missing' in node) {
      t.skip(node.missing);
      return undefined;
    }
    return node.path;
  };

  test('runs client-node 2 under Node ≥ 22', async (t) => {
    const bin = nodeOr(t);
    if (!bin) return;
    const [v] = await runToEnd(bin, server!.kubeconfig, ['version']);
    assert.ok(Number(/^v(\d+)/.exec(v.node)![1]) >= 22, v.node);
    assert.match(v.clientNode, /^2\./);
  });

  test('list with limit follows continue tokens through every page, each object once', async (t) => {
    const bin = nodeOr(t);
    if (!bin) return;
    const names = Array.from({ length: 7 }, (_, i) => `page-${i}`);
    for (const name of names) assert.equal((await api!.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name } })).status, 201);
    const [r] = await runToEnd(bin, server!.kubeconfig, ['pages', NS, '3']);
    assert.equal(r.pages, 3);
    assert.deepEqual(r.names, names);
    assert.deepEqual(r.remainingItemCount, [4, 1, null]);
  });

  test('an informer keeps working across a restart of the server (same data dir and port)', async (t) => {
    const bin = nodeOr(t);
    if (!bin) return;
    const cms = `/api/v1/namespaces/${NS}/configmaps`;
    const run = runClient(bin, server!.kubeconfig, ['informer', NS]);
    try {
      await run.waitFor((d) => d.event === 'started', 'that it started');
      assert.equal((await api!.request('POST', cms, { metadata: { name: 'before-restart' } })).status, 201);
      await run.waitFor((d) => d.event === 'add' && d.name === 'before-restart', 'the add of before-restart');

      const port = new URL(server!.url).port;
      assert.equal(await server!.stop(), 0, 'the server stops cleanly on SIGTERM');
      server = await startServer({ dataDir: server!.dataDir, args: ['--port', port] });
      assert.equal(server.url, `https://127.0.0.1:${port}`);

      assert.equal((await api!.request('POST', cms, { metadata: { name: 'after-restart' } })).status, 201);
      assert.equal((await api!.request('DELETE', `${cms}/before-restart`)).status, 200);
      await run.waitFor((d) => d.event === 'add' && d.name === 'after-restart', 'the add of after-restart');
      await run.waitFor((d) => d.event === 'delete' && d.name === 'before-restart', 'the delete of before-restart');
      run.child.stdin!.end();
      const stopped = await run.waitFor((d) => d.event === 'stopped', 'its cache');
      assert.ok(stopped.cached.includes('after-restart'));
      assert.ok(!stopped.cached.includes('before-restart'));
      const adds = run.docs.filter((d) => d.event === 'add').map((d) => d.name);
      assert.equal(adds.filter((n) => n === 'before-restart').length, 1, 'nothing is added twice');
      assert.equal(await run.exited, 0);
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
