import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { uriHost } from './uri-host.js';

describe('uriHost', () => {
  for (const c of [
    { reason: 'a host name stays as it is', host: 'db.example.com', want: 'db.example.com' },
    { reason: 'an IPv4 address stays as it is', host: '127.0.0.1', want: '127.0.0.1' },
    { reason: 'an IPv6 address goes in brackets', host: '::1', want: '[::1]' },
    { reason: 'one already in brackets is not bracketed twice', host: '[::1]', want: '[::1]' },
  ]) {
    test(c.reason, () => assert.equal(uriHost(c.host), c.want));
  }
});
