/**
 * Watches cannot exhaust the server: a user holds at most --max-watches-per-user watches
 * (429 naming the limit beyond; system:masters exempt), and a client that stops reading is
 * dropped with a 410 ERROR event and a clean end once it falls too far behind, while the
 * server stops reading the store for it and other watchers keep receiving.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const tokenDir = mkdtempSync(join(tmpdir(), 'conductor-watch-limits-'));
const userToken = 'watch-limits-user-token';
writeFileSync(join(tokenDir, 'tokens.csv'), `${userToken},wanda,wanda-uid,"watchers"\n`);
const ns = 'limits';
const cms = `/api/v1/namespaces/${ns}/configmaps`;

const rbac = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: configmap-watcher}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: wanda-watches}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: configmap-watcher}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: wanda}
`;

/** `p`'s value, or 'still waiting' when it has not settled after `ms` (so a failing run ends). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<'still waiting'>((r) => (timer = setTimeout(() => r('still waiting'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

interface OpenWatch {
  status: number;
  res: IncomingMessage;
  /** Everything received so far (only while reading). */
  text(): string;
  ended: Promise<'end' | 'aborted'>;
  close(): void;
}

describe('watch limits', () => {
  const t = serverForSuite({
    // The limit through its environment fallback (the flag is --max-watches-per-user).
    args: ['--token-file', join(tokenDir, 'tokens.csv')],
    env: { CONDUCTOR_CONTROLLERS: 'false', CONDUCTOR_MAX_WATCHES_PER_USER: '3', CONDUCTOR_WATCH_MAX_PENDING_EVENTS: '20', CONDUCTOR_WATCH_LINGER_MS: '600000' },
    setup: async (s) => {
      await kubectlOk(s.server, ['create', 'namespace', ns]);
      await kubectlOk(s.server, ['apply', '-f', '-'], { input: rbac });
    },
  });

  /** Opens a watch with `token`; `read: false` leaves the response unread (a client that stopped reading). */
  const openWatch = (token: string, query: string, read = true): Promise<OpenWatch> =>
    new Promise((resolve, reject) => {
      const opts: RequestOptions = { ca: t.api.ca, agent: false, headers: { Authorization: `Bearer ${token}` } };
      const req = request(`${t.api.url}${cms}?watch=1&${query}`, opts, (res) => {
        let text = '';
        const ended = new Promise<'end' | 'aborted'>((r) => {
          res.on('end', () => r('end'));
          res.on('aborted', () => r('aborted'));
          res.on('error', () => r('aborted'));
        });
        const collect = (d: Buffer) => (text += d.toString());
        if (read) res.on('data', collect);
        else res.pause();
        resolve({
          status: res.statusCode ?? 0,
          res,
          text: () => text,
          ended,
          close: () => req.destroy(),
        });
        // A paused response starts flowing (and collecting) when the test resumes it.
        if (!read) res.once('resume', () => res.on('data', collect));
      });
      req.on('error', reject);
      req.end();
    });

  test('a user may hold --max-watches-per-user watches; the next is a 429 naming the limit; system:masters is not limited', { timeout: 240_000 }, async () => {
    await eventually(async () => (await openWatch(userToken, 'resourceVersion=0').then((w) => (w.close(), w.status))) === 200, 'RBAC to let wanda watch');
    const held: OpenWatch[] = [];
    // The slot of the probe above is given back once the server sees it close.
    await eventually(async () => {
      const w = await openWatch(userToken, 'resourceVersion=0');
      if (w.status === 200) held.push(w);
      else {
        w.close();
        await new Promise((r) => setTimeout(r, 50));
      }
      return held.length === 3;
    }, 'three watches for wanda');

    const refused = await openWatch(userToken, 'resourceVersion=0');
    assert.equal(refused.status, 429);
    await refused.ended;
    const status = JSON.parse(refused.text());
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 429);
    assert.match(status.message, /too many watches open for user "wanda": the limit is 3 concurrent watches per user/);
    assert.ok(refused.res.headers['retry-after'], 'a Retry-After header');

    // The admin (system:masters) is not limited.
    const admin = await Promise.all(Array.from({ length: 5 }, () => openWatch(t.api.token, 'resourceVersion=0')));
    assert.deepEqual(
      admin.map((w) => w.status),
      [200, 200, 200, 200, 200],
    );
    for (const w of admin) w.close();

    // Closing one of wanda's watches gives its slot back.
    held.pop()!.close();
    const again = await eventually(async () => {
      const w = await openWatch(userToken, 'resourceVersion=0');
      if (w.status === 200) return w;
      w.close();
      return undefined;
    }, 'a slot to be free again');
    again.close();
    for (const w of held) w.close();
  });

  test('kubectl get -w over the limit fails with the 429 message', { timeout: 240_000 }, async () => {
    const kc = join(tokenDir, 'kubeconfig-wanda');
    const admin = await kubectlOk(t.server, ['config', 'view', '--raw', '--minify', '-o', 'json']);
    const cfg = JSON.parse(admin);
    cfg.users = [{ name: 'wanda', user: { token: userToken } }];
    cfg.contexts[0].context.user = 'wanda';
    writeFileSync(kc, JSON.stringify(cfg));
    const held: OpenWatch[] = [];
    await eventually(async () => {
      const w = await openWatch(userToken, 'resourceVersion=0');
      if (w.status === 200) held.push(w);
      else w.close();
      return held.length === 3;
    }, 'three watches for wanda');
    try {
      const r = await kubectl({ kubeconfig: kc }, ['get', 'configmaps', '-n', ns, '--watch-only', '--request-timeout=60s'], { timeoutMs: 90_000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /the limit is 3 concurrent watches per user/);
    } finally {
      for (const w of held) w.close();
    }
  });

  test('a client that stops reading is dropped with a 410 ERROR and a clean end; other watchers get every event', { timeout: 240_000 }, async () => {
    const start = (await t.api.request('GET', cms)).json().metadata.resourceVersion;
    const slow = await openWatch(t.api.token, `resourceVersion=${start}`, false);
    const healthy = await openWatch(t.api.token, `resourceVersion=${start}`);
    assert.equal(slow.status, 200);
    assert.equal(healthy.status, 200);
    // Far more than the socket buffers hold, then more than 20 events past that.
    const writes = 300;
    const big = 'x'.repeat(128 * 1024);
    for (let i = 0; i < writes; i++) {
      const r = await t.api.request('POST', cms, { metadata: { name: `big-${i}` }, data: { v: big } });
      assert.equal(r.status, 201);
    }
    const names = (text: string) => [...text.matchAll(/"name":"(big-\d+)"/g)].map((m) => m[1]);
    await eventually(() => names(healthy.text()).length === writes, `the healthy watcher to receive all ${writes} objects`);
    assert.deepEqual(
      names(healthy.text()),
      Array.from({ length: writes }, (_, i) => `big-${i}`),
    );

    // The slow client reads now: what it was sent, then a 410 ERROR event, then a normal end.
    slow.res.resume();
    assert.equal(await within(slow.ended, 120_000), 'end', 'the stream ended normally (terminating chunk)');
    assert.equal(slow.res.complete, true);
    const lines = slow.text().trim().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    assert.equal(last.type, 'ERROR');
    assert.equal(last.object.code, 410);
    assert.equal(last.object.reason, 'Expired');
    assert.match(last.object.message, /too far behind/);
    const got = names(slow.text());
    assert.ok(got.length < writes, `the server stopped sending to the slow client (it got ${got.length} of ${writes})`);
    assert.deepEqual(
      got,
      Array.from({ length: got.length }, (_, i) => `big-${i}`),
      'what it got is in order and without gaps',
    );
    healthy.close();
  });
});
