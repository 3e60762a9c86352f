import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parse } from 'yaml';
import { startServer, type RunningServer } from '../server.js';

/** Polls `done` until it holds (no time limit of its own: the test runner's applies). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}

describe('WatchStreams: what a server holds for watches', () => {
  let server: RunningServer;
  let dataDir: string;
  let ca: string;
  let token: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'conductor-watch-streams-'));
    server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
    const kc = parse(readFileSync(server.kubeconfigPath, 'utf8'));
    ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
    token = kc.users[0].user.token;
  });
  after(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const open = (path: string) =>
    new Promise<{ status: number; close: () => void }>((resolve, reject) => {
      const req = request(`${server.url}${path}`, { ca, agent: false, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
      });
      req.on('error', reject);
      req.end();
    });

  test('every watch structure is released when its clients go away', async () => {
    const baseline = server.watchCounts();
    assert.equal(baseline.streams, 0);
    const watches = await Promise.all(
      Array.from({ length: 50 }, (_, i) => open(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&labelSelector=n%3D${i}`)),
    );
    assert.ok(watches.every((w) => w.status === 200));
    await until(() => server.watchCounts().storeWatchers === baseline.storeWatchers + 50);
    assert.deepEqual(server.watchCounts(), { streams: 50, users: 1, storeWatchers: baseline.storeWatchers + 50 });
    for (const w of watches) w.close();
    await until(() => server.watchCounts().streams === 0);
    assert.deepEqual(server.watchCounts(), { streams: 0, users: 0, storeWatchers: baseline.storeWatchers });
  });
});
