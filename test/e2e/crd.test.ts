/**
 * A CustomResourceDefinition's whole life with the real kubectl: served at once, schema
 * validation with field-level errors, pruning, defaulting, CEL rules, printer columns,
 * the status subresource and generation, `kubectl wait --for=condition`, and deletion of
 * the CRD removing its objects.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { kubectlWatching } from '../support/kubectl-watching.js';

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.conductor.io
spec:
  group: example.conductor.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd], categories: [toys]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - rule: "self.size <= self.maxSize"
              message: "size must not exceed maxSize"
            properties:
              size: {type: integer, minimum: 1, description: How big the widget is.}
              maxSize: {type: integer, default: 10}
              color: {type: string, enum: [red, green, blue], default: red}
          status:
            type: object
            properties:
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
                    reason: {type: string}
                    message: {type: string}
                    lastTransitionTime: {type: string, format: date-time}
`;

describe('CRD lifecycle', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServer();
    await kubectlOk(server, ['create', 'namespace', 'toys']);
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('creating a CRD serves its kind at once and the CRD becomes Established', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], { input: crd });
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/widgets.example.conductor.io', '--timeout=10s']);
    const res = await kubectlOk(server, ['api-resources', '--api-group=example.conductor.io']);
    assert.match(res, /^widgets\s+wd\s+example\.conductor\.io\/v1\s+true\s+Widget/m);
  });

  test('a valid object is defaulted and unknown fields are pruned (with a warning)', async () => {
    const r = await kubectl(server, ['apply', '--validate=false', '-f', '-'], {
      input: 'apiVersion: example.conductor.io/v1\nkind: Widget\nmetadata: {name: w1, namespace: toys}\nspec: {size: 3, extra: dropped}\n',
    });
    assert.equal(r.code, 0, r.stderr);
    const spec = JSON.parse(await kubectlOk(server, ['get', 'widget', 'w1', '-n', 'toys', '-o', 'jsonpath={.spec}']));
    assert.deepEqual(spec, { size: 3, maxSize: 10, color: 'red' });
  });

  test('strict field validation rejects unknown fields, naming them', async () => {
    const r = await kubectl(server, ['apply', '-f', '-'], {
      input: 'apiVersion: example.conductor.io/v1\nkind: Widget\nmetadata: {name: w2, namespace: toys}\nspec: {size: 3, bogus: 1}\n',
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unknown field "spec\.bogus"/);
  });

  test('schema violations get 422 naming each field', async () => {
    const r = await kubectl(server, ['apply', '-f', '-'], {
      input: 'apiVersion: example.conductor.io/v1\nkind: Widget\nmetadata: {name: bad, namespace: toys}\nspec: {size: "big", color: purple}\n',
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.size/);
    assert.match(r.stderr, /spec\.color/);
    assert.match(r.stderr, /Unsupported value: "purple"/);
    const missing = await kubectl(server, ['apply', '-f', '-'], {
      input: 'apiVersion: example.conductor.io/v1\nkind: Widget\nmetadata: {name: bad2, namespace: toys}\nspec: {color: red}\n',
    });
    assert.match(missing.stderr, /spec\.size: Required value/);
  });

  test('CEL rules are enforced with their message', async () => {
    const r = await kubectl(server, ['apply', '-f', '-'], {
      input: 'apiVersion: example.conductor.io/v1\nkind: Widget\nmetadata: {name: huge, namespace: toys}\nspec: {size: 50, maxSize: 20}\n',
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /size must not exceed maxSize/);
  });

  test('printer columns appear in kubectl get, including by category', async () => {
    const out = await kubectlOk(server, ['get', 'widgets', '-n', 'toys']);
    assert.match(out, /^NAME\s+SIZE\s+COLOR\s+READY\s+AGE/m);
    assert.match(out, /^w1\s+3\s+red\s+<none>\s+\d+s/m);
    const cat = await kubectlOk(server, ['get', 'toys', '-n', 'toys', '-o', 'name']);
    assert.match(cat, /widget\.example\.conductor\.io\/w1/);
  });

  test('the status subresource: spec writes ignore status, status writes ignore spec; generation follows spec', async () => {
    const before = JSON.parse(await kubectlOk(server, ['get', 'widget', 'w1', '-n', 'toys', '-o', 'json']));
    assert.equal(before.metadata.generation, 1);
    await kubectlOk(server, [
      'patch',
      'widget',
      'w1',
      '-n',
      'toys',
      '--type=merge',
      '-p',
      '{"spec":{"size":4},"status":{"conditions":[{"type":"Ready","status":"True"}]}}',
    ]);
    const afterSpec = JSON.parse(await kubectlOk(server, ['get', 'widget', 'w1', '-n', 'toys', '-o', 'json']));
    assert.equal(afterSpec.spec.size, 4);
    assert.equal(afterSpec.status, undefined, 'status must not change through the main resource');
    assert.equal(afterSpec.metadata.generation, 2);
    await kubectlOk(server, [
      'patch',
      'widget',
      'w1',
      '-n',
      'toys',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"spec":{"size":9},"status":{"conditions":[{"type":"Ready","status":"True","reason":"Done","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}',
    ]);
    const afterStatus = JSON.parse(await kubectlOk(server, ['get', 'widget', 'w1', '-n', 'toys', '-o', 'json']));
    assert.equal(afterStatus.spec.size, 4, 'spec must not change through the status subresource');
    assert.equal(afterStatus.status.conditions[0].status, 'True');
    assert.equal(afterStatus.metadata.generation, 2, 'status writes do not bump generation');
  });

  test('kubectl wait --for=condition on a custom resource', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: 'apiVersion: example.conductor.io/v1\nkind: Widget\nmetadata: {name: w3, namespace: toys}\nspec: {size: 1}\n',
    });
    const waiter = kubectlWatching(server, ['wait', '--for=condition=Ready', 'widget/w3', '-n', 'toys', '--timeout=60s']);
    // The condition is set once kubectl is watching, so the wait sees it change.
    await waiter.watching;
    await kubectlOk(server, [
      'patch',
      'widget',
      'w3',
      '-n',
      'toys',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Done","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}',
    ]);
    const r = await waiter.done;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /widget\.example\.conductor\.io\/w3 condition met/);
  });

  test('explain reads the CRD schema', async () => {
    const out = await kubectlOk(server, ['explain', 'widget.spec.size']);
    assert.match(out, /How big the widget is/);
  });

  test('deleting the CRD deletes its objects and stops serving the kind', async () => {
    await kubectlOk(server, ['delete', 'crd', 'widgets.example.conductor.io', '--timeout=30s']);
    const r = await kubectl(server, ['get', 'widgets', '-n', 'toys']);
    assert.notEqual(r.code, 0);
    // Re-creating the CRD shows no leftover objects.
    await kubectlOk(server, ['apply', '-f', '-'], { input: crd });
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/widgets.example.conductor.io', '--timeout=10s']);
    const left = await kubectlOk(server, ['get', 'widgets', '-A', '-o', 'name']);
    assert.equal(left.trim(), '');
  });
});
