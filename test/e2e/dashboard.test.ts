/**
 * The web dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against a real server: `/` leads to the login page, the admin's token signs in, a claim is
 * seen Pending with the scheduler's explanation and then Bound and Ready when a resource for it
 * appears (live, through watches), its trace names the resource and Provider; a developer's
 * token sees its own namespace's claims only and "Not allowed" for the rest. Screenshots are
 * kept under test-artifacts/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { parse } from 'yaml';
import { cliPath, kubectlOk, removeDir, repoRoot, startServer, type ServerProcess } from '../support/server.js';

const CHROMIUM = process.env.CONDUCTOR_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(repoRoot, 'test-artifacts');
/** How long the UI may take to show what the server did (a bound, not an expected time). */
const SHOWS = { timeout: 30_000 };

function adminToken(kubeconfig: string): string {
  const config = parse(readFileSync(kubeconfig, 'utf8')) as { users: { user: { token?: string } }[] };
  const token = config.users.map((u) => u.user.token).find((t) => t);
  assert.ok(token, 'the kubeconfig conductor server writes holds the admin token');
  return token;
}

async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/`);
  assert.equal(new URL(page.url()).pathname, '/ui/', '/ redirects to the dashboard');
  await page.locator('#token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Claims' }).waitFor(SHOWS);
}

const claimRow = (page: Page, nsName: string) => page.locator(`tr[data-claim="${nsName}"]`);

/** The class of the live-updates test, applied twice (made again after it is deleted). */
const LIVE_CLASS = `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: live-class, namespace: conductor-system}
resourceClass: live
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
providerRef: {name: live-mem}
template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {version: "16.4"}
`;

describe('the web dashboard in headless Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;

  before(async () => {
    assert.ok(
      existsSync(CHROMIUM),
      `the dashboard test needs Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run installs it), or set CONDUCTOR_CHROMIUM to its path`,
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    // Running as root (CI containers) Chromium refuses its sandbox; the pages are our own.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await kubectlOk(server, ['create', 'namespace', 'other']);
  });
  after(async () => {
    await browser?.close();
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('the shell is public; unknown or hidden names are 404; assets are immutable', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const index = await context.request.get(`${server.url}/ui/`);
      assert.equal(index.status(), 200);
      assert.match(index.headers()['content-security-policy'] ?? '', /script-src 'self'/);
      const script = /src="(app-[A-Z0-9]{8}\.js)"/.exec(await index.text())?.[1];
      assert.ok(script, 'index.html names the hashed bundle');
      const asset = await context.request.get(`${server.url}/ui/${script}`);
      assert.equal(asset.status(), 200);
      assert.match(asset.headers()['cache-control'] ?? '', /immutable/);
      for (const path of ['/ui/.env', '/ui/nope.js', '/ui/a/b']) assert.equal((await context.request.get(`${server.url}${path}`)).status(), 404, path);
      assert.equal((await context.request.post(`${server.url}/ui/`)).status(), 405);
      // The data is not public: the API still wants credentials.
      assert.equal((await context.request.get(`${server.url}/api/v1/namespaces`)).status(), 401);
    } finally {
      await context.close();
    }
  });

  test('admin: a claim shows Pending with the scheduler’s explanation, then Bound and Ready, with its trace', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/ui/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor(SHOWS);
      await page.locator('#token').fill('not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'The token was not accepted' }).waitFor(SHOWS);

      await signIn(page, server.url, adminToken(server.kubeconfig));
      // Nothing serves the claim yet: it is Pending, and the scheduler says why.
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: apps}
spec: {version: "16"}
`,
      });
      await claimRow(page, 'apps/orders').locator('td.phase', { hasText: 'Pending' }).waitFor(SHOWS);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-claims-pending.png'), fullPage: true });

      await claimRow(page, 'apps/orders').getByRole('link', { name: 'orders' }).click();
      const explanation = page.getByTestId('explanation');
      await explanation.locator('.status-false').waitFor(SHOWS);
      const said = await kubectlOk(server, ['get', 'pg', 'orders', '-n', 'apps', '-o', 'jsonpath={.status.conditions[?(@.type=="Scheduled")].message}']);
      assert.ok(said.length > 0, 'the Pending claim has a Scheduled message');
      await explanation.locator('.message', { hasText: said.slice(0, 60) }).waitFor(SHOWS);

      // A resource that fits appears: the page follows the claim to Bound and Ready.
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: mem, namespace: conductor-system}
spec: {type: memory}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-1, namespace: conductor-system}
spec: {providerRef: {name: mem}, version: "16.4"}
`,
      });
      await page.locator('h2 .phase', { hasText: 'Bound' }).waitFor(SHOWS);
      await page.locator('h2 .status-true').waitFor(SHOWS);
      const trace = page.getByTestId('trace');
      await trace.locator('.node-name', { hasText: 'MemoryDatabase/db-1' }).waitFor(SHOWS);
      await trace.locator('.node-name', { hasText: 'Provider/mem' }).waitFor(SHOWS);
      await trace.locator('.node-name', { hasText: 'Secret/orders' }).waitFor(SHOWS);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-claim.png'), fullPage: true });

      await page.getByRole('link', { name: 'Claims' }).click();
      await claimRow(page, 'apps/orders').locator('td.phase', { hasText: 'Bound' }).waitFor(SHOWS);
      await claimRow(page, 'apps/orders').locator('td.ready .status-true').waitFor(SHOWS);

      // A class appears on the Classes page with its capabilities and price.
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: mem-fast, namespace: conductor-system, annotations: {conductor.io/monthly-cost: "12.5"}}
resourceClass: fast
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
providerRef: {name: mem}
capabilities: {capacity: {storage: 10Gi}, region: us-east-1, cost: standard}
template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {version: "16.4"}
`,
      });
      await page.getByRole('link', { name: 'Classes' }).click();
      const cls = page.locator('tr', { hasText: 'mem-fast' });
      await cls.locator('td', { hasText: 'storage: 10Gi' }).waitFor(SHOWS);
      await cls.locator('td', { hasText: /^12\.5$/ }).waitFor(SHOWS);
      await cls.locator('td', { hasText: /^MemoryDatabase$/ }).waitFor(SHOWS);

      await page.getByRole('link', { name: 'Providers' }).click();
      await page.locator('tr', { hasText: 'mem' }).locator('.status-true').waitFor(SHOWS);
      // A Shared resource with a capacity: the Resources page shows what its claims use and what is left.
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: shared-1, namespace: conductor-system}
spec: {providerRef: {name: mem}, version: "16.4", sharing: {mode: Shared, maxClaims: 5}, capabilities: {capacity: {storage: 100Gi}}}
---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: reports, namespace: apps}
spec: {version: "16", resourceName: shared-1, requirements: {capacity: {storage: 30Gi}}}
`,
      });
      await page.getByRole('link', { name: 'Resources' }).click();
      await page.locator('tr', { hasText: 'db-1' }).locator('td.phase', { hasText: 'Bound' }).waitFor(SHOWS);
      const shared = page.locator('tr', { hasText: 'shared-1' });
      await shared.locator('td.used', { hasText: 'storage: 30Gi' }).waitFor(SHOWS);
      await shared.locator('td', { hasText: 'storage: 70Gi' }).waitFor(SHOWS);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-resources.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  test('the Claims page holds a watch per claim kind, more than a browser’s 6 connections to a server, over HTTP/2; a later request from the page completes', async () => {
    const kinds = (await kubectlOk(server, ['api-resources', '--categories=claim', '-o', 'name'])).split('\n').filter(Boolean);
    assert.ok(kinds.length > 6, `more claim kinds than Chromium's 6 HTTP/1.1 connections per server: ${kinds.join(', ')}`);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    // The watches the page opened (by resource) and the status each was answered, from the page's own events.
    const watches = new Map<string, number>();
    const watchesFinished: string[] = [];
    const resourceOf = (url: string) => {
      const u = new URL(url);
      return u.searchParams.get('watch') === '1' ? u.pathname.split('/').pop() : undefined;
    };
    page.on('response', (r) => {
      const resource = resourceOf(r.url());
      if (resource) watches.set(resource, r.status());
    });
    page.on('requestfinished', (r) => {
      const resource = resourceOf(r.url());
      if (resource) watchesFinished.push(resource);
    });
    try {
      const token = adminToken(server.kubeconfig);
      await signIn(page, server.url, token);
      await page.getByRole('link', { name: 'Claims' }).click();
      const resources = kinds.map((k) => k.split('.')[0]);
      const deadline = Date.now() + SHOWS.timeout;
      while (!resources.every((r) => watches.get(r) === 200) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        resources.filter((r) => watches.get(r) !== 200),
        [],
        `every claim kind's watch is answered 200 (answered: ${JSON.stringify([...watches])})`,
      );
      // While those watches stay open, the page asks for something else: over HTTP/1.1 it would
      // wait for one of them to end; over HTTP/2 it is one more stream on the same connection.
      const later = await page.evaluate(async (bearer) => {
        const res = await fetch('/version', { headers: { Authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(20_000) });
        const body = await res.text();
        const entry = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/version')) as PerformanceResourceTiming | undefined;
        return { status: res.status, body, protocol: entry?.nextHopProtocol };
      }, token);
      assert.equal(later.status, 200, later.body);
      assert.equal(later.protocol, 'h2', 'the page speaks HTTP/2 to the server');
      assert.deepEqual(
        resources.filter((r) => watchesFinished.includes(r)),
        [],
        'the watches were still open when the later request completed',
      );
    } finally {
      await context.close();
    }
  });

  test('the claim page follows what serves the claim through watches, not polling: a Provider turning unready, its class deleted and made again', async () => {
    await kubectlOk(server, ['create', 'namespace', 'live']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: live-mem, namespace: conductor-system}
spec: {type: memory}
---
${LIVE_CLASS}---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: watched, namespace: live}
spec: {version: "16", resourceClass: live}
`,
    });
    await kubectlOk(server, ['wait', '--for=condition=Ready', 'postgresqlinstances.storage.conductor.io/watched', '-n', 'live', '--timeout=60s']);
    const resource = await kubectlOk(server, ['get', 'pg', 'watched', '-n', 'live', '-o', 'jsonpath={.status.resourceRef.name}']);
    assert.ok(resource, 'the claim is bound to a resource provisioned from the class');

    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    // Every request the page makes, to tell the watches from plain reads.
    const requests: URL[] = [];
    page.on('request', (r) => {
      if (r.method() === 'GET') requests.push(new URL(r.url()));
    });
    // A clock the test can move on: were the page polling, moving it past any period makes it read again.
    await page.clock.install();
    try {
      await signIn(page, server.url, adminToken(server.kubeconfig));
      await page.goto(`${server.url}/ui/#/claim/live/postgresqlinstances.storage.conductor.io/watched`);
      const trace = page.getByTestId('trace');
      const node = (name: string) => trace.locator('.node', { has: page.locator('.node-name', { hasText: name }) });
      await node('Provider/live-mem').locator('.status-true').waitFor(SHOWS);
      await node(`MemoryDatabase/${resource}`).waitFor(SHOWS);
      await node('ResourceClass/live-class').locator('.node-status', { hasText: 'provisions MemoryDatabase' }).waitFor(SHOWS);

      // The Provider's status changes (its credentials Secret does not exist): the page shows it.
      await kubectlOk(server, [
        'patch',
        'provider',
        'live-mem',
        '-n',
        'conductor-system',
        '--type=merge',
        '-p',
        '{"spec":{"credentialsSecretRef":{"name":"no-such-secret"}}}',
      ]);
      await node('Provider/live-mem').locator('.node-status', { hasText: 'CredentialsNotFound' }).waitFor(SHOWS);
      await node('Provider/live-mem').locator('.status-false').waitFor(SHOWS);
      // The class goes, then comes back.
      await kubectlOk(server, ['delete', 'resourceclass', 'live-class', '-n', 'conductor-system']);
      await node('ResourceClass/live-class').locator('.node-status', { hasText: 'not found' }).waitFor(SHOWS);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-claim-live.png'), fullPage: true });
      // Five minutes pass for the page: a timer re-reading the tree would have fired by now.
      await page.clock.fastForward('05:00');
      await kubectlOk(server, ['apply', '-f', '-'], { input: LIVE_CLASS });
      await node('ResourceClass/live-class').locator('.node-status', { hasText: 'provisions MemoryDatabase' }).waitFor(SHOWS);

      // Each object below the claim was read once (a list narrowed to its name) and then watched.
      const isWatch = (u: URL) => u.searchParams.get('watch') === '1' || u.searchParams.get('watch') === 'true';
      const about = (collection: string, name: string) =>
        requests.filter(
          (u) =>
            u.pathname.endsWith(`/${collection}/${encodeURIComponent(name)}`) ||
            (u.pathname.endsWith(`/${collection}`) && u.searchParams.get('fieldSelector') === `metadata.name=${name}`),
        );
      for (const [collection, name] of [
        ['providers', 'live-mem'],
        ['resourceclasses', 'live-class'],
        ['memorydatabases', resource],
      ]) {
        const seen = about(collection, name);
        const reads = seen.filter((u) => !isWatch(u));
        const watches = seen.filter(isWatch);
        assert.ok(watches.length >= 1, `the page watches ${collection}/${name} (requests: ${seen.map(String).join(', ')})`);
        assert.ok(
          reads.length <= 1,
          `the page read ${collection}/${name} ${reads.length} times; once, then its watch (requests: ${seen.map(String).join(', ')})`,
        );
      }
    } finally {
      await context.close();
    }
  });

  test('a developer’s token sees its namespace’s claims only, and "Not allowed" for what RBAC refuses', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: secret-project, namespace: other}
