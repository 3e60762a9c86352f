import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { asksImpersonation, headersDistinct } from './protocol.js';

/** What asksImpersonation said of each request a real server received. */
async function seen(send: (port: number) => Promise<void>, h2 = false): Promise<boolean[]> {
  const answers: boolean[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    answers.push(asksImpersonation(req));
    // It agrees with the full header copy the impersonation check reads.
    assert.equal(
      answers.at(-1),
      Object.keys(headersDistinct(req)).some((k) => k.startsWith('impersonate-')),
    );
    res.end('ok');
  };
  const server = h2
    ? http2.createServer(handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void)
    : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await send((server.address() as AddressInfo).port);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return answers;
}

function get1(port: number, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', headers, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject);
  });
}

describe('asksImpersonation', () => {
  test('over HTTP/1.1: any Impersonate-* header in any case, and nothing else', async () => {
    const answers = await seen(async (port) => {
      await get1(port, { Authorization: 'Bearer x', 'X-Impersonate-User': 'no' });
      await get1(port, { 'Impersonate-User': 'dev' });
      await get1(port, { 'IMPERSONATE-GROUP': 'g' });
      await get1(port, { 'impersonate-extra-scopes': 's' });
      await get1(port, { Impersonator: 'no' });
    });
    assert.deepEqual(answers, [false, true, true, true, false]);
  });

  test('over HTTP/2', async () => {
    const answers = await seen(async (port) => {
      const session = http2.connect(`http://127.0.0.1:${port}`);
      try {
        for (const headers of [{ authorization: 'Bearer x' }, { 'impersonate-uid': 'u' }]) {
          await new Promise<void>((resolve, reject) => {
            const stream = session.request({ ':path': '/', ...headers });
            stream.on('error', reject);
            stream.resume();
            stream.on('end', resolve);
            stream.end();
          });
        }
      } finally {
        session.close();
      }
    }, true);
    assert.deepEqual(answers, [false, true]);
  });
});
