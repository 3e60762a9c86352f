/** WATCH_OPEN recognises an answered watch request in the `-v=6` log of every kubectl of the matrix. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WATCH_OPEN } from './kubectl-watching.js';

const cases = [
  {
    reason: 'kubectl 1.27–1.32: GET <url> 200 OK',
    line: 'I1128 01:35:54.529461   10838 round_trippers.go:560] GET https://127.0.0.1:37435/api/v1/namespaces/p/configmaps?resourceVersion=73&watch=true 200 OK in 1 milliseconds',
    open: true,
  },
  {
    reason: 'kubectl 1.33: "Response" verb="GET" url="<url>" status="200 OK"',
    line: 'I1128 01:35:51.710992   10829 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:37435/api/v1/namespaces/p/configmaps?resourceVersion=73&watch=true" status="200 OK" milliseconds=2',
    open: true,
  },
  {
    reason: 'a list, not a watch',
    line: 'I1128 01:35:51.700000   10829 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:37435/api/v1/namespaces/p/configmaps?limit=500" status="200 OK" milliseconds=2',
    open: false,
  },
  {
    reason: 'a refused watch',
    line: 'I1128 01:35:54.529461   10838 round_trippers.go:560] GET https://127.0.0.1:37435/api/v1/namespaces/p/configmaps?watch=true 403 Forbidden in 1 milliseconds',
    open: false,
  },
];

for (const c of cases) {
  test(`WATCH_OPEN: ${c.reason}`, () => assert.equal(WATCH_OPEN.test(c.line), c.open));
}
