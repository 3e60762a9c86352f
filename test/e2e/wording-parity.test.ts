/**
 * Wording parity with kube, through the real kubectl: where Conductor's answer differs from
 * kube's only in wording, users' searches and scripts' greps break. Each expectation is kube's
 * own text: printer columns of a CRD with additionalPrinterColumns and `<none>` for empty
 * cells; strict decoding, CEL rule, JSON patch `test` and label selector errors; and the bare
 * "no" of `kubectl auth can-i` on a plain denial.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const GROUP = 'words.example.io';
const NS = 'words';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color' },
          { name: 'Tags', type: 'string', jsonPath: '.spec.tags', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [
                  { rule: 'self.size <= 10', message: 'size must be at most 10' },
                  { rule: "!has(self.color) || self.color != 'black'" },
                ],
                properties: { size: { type: 'integer' }, color: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
        },
      },
    ],
  },
};

const gadget = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name, namespace: NS, ...meta }, spec });

describe('wording parity with kube (kubectl)', { concurrency: 1 }, () => {
  const s = serverForSuite({
    setup: async ({ api }) => {
      assert.equal((await api.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
      assert.equal((await api.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status, 201);
      await eventually(async () => (await api.request('GET', `/apis/${GROUP}/v1/gadgets`)).status === 200, 'the Gadget kind to be served');
    },
  });
  const k = (args: string[], input?: string) => kubectl(s.server, ['-n', NS, ...args], { input });

  test('kubectl get: the declared columns in order (no extra AGE), <none> for an empty cell, priority-1 columns only with -o wide', async () => {
    await kubectlOk(s.server, ['apply', '-f', '-'], { input: gadget('plain', { size: 2 }) });
    await kubectlOk(s.server, ['apply', '-f', '-'], { input: gadget('full', { size: 3, color: 'red', tags: ['a', 'b'] }) });
    const out = await kubectlOk(s.server, ['get', 'gadgets', '-n', NS]);
    assert.match(out, /^NAME\s+SIZE\s+COLOR\s+AGE$/m);
    assert.match(out, /^plain\s+2\s+<none>\s+\d+s$/m);
    assert.match(out, /^full\s+3\s+red\s+\d+s$/m);
    const wide = await kubectlOk(s.server, ['get', 'gadgets', '-n', NS, '-o', 'wide']);
    assert.match(wide, /^NAME\s+SIZE\s+COLOR\s+TAGS\s+AGE$/m);
    assert.match(wide, /^plain\s+2\s+<none>\s+<none>\s+\d+s$/m);
    assert.match(wide, /^full\s+3\s+red\s+\["a","b"\]\s+\d+s$/m);
  });

  test('strict decoding: every unknown field, its own metadata included, in one error', async () => {
    const r = await k(['create', '-f', '-'], gadget('bad', { size: 1, extra: 1 }, { bogus: 2 }));
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /^Error from server \(BadRequest\): error when creating "STDIN": strict decoding error: unknown field "metadata\.bogus", unknown field "spec\.extra"$/m,
    );
    const cm = await k(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: NS, bogus: 1 } }));
    assert.match(cm.stderr, /strict decoding error: unknown field "metadata\.bogus"$/m);
  });

  test('CEL rules: the rule message, or "failed rule: <rule>" without one, under the field with Invalid value: "object"', async () => {
    const r = await k(['apply', '-f', '-'], gadget('cel', { size: 30, color: 'black' }));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^The Gadget "cel" is invalid: $/m);
    assert.match(r.stderr, /^\* spec: Invalid value: "object": size must be at most 10$/m);
    assert.match(r.stderr, /^\* spec: Invalid value: "object": failed rule: !has\(self\.color\) \|\| self\.color != 'black'$/m);
  });

  test('a failed JSON patch test: 422 "the server rejected our request due to an error in our request"', async () => {
    await kubectlOk(s.server, ['create', 'configmap', 'patched', '-n', NS, '--from-literal=a=1']);
    const r = await k(['patch', 'configmap', 'patched', '--type=json', '-p', '[{"op":"test","path":"/data/a","value":"2"}]']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^The request is invalid: the server rejected our request due to an error in our request/m);
    const raw = await s.api.request('PATCH', `/api/v1/namespaces/${NS}/configmaps/patched`, [{ op: 'test', path: '/data/a', value: '2' }], {
      'Content-Type': 'application/json-patch+json',
    });
    assert.equal(raw.status, 422);
    assert.equal(raw.json().reason, 'Invalid');
  });

  test('label selector parse errors: kube text inside kubectl wrapper', async () => {
    const r = await k(['get', 'configmaps', '-l', 'app=shop,-ltier=db']);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /^Error from server \(BadRequest\): Unable to find "\/v1, Resource=configmaps" that match label selector "app=shop,-ltier=db", field selector "": unable to parse requirement: key: Invalid value: "-ltier": name part must consist of alphanumeric characters, '-', '_' or '\.', and must start and end with an alphanumeric character/m,
    );
    const paren = await k(['get', 'configmaps', '-l', 'a in (b']);
    assert.match(paren.stderr, /unable to parse requirement: found '', expected: ',', '\)' or identifier$/m);
  });

  test('kubectl auth can-i: a plain denial prints exactly "no" and exits 1', async () => {
    const r = await k(['auth', 'can-i', 'create', 'configmaps', '--as=nobody']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, 'no\n');
    assert.equal((await kubectlOk(s.server, ['auth', 'can-i', 'create', 'configmaps', '-n', NS])).trim(), 'yes');
  });
});