spec: {version: "16"}
`,
    });
    await kubectlOk(server, ['create', 'serviceaccount', 'dev', '-n', 'apps']);
    await kubectlOk(server, ['create', 'rolebinding', 'dev', '-n', 'apps', '--clusterrole', 'conductor:app-developer', '--serviceaccount', 'apps:dev']);
    const token = (await kubectlOk(server, ['create', 'token', 'dev', '-n', 'apps'])).trim();

    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await signIn(page, server.url, token);
      await page.getByText('system:serviceaccount:apps:dev').waitFor(SHOWS);
      // The namespace starts as the account's own.
      assert.equal(await page.locator('#namespace').inputValue(), 'apps');
      await claimRow(page, 'apps/orders').waitFor(SHOWS);
      assert.equal(await claimRow(page, 'other/secret-project').count(), 0);

      // Its claim's page: the explanation, and a trace that stops where RBAC does (the
      // resource lives in conductor-system, which a developer may not read).
      await claimRow(page, 'apps/orders').getByRole('link', { name: 'orders' }).click();
      await page.getByTestId('explanation').locator('.status-true').waitFor(SHOWS);
      const resource = page.getByTestId('trace').locator('.node', { hasText: 'MemoryDatabase/db-1' });
      await resource.locator('.node-status', { hasText: 'not allowed to read it (RBAC)' }).waitFor(SHOWS);
      await page.getByTestId('trace').locator('.node-name', { hasText: 'Secret/orders' }).waitFor(SHOWS);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-developer-claim.png'), fullPage: true });
      await page.getByRole('link', { name: 'Claims' }).click();

      // All namespaces: refused by RBAC, said so, nothing else shown.
      await page.locator('#namespace').fill('');
      await page.locator('#namespace').press('Enter');
      await page
        .getByRole('alert')
        .filter({ hasText: /Not allowed: you may not list .*PostgreSQLInstance.* in all namespaces/ })
        .waitFor(SHOWS);
      assert.equal(await claimRow(page, 'other/secret-project').count(), 0);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-developer.png'), fullPage: true });

      await page.getByRole('link', { name: 'Providers' }).click();
      await page.getByRole('alert').filter({ hasText: 'Not allowed: you may not list Provider' }).waitFor(SHOWS);
    } finally {
      await context.close();
    }
  });

  test('a client certificate from conductor user add signs in without a token', async () => {
    const run = promisify(execFile);
    await run(process.execPath, [cliPath, 'user', 'add', 'alice', '--group', 'team-a', '--data-dir', server.dataDir]);
    const config = parse(readFileSync(join(server.dataDir, 'users', 'alice.kubeconfig'), 'utf8')) as {
      users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
    };
    const { 'client-certificate-data': cert, 'client-key-data': key } = config.users[0].user;
    await kubectlOk(server, ['create', 'rolebinding', 'alice', '-n', 'apps', '--clusterrole', 'conductor:app-developer', '--user', 'alice']);

    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      clientCertificates: [{ origin: server.url, cert: Buffer.from(cert, 'base64'), key: Buffer.from(key, 'base64') }],
    });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/ui/`);
      await page.getByRole('button', { name: 'Use my client certificate' }).click();
      await page.locator('header .user', { hasText: 'alice' }).waitFor(SHOWS);
      await page.locator('#namespace').fill('apps');
      await page.locator('#namespace').press('Enter');
      await claimRow(page, 'apps/orders').waitFor(SHOWS);
    } finally {
      await context.close();
    }
  });
});
