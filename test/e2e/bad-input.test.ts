/**
 * Bad input gets a 4xx Status that says what is wrong — never a 500, never a crash.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, serverForSuite } from '../support/server.js';

const cms = '/api/v1/namespaces/default/configmaps';

interface Case {
  reason: string;
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  message?: RegExp;
}

describe('bad input', () => {
  const t = serverForSuite({});

  const cases: Case[] = [
    { reason: 'malformed JSON', method: 'POST', path: cms, body: '{"metadata": {"name": "x"', status: 400, message: /not valid JSON/ },
    { reason: 'malformed YAML', method: 'POST', path: cms, body: 'metadata:\n  name: [unclosed', headers: { 'Content-Type': 'application/yaml' }, status: 400, message: /not valid YAML/ },
    { reason: 'a JSON array instead of an object', method: 'POST', path: cms, body: '[1,2,3]', status: 400 },
    { reason: 'an empty body', method: 'POST', path: cms, body: '', status: 400, message: /empty/ },
    { reason: 'invalid UTF-8', method: 'POST', path: cms, body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), status: 400, message: /UTF-8/ },
    { reason: 'wrong type for data', method: 'POST', path: cms, body: JSON.stringify({ metadata: { name: 'typed' }, data: 'not-a-map' }), status: 422, message: /data/ },
    { reason: 'wrong type for a data value', method: 'POST', path: cms, body: JSON.stringify({ metadata: { name: 'typed2' }, data: { a: 5 } }), status: 422, message: /data\[a\]|data\.a/ },
    { reason: 'an invalid name', method: 'POST', path: cms, body: JSON.stringify({ metadata: { name: 'Not_Valid' } }), status: 422, message: /metadata\.name/ },
    { reason: 'an invalid label', method: 'POST', path: cms, body: JSON.stringify({ metadata: { name: 'lbl', labels: { 'bad key!': 'v' } } }), status: 422, message: /metadata\.labels/ },
    { reason: 'a kind that does not match the URL', method: 'POST', path: cms, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } }), status: 400 },
    { reason: 'an unknown resource', method: 'GET', path: '/api/v1/namespaces/default/gizmos', status: 404 },
    { reason: 'an unknown group', method: 'GET', path: '/apis/nope.example.com/v1/things', status: 404 },
    { reason: 'a bad label selector', method: 'GET', path: `${cms}?labelSelector=${encodeURIComponent('a in (b')}`, status: 400 },
    { reason: 'a bad field selector', method: 'GET', path: `${cms}?fieldSelector=${encodeURIComponent('metadata.name~x')}`, status: 400 },
    { reason: 'an unsupported field selector', method: 'GET', path: `${cms}?fieldSelector=spec.x%3D1`, status: 400, message: /field label not supported/ },
    { reason: 'a bad limit', method: 'GET', path: `${cms}?limit=-3`, status: 400, message: /limit/ },
    { reason: 'a bad continue token', method: 'GET', path: `${cms}?limit=1&continue=garbage`, status: 400, message: /continue/ },
    { reason: 'a bad resourceVersion', method: 'GET', path: `${cms}?resourceVersion=abc`, status: 400, message: /resourceVersion/ },
    { reason: 'an unsupported patch type', method: 'PATCH', path: `${cms}/x`, body: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415 },
    { reason: 'a JSON patch that is not a list', method: 'PATCH', path: `${cms}/target`, body: '{"op":"add"}', headers: { 'Content-Type': 'application/json-patch+json' }, status: 400 },
    { reason: 'a wrong method', method: 'POST', path: `${cms}/named`, body: '{}', status: 405 },
    { reason: 'a bad dryRun value', method: 'POST', path: `${cms}?dryRun=Some`, body: '{"metadata":{"name":"d"}}', status: 400 },
    { reason: 'a path traversal in the name', method: 'GET', path: `${cms}/..%2F..%2Fsecrets`, status: 404 },
    // Issue 10 item 3: nesting by indentation, which has no bracket to count.
    { reason: 'YAML sequences 100,000 deep (- - - x)', method: 'POST', path: cms, body: `${'- '.repeat(100_000)}x`, headers: { 'Content-Type': 'application/yaml' }, status: 400, message: /nests deeper than 100 levels/ },
    { reason: 'an apply patch 100,000 deep (- - - x)', method: 'PATCH', path: `${cms}/deep-apply?fieldManager=fuzz`, body: `${'- '.repeat(100_000)}x`, headers: { 'Content-Type': 'application/apply-patch+yaml' }, status: 400, message: /nests deeper than 100 levels/ },
    { reason: 'YAML mappings nested by indentation', method: 'POST', path: cms, body: Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n'), headers: { 'Content-Type': 'application/yaml' }, status: 400, message: /nests deeper than 100 levels/ },
    // Issue 10 item 14: numbers a double cannot hold.
    { reason: 'a JSON number too large for a double', method: 'POST', path: cms, body: '{"metadata":{"name":"inf"},"data":{"a":"b"},"extra":{"size":1e400}}', status: 422, message: /extra\.size: Invalid value: Infinity/ },
    { reason: 'a negative one', method: 'POST', path: cms, body: '{"metadata":{"name":"inf","labels":{"a":"b"}},"extra":[-1e400]}', status: 422, message: /extra\[0\]: Invalid value: -Infinity/ },
    { reason: 'YAML .nan', method: 'POST', path: cms, body: 'metadata: {name: nan}\nextra: .nan\n', headers: { 'Content-Type': 'application/yaml' }, status: 422, message: /extra: Invalid value: NaN/ },
    { reason: 'a merge patch with .inf', method: 'PATCH', path: `${cms}/target`, body: '{"metadata":{"annotations":null},"extra":1e999}', headers: { 'Content-Type': 'application/merge-patch+json' }, status: 422, message: /extra: Invalid value: Infinity/ },
  ];

  for (const c of cases) {
    test(`${c.reason} → ${c.status}`, async () => {
      if (c.path.endsWith('/target')) await t.api.request('POST', cms, { metadata: { name: 'target' } });
      const r = await t.api.request(c.method, c.path, c.body, c.headers);
      assert.equal(r.status, c.status, `${c.reason}: ${r.text}`);
      const st = r.json();
      assert.equal(st.kind, 'Status');
      assert.equal(st.code, c.status);
      if (c.message) assert.match(st.message, c.message);
    });
  }

  test('an oversized body is a 413, and the server keeps serving', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { blob: 'x'.repeat(4 * 1024 * 1024) } });
    const r = await t.api.request('POST', cms, big).catch(() => ({ status: 413 }) as { status: number });
    assert.equal(r.status, 413);
    assert.equal((await t.api.request('GET', '/version')).status, 200);
  });

  test('deeply nested JSON is a 400, not a crash', async () => {
    const deep = '{"metadata":{"name":"deep"},"data":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '}';
    const r = await t.api.request('POST', cms, deep);
    assert.ok(r.status >= 400 && r.status < 500, r.text);
    assert.equal((await t.api.request('GET', '/version')).status, 200);
  });

  test('kubectl reports an invalid object with the field that is wrong', async () => {
    const r = await kubectl(t.server, ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: UPPER}\n' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /metadata\.name/);
  });

  test('no case above produced a 500 in the server log', () => {
    assert.doesNotMatch(t.server.stderr(), /unexpected error while serving a request/);
  });
});
