/**
 * The kubernetes benchmark's parts, and the whole scenario at 10 claims against real
 * servers (a control plane and a target `conductor server`), so it cannot rot between
 * benchmark runs. Nothing here is timed: the figures belong to `npm run bench`.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Milestones } from './claims.js';
import { QUICK_SIZES } from '../options.js';
import {
  benchKubernetes,
  classJson,
  needsStatus,
  onKubernetesObject,
  operatorStatus,
  providerSecretJson,
  targetCrdJson,
  type TargetObject,
} from './kubernetes.js';

const readyCondition = (status: string) => ({ conditions: [{ type: 'Ready', status }] });

describe('kubernetes bench: parts', () => {
  test('the operator writes status to objects not Ready yet and not being deleted', () => {
    const cases: { reason: string; o: TargetObject; want: boolean }[] = [
      { reason: 'a new object', o: { metadata: { name: 'a' } }, want: true },
      { reason: 'Ready=False', o: { metadata: { name: 'a' }, status: readyCondition('False') }, want: true },
      { reason: 'already Ready', o: { metadata: { name: 'a' }, status: readyCondition('True') }, want: false },
      { reason: 'being deleted', o: { metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z' } }, want: false },
      { reason: 'no name', o: { metadata: {} }, want: false },
    ];
    for (const c of cases) assert.equal(needsStatus(c.o), c.want, c.reason);
  });

  test("the operator's status is Ready and has every field the class's connection details read", () => {
    const status = operatorStatus(new Date(0), 'pw');
    assert.ok(needsStatus({ metadata: { name: 'a' } }));
    assert.equal(needsStatus({ metadata: { name: 'a' }, status }), false);
    const cls = JSON.parse(classJson()) as { template: { spec: { forProvider: { connectionDetails: { fromField: string; toKey: string }[] } } } };
    const details = cls.template.spec.forProvider.connectionDetails;
    assert.deepEqual(details.map((d) => d.toKey).sort(), ['database', 'host', 'password', 'port', 'username']);
    for (const d of details.filter((x) => x.fromField.startsWith('.status.')))
      assert.equal(typeof status[d.fromField.slice('.status.'.length)], 'string', d.fromField);
  });

  test('the Provider Secret carries the endpoint, CA and token base64-encoded; the CRD has a status subresource', () => {
    const secret = JSON.parse(providerSecretJson({ host: '127.0.0.1', port: 6443, ca: 'PEM', token: 't' })) as { data: Record<string, string> };
    const decoded = Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.deepEqual(decoded, { endpoint: 'https://127.0.0.1:6443', clusterCA: 'PEM', token: 't' });
    const crd = JSON.parse(targetCrdJson()) as { spec: { versions: { subresources: unknown }[] } };
    assert.deepEqual(crd.spec.versions[0].subresources, { status: {} });
  });

  test('a KubernetesObject counts once, when first seen Ready', () => {
    const m = new Milestones(2);
    onKubernetesObject(m, { type: 'ADDED', object: { metadata: { name: 'a' } } }, 1);
    onKubernetesObject(m, { type: 'MODIFIED', object: { metadata: { name: 'a' }, status: readyCondition('True') } }, 2);
    onKubernetesObject(m, { type: 'MODIFIED', object: { metadata: { name: 'a' }, status: readyCondition('True') } }, 3);
    onKubernetesObject(m, { type: 'DELETED', object: { metadata: { name: 'b' }, status: readyCondition('True') } }, 4);
    assert.equal(m.count, 1);
    assert.equal(m.timeOf('a'), 2);
  });
});

describe('kubernetes bench: the scenario at 10 claims', () => {
  const tmpRoot = mkdtempSync(join(os.tmpdir(), 'conductor-bench-k8s-test-'));
  after(() => rmSync(tmpRoot, { recursive: true, force: true }));

  test('10 claims: every one Bound with its Secret, every target object made Ready and seen Ready', { timeout: 240_000 }, async () => {
    const lines: string[] = [];
    const r = await benchKubernetes({
      sizes: { ...QUICK_SIZES, kubernetesClaims: 10 },
      tmpRoot,
      logLevel: 'warn',
      nodeArgs: [],
      log: (m) => lines.push(m),
    });
    const d = r.details;
    assert.deepEqual(
      {
        created: d.created,
        bound: d.bound,
        targetObjectsReady: d.targetObjectsReady,
        objectsReady: d.objectsReady,
        secrets: d.secrets,
        operatorErrors: (d.operator as { errors: string[] }).errors,
      },
      { created: 10, bound: 10, targetObjectsReady: 10, objectsReady: 10, secrets: 10, operatorErrors: [] },
      lines.join('\n'),
    );
    assert.deepEqual(
      r.metrics.map((m) => [m.id, m.value !== null]),
      [
        ['kubernetes.claims.rate', true],
        ['kubernetes.objects.rate', true],
        ['kubernetes.objects.seconds', true],
      ],
    );
  });
});
