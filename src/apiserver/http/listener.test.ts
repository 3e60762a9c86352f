import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createApiListener } from './listener.js';

test('the API listener turns Nagle off on every connection it accepts (node:net noDelay), so small watch writes are not held behind a delayed ACK', () => {
  const listener = createApiListener({ tls: {}, handler: () => undefined, logger: pino({ level: 'silent' }) });
  // net.Server applies `noDelay` to each accepted socket (setNoDelay(true)); node:http's Server
  // does so by default, the tls/http2 server under this listener only when asked.
  const server = listener.server as typeof listener.server & { noDelay?: boolean; keepAlive?: boolean };
  assert.equal(server.noDelay, true);
  assert.equal(server.keepAlive, true);
});
