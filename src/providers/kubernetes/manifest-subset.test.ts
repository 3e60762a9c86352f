import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeDifferences, manifestDifferences, type Difference } from './manifest-subset.js';

type Obj = Record<string, unknown>;
const cm = (extra: Obj): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, ...extra });

describe('manifestDifferences', () => {
  const cases: { reason: string; manifest: Obj; live: Obj; want: Difference[] }[] = [
    {
      reason: 'a live object with exactly the manifest has no differences',
      manifest: cm({ data: { color: 'red' } }),
      live: cm({ data: { color: 'red' } }),
      want: [],
    },
    {
      reason: "the server's metadata, status and another manager's keys are not drift",
      manifest: cm({ data: { color: 'red' } }),
      live: {
        ...cm({ data: { color: 'red', size: 'L' } }),
        metadata: { name: 'settings', namespace: 'shop', uid: 'u1', resourceVersion: '7', managedFields: [], labels: { other: 'x' } },
        status: { phase: 'Whatever' },
      },
      want: [],
    },
    {
      reason: 'a changed value the manifest sets is drift, with its path',
      manifest: cm({ data: { color: 'red' } }),
      live: cm({ data: { color: 'blue' } }),
      want: [{ path: '.data.color', want: 'red', got: 'blue' }],
    },
    {
      reason: 'a key the manifest sets and the live object lacks is drift',
      manifest: cm({ data: { color: 'red', size: 'M' } }),
      live: cm({ data: { color: 'red' } }),
      want: [{ path: '.data.size', want: 'M', got: undefined }],
    },
    {
      reason: 'a whole top-level field missing is drift',
      manifest: cm({ data: { color: 'red' } }),
      live: cm({}),
      want: [{ path: '.data', want: { color: 'red' }, got: undefined }],
    },
    {
      reason: 'labels and annotations of the manifest are compared; extra ones in the target are not drift',
      manifest: { ...cm({}), metadata: { name: 'settings', labels: { app: 'shop' }, annotations: { note: 'a' } } },
      live: { ...cm({}), metadata: { name: 'settings', labels: { app: 'shop', team: 'x' }, annotations: { note: 'b' } } },
      want: [{ path: '.metadata.annotations.note', want: 'a', got: 'b' }],
    },
    {
      reason: 'labels the manifest sets but the target has none of are drift',
      manifest: { ...cm({}), metadata: { name: 'settings', labels: { app: 'shop' } } },
      live: cm({}),
      want: [{ path: '.metadata.labels.app', want: 'shop', got: undefined }],
    },
    {
      reason: 'a defaulted field inside a list item keyed by name is not drift',
      manifest: { spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
      live: { spec: { containers: [{ name: 'app', image: 'nginx:1', imagePullPolicy: 'IfNotPresent' }] } },
      want: [],
    },
    {
      reason: 'an item another manager added to a list keyed by name is not drift',
      manifest: { spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
      live: {
        spec: {
          containers: [
            { name: 'sidecar', image: 'envoy' },
            { name: 'app', image: 'nginx:1' },
          ],
        },
      },
      want: [],
    },
    {
      reason: 'a changed field of a list item keyed by name is drift at that item',
      manifest: { spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
      live: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } },
      want: [{ path: '.spec.containers[name=app].image', want: 'nginx:1', got: 'nginx:2' }],
    },
    {
      reason: 'a list item keyed by name that is gone is drift',
      manifest: { spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
      live: { spec: { containers: [] } },
      want: [{ path: '.spec.containers[name=app]', want: { name: 'app', image: 'nginx:1' }, got: undefined }],
    },
    {
      reason: 'an unkeyed list compares item by item, defaulted fields inside items allowed',
      manifest: { spec: { ports: [{ port: 80 }] } },
      live: { spec: { ports: [{ port: 80, protocol: 'TCP' }] } },
      want: [],
    },
    {
      reason: 'an unkeyed list of another length is drift as a whole',
      manifest: { spec: { args: ['--a'] } },
      live: { spec: { args: ['--a', '--b'] } },
      want: [{ path: '.spec.args', want: ['--a'], got: ['--a', '--b'] }],
    },
    {
      reason: 'a number and a string with the same text are the same value',
      manifest: { spec: { port: '8080', replicas: 2 } },
      live: { spec: { port: 8080, replicas: '2' } },
      want: [],
    },
    {
      reason: 'a boolean is not its text',
      manifest: { spec: { enabled: true } },
      live: { spec: { enabled: 'true' } },
      want: [{ path: '.spec.enabled', want: true, got: 'true' }],
    },
    {
      reason: 'an object the target holds as a scalar is drift',
      manifest: { spec: { tls: { enabled: true } } },
      live: { spec: { tls: 'on' } },
      want: [{ path: '.spec.tls', want: { enabled: true }, got: 'on' }],
    },
    {
      reason: 'keys that are not plain names are written in brackets',
      manifest: { data: { 'tls.crt': 'A' } },
      live: { data: { 'tls.crt': 'B' } },
      want: [{ path: '.data["tls.crt"]', want: 'A', got: 'B' }],
    },
    {
      reason: "the manifest's status is not compared (the target's controllers own it)",
      manifest: { status: { phase: 'Ready' } },
      live: { status: { phase: 'Pending' } },
      want: [],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(manifestDifferences(c.manifest, c.live), c.want);
    });
  }
});

describe('describeDifferences', () => {
  const diffs: Difference[] = [
    { path: '.data.color', want: 'red', got: 'blue' },
    { path: '.data.size', want: 'M', got: undefined },
  ];
  test('names each path with what the target has and the manifest sets', () => {
    assert.equal(describeDifferences(diffs), '.data.color is "blue", manifest sets "red"; .data.size is unset, manifest sets "M"');
  });
  test('without quoting values (a Secret), only the paths', () => {
    assert.equal(describeDifferences(diffs, { quoteValues: false }), '.data.color differs; .data.size is unset');
  });
  test('shows at most max differences and counts the rest', () => {
    assert.equal(describeDifferences(diffs, { max: 1 }), '.data.color is "blue", manifest sets "red"; and 1 more');
  });
});
