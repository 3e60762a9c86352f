/**
 * The dashboard's live lists (src/dashboard/web/live.ts) after the server answers a watch with
 * 410 Expired, in headless Chromium against a real server whose history is kept short. On the
 * Classes page (one watch: ResourceClasses in conductor-system), the page's watches are made to
 * end after a second (the test rewrites the request's timeoutSeconds and passes the server's
 * answer on), so the page watches again from the last version it saw. One such re-watch is held
 * back while a class is created and the history is compacted past that version; let go, the
 * server answers it 410, and only a new list can show the class. Nothing is mocked: the 410 is
 * the server's.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type Route } from 'playwright-core';
import { parse } from 'yaml';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';

const CHROMIUM = process.env.CONDUCTOR_CHROMIUM ?? '/usr/bin/chromium';
const SHOWS = { timeout: 30_000 };
const SYS = 'conductor-system';
const CLASSES = `/apis/core.conductor.io/v1alpha1/namespaces/${SYS}/resourceclasses`;
const resourceClass = (name: string) => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'ResourceClass',
  metadata: { name },
  supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
  template: { apiVersion: 'database.memory.conductor.io/v1alpha1', kind: 'MemoryDatabase', spec: {} },
});
const isWatch = (u: URL) => u.searchParams.get('watch') === '1' || u.searchParams.get('watch') === 'true';

describe('the dashboard lists again when a watch answers 410 Expired (headless Chromium)', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  let browser: Browser;

  before(async () => {
    assert.ok(
      existsSync(CHROMIUM),
      `the dashboard test needs Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run installs it), or set CONDUCTOR_CHROMIUM`,
    );
    // A short history (5 revisions, no age floor, compacted every 100 ms) so a version the page saw can expire.
    server = await startServer({
      env: { CONDUCTOR_HISTORY_MIN_REVISIONS: '5', CONDUCTOR_HISTORY_MIN_AGE_MS: '0', CONDUCTOR_COMPACTION_INTERVAL_MS: '100' },
    });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/resourceclasses.core.conductor.io', '--timeout=30s']);
    assert.equal((await api.request('POST', CLASSES, resourceClass('first'))).status, 201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
    api?.close();
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('a class made while the page could not watch, past a compacted version, shows after the 410', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const gets: { url: URL; at: number }[] = [];
    let released = Infinity;
    page.on('request', (r) => {
      if (r.method() === 'GET') gets.push({ url: new URL(r.url()), at: Date.now() });
    });
    // The page's watches of the classes are made with timeoutSeconds=1 (the server ends
    // them after a second; Playwright fetches each and hands the page what the server sent); the
    // first one after `hold` is set waits for the test.
    let hold = false;
    let watchesEnded = 0;
    let held: ((h: { route: Route; url: URL }) => void) | undefined;
    const heldWatch = new Promise<{ route: Route; url: URL }>((resolve) => (held = resolve));
    await context.route(
      (u) => u.pathname === CLASSES && isWatch(u),
      async (route) => {
        const url = new URL(route.request().url());
        url.searchParams.set('timeoutSeconds', '1');
        if (hold) {
          hold = false;
          held?.({ route, url });
          return;
        }
        try {
          const response = await route.fetch({ url: url.toString() });
          await route.fulfill({ response });
          watchesEnded++;
        } catch {
          // The context closed while the watch was open.
        }
      },
    );
    try {
      const token = (parse(readFileSync(server.kubeconfig, 'utf8')) as { users: { user: { token?: string } }[] }).users.find((u) => u.user.token)!.user.token!;
      await page.goto(`${server.url}/ui/`);
      await page.locator('#token').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#namespace').fill(SYS);
      await page.locator('#namespace').press('Enter');
      await page.getByRole('link', { name: 'Classes' }).click();
      const row = (name: string) => page.locator('tr', { has: page.locator('td', { hasText: new RegExp(`^${name}$`) }) });
      await row('first').waitFor(SHOWS);
      // Some short watches come and go (each ends after a second; the page watches again from where it was).
      await eventually(() => watchesEnded >= 2 || undefined, 'two of the page’s watches to end', 30_000);

      hold = true;
      const { route, url } = await heldWatch;
      const version = url.searchParams.get('resourceVersion');
      assert.ok(version, `the page watches from a version (${url.toString()})`);
      // While the page cannot watch: a new class, then enough writes that the history is compacted past its version.
      assert.equal((await api.request('POST', CLASSES, resourceClass('second'))).status, 201);
      assert.equal((await api.request('POST', `/api/v1/namespaces/${SYS}/configmaps`, { metadata: { name: 'churn' }, data: { i: '0' } })).status, 201);
      await eventually(
        async () => {
          await api.request('PUT', `/api/v1/namespaces/${SYS}/configmaps/churn`, { metadata: { name: 'churn' }, data: { i: String(Date.now()) } });
          return (await api.request('GET', `${CLASSES}?resourceVersion=${version}&resourceVersionMatch=Exact`)).status === 410 || undefined;
        },
        `compaction past resourceVersion ${version}`,
        30_000,
      );
      assert.ok(!(await row('second').isVisible()), 'the page has not seen the new class yet');

      released = Date.now();
      const response = await route.fetch({ url: url.toString() });
      const body = await response.text();
      assert.match(body, /"type":"ERROR".*"code":410/, 'the server answers the held watch 410 Expired');
      await route.fulfill({ response, body });
      // Told so, the page lists again and shows the class.
      await row('second').waitFor(SHOWS);
      const relists = gets.filter((g) => g.at >= released && g.url.pathname === CLASSES && !isWatch(g.url));
      assert.ok(relists.length >= 1, 'the page listed the classes again after the 410');
      await row('first').waitFor(SHOWS);
    } finally {
      await context.close();
    }
  });
});
