import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { candidateKey } from './keys.js';
import { Scheduler } from './scheduler.js';
import { claim, resource, resourceClass } from './testing/index.js';
import type { ExtenderConfig, ScheduleResult } from './types.js';

/** What the test server received, by path. */
const received: Record<string, { claim: { name: string; requirements: { capacity: Record<string, string> } }; candidates: { key: string; name: string }[] }[]> =
  {};

/** The test server's answers, by path. */
const routes: Record<string, (body: { candidates: { key: string; name: string }[] }) => { status?: number; body: unknown; delayMs?: number }> = {
  // Rejects candidates whose name starts with "x", passes the rest by key.
  '/filter': (b) => ({
    body: {
      filtered: b.candidates.filter((c) => !c.name.startsWith('x')).map((c) => c.key),
      failed: Object.fromEntries(b.candidates.filter((c) => c.name.startsWith('x')).map((c) => [c.key, 'no GPUs there'])),
    },
  }),
  // Names candidates by bare name: keep only "b".
  '/filter-by-name': () => ({ body: { filtered: ['b'] } }),
  // Prefers "b" strongly.
  '/score': (b) => ({ body: { scores: Object.fromEntries(b.candidates.map((c) => [c.key, c.name === 'b' ? 100 : 0])) } }),
  '/slow': () => ({ body: { filtered: [] }, delayMs: 2_000 }),
  '/broken': () => ({ status: 500, body: { message: 'boom' } }),
  '/error': () => ({ body: { error: 'database down' } }),
  '/not-json': () => ({ body: 'hello' }),
};

let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as { claim: never; candidates: { key: string; name: string }[] };
      (received[req.url ?? ''] ??= []).push(body);
      const route = routes[req.url ?? ''];
      const answer = route ? route(body) : { status: 404, body: {} };
      const send = () => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

async function scheduleWith(extenders: ExtenderConfig[], names = ['a', 'b', 'x']): Promise<ScheduleResult> {
  const s = new Scheduler({ config: { profile: { extenders } } });
  for (const n of names) s.upsert(resource({ name: n, capacity: { storage: '10Gi' } }));
  try {
    return await s.schedule(claim({ capacity: { storage: '1Gi' } }));
  } finally {
    s.close();
  }
}

function chosen(r: ScheduleResult): string {
  return r.decision.type === 'none' ? 'none' : r.decision.candidate.name;
}

describe('HTTP extenders', () => {
  test('a filter extender rejects candidates with its reasons, counted in the explanation', async () => {
    const r = await scheduleWith([{ name: 'gpu', filterUrl: `${base}/filter` }], ['x1', 'x2', 'b']);
    assert.equal(chosen(r), 'b');
    assert.deepEqual(r.explanation.failures, [{ plugin: 'extender/gpu', summary: 'extender gpu: no GPUs there', count: 2 }]);
  });

  test('it receives the claim and the feasible candidates by key, quantities as strings', async () => {
    delete received['/filter'];
    const s = new Scheduler({ config: { profile: { extenders: [{ name: 'gpu', filterUrl: `${base}/filter` }] } } });
    s.upsert(resource({ name: 'b', capacity: { storage: '10Gi' } }));
    s.upsert(resource({ name: 'tiny', capacity: { storage: '1Mi' } }));
    s.upsert(resourceClass({ name: 'c', isDefault: true }));
    await s.schedule(claim({ capacity: { storage: '1Gi' } }));
    s.close();
    const got = received['/filter']?.[0];
    assert.equal(got?.claim.name, 'db');
    assert.deepEqual(got?.claim.requirements.capacity, { storage: '1Gi' });
    assert.deepEqual(
      got?.candidates.map((c) => c.key),
      [candidateKey(resourceClass({ name: 'c' })), candidateKey(resource({ name: 'b' }))].sort(),
      'only the candidates that passed the built-in filters, sorted by key',
    );
  });

  test('an answer may name candidates by bare name', async () => {
    assert.equal(chosen(await scheduleWith([{ name: 'n', filterUrl: `${base}/filter-by-name` }])), 'b');
  });

  test("a score extender's weighted scores join the sum", async () => {
    assert.equal(chosen(await scheduleWith([])), 'a', 'without it the tie goes to a');
    const r = await scheduleWith([{ name: 'pref', scoreUrl: `${base}/score`, weight: 5 }]);
    assert.equal(chosen(r), 'b');
    assert.ok(r.explanation.scores?.some((s) => s.plugin === 'extender/pref' && s.score === 100 && s.weight === 5));
  });

  const failures: { reason: string; path: string; want: RegExp }[] = [
    { reason: 'a timeout', path: '/slow', want: /timed out after 200 ms/ },
    { reason: 'an HTTP error', path: '/broken', want: /answered HTTP 500, expected 2xx/ },
    { reason: 'an error in the answer', path: '/error', want: /answered an error: database down/ },
    { reason: 'an answer that is not JSON', path: '/not-json', want: /not JSON/ },
    { reason: 'an unknown path', path: '/nothing', want: /answered HTTP 404/ },
  ];
  for (const f of failures) {
    test(`${f.reason} fails every candidate unless the extender is ignorable`, async () => {
      const strict = await scheduleWith([{ name: 'e', filterUrl: `${base}${f.path}`, timeoutMs: 200 }]);
      assert.equal(strict.decision.type, 'none');
      assert.equal(strict.explanation.failures.length, 1);
      assert.equal(strict.explanation.failures[0].count, 3);
      assert.match(strict.explanation.message, f.want);
      const lenient = await scheduleWith([{ name: 'e', filterUrl: `${base}${f.path}`, timeoutMs: 200, ignorable: true }]);
      assert.equal(chosen(lenient), 'a');
      assert.match(lenient.explanation.notes?.[0] ?? '', /^extender e skipped: /);
    });
  }

  test('a refused connection is reported like any failure', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await scheduleWith([{ name: 'gone', filterUrl: `http://127.0.0.1:${port}/filter` }]);
    assert.match(r.explanation.message, /^0\/3 candidates: 3 extender gone unavailable: POST http:\/\/127\.0\.0\.1:\d+\/filter failed: connect ECONNREFUSED/);
  });

  test('a failing score extender fails the decision unless ignorable', async () => {
    assert.equal((await scheduleWith([{ name: 's', scoreUrl: `${base}/broken` }])).decision.type, 'none');
    assert.equal(chosen(await scheduleWith([{ name: 's', scoreUrl: `${base}/broken`, ignorable: true }])), 'a');
  });

  test('a bad URL is refused when the configuration is set', () => {
    assert.throws(
      () => new Scheduler({ config: { profile: { extenders: [{ name: 'e', filterUrl: 'ftp://x/y' }] } } }),
      /extender e: URL "ftp:\/\/x\/y" is ftp:, expected http: or https:/,
    );
    assert.throws(() => new Scheduler({ config: { profile: { extenders: [{ name: 'e', scoreUrl: 'not a url' }] } } }), /cannot read URL "not a url"/);
  });
});
