import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isApiError } from '../errors.js';
import type { KObject } from '../object.js';
import type { ApplyResult } from './apply.js';
import { apply } from './apply.js';
import { trackUpdate } from './track-update.js';
import { configMap, configMapSchema, owners, t0, t1, t2, widget, widgetSchema, widgetVersion } from './test-fixtures.js';

/** Applies a Widget spec as `manager` over `live`. */
function applyWidget(
  live: KObject | undefined,
  manager: string,
  spec: Record<string, unknown> | undefined,
  extra: { force?: boolean; now?: Date; meta?: Record<string, unknown> } = {},
): ApplyResult {
  return apply({
    live,
    applied: widget(spec, extra.meta),
    manager,
    force: extra.force,
    schema: widgetSchema,
    apiVersion: widgetVersion,
    now: extra.now ?? t0,
  });
}

/** Runs a sequence of applies, each over the previous result. */
function applyAll(steps: { manager: string; spec: Record<string, unknown> | undefined; force?: boolean }[]): KObject | undefined {
  let live: KObject | undefined;
  for (const s of steps) live = applyWidget(live, s.manager, s.spec, { force: s.force }).object;
  return live;
}

function specOf(obj: KObject | undefined): unknown {
  return obj?.spec;
}

describe('apply: merging and field removal', () => {
  const cases: {
    reason: string;
    steps: { manager: string; spec: Record<string, unknown> | undefined; force?: boolean }[];
    wantSpec: unknown;
    wantOwners: { manager: string; operation: string; fields: unknown }[];
  }[] = [
    {
      reason: 'a create via apply stores the configuration and makes the manager own it',
      steps: [{ manager: 'a', spec: { replicas: 1, tags: ['x'] } }],
      wantSpec: { replicas: 1, tags: ['x'] },
      wantOwners: [{ manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:replicas': {}, 'f:tags': { 'v:"x"': {} } } } }],
    },
    {
      reason: 're-applying without a field removes it from the object',
      steps: [
        { manager: 'a', spec: { replicas: 1, image: 'i' } },
        { manager: 'a', spec: { replicas: 1 } },
      ],
      wantSpec: { replicas: 1 },
      wantOwners: [{ manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:replicas': {} } } }],
    },
    {
      reason: 're-applying without anything under a map removes the map it emptied',
      steps: [
        { manager: 'a', spec: { replicas: 1 } },
        { manager: 'a', spec: undefined },
      ],
      wantSpec: undefined,
      wantOwners: [],
    },
    {
      reason: 'two managers applying one value share it; one dropping it leaves the field to the other',
      steps: [
        { manager: 'a', spec: { replicas: 1, image: 'i' } },
        { manager: 'b', spec: { replicas: 1 } },
        { manager: 'a', spec: { image: 'i' } },
      ],
      wantSpec: { replicas: 1, image: 'i' },
      wantOwners: [
        { manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:image': {} } } },
        { manager: 'b', operation: 'Apply', fields: { 'f:spec': { 'f:replicas': {} } } },
      ],
    },
    {
      reason: 'map-lists merge item by item, keyed; dropping an item removes only that item',
      steps: [
        { manager: 'a', spec: { ports: [{ port: 80, name: 'http' }] } },
        { manager: 'b', spec: { ports: [{ port: 443, name: 'https' }] } },
        { manager: 'a', spec: { ports: [{ port: 80, name: 'web' }, { port: 8080 }] } },
        { manager: 'a', spec: { ports: [{ port: 8080 }] } },
      ],
      wantSpec: { ports: [{ port: 443, name: 'https' }, { port: 8080 }] },
      wantOwners: [
        { manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:ports': { 'k:{"port":8080,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } } } },
        {
          manager: 'b',
          operation: 'Apply',
          fields: { 'f:spec': { 'f:ports': { 'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } },
        },
      ],
    },
    {
      reason: 'sets take the union; dropping a value removes it unless someone else applied it',
      steps: [
        { manager: 'a', spec: { tags: ['x', 'y'] } },
        { manager: 'b', spec: { tags: ['z', 'y'] } },
        { manager: 'a', spec: { tags: [] } },
      ],
      wantSpec: { tags: ['z', 'y'] },
      wantOwners: [{ manager: 'b', operation: 'Apply', fields: { 'f:spec': { 'f:tags': { 'v:"y"': {}, 'v:"z"': {} } } } }],
    },
    {
      reason: 'atomic lists are replaced whole',
      steps: [
        { manager: 'a', spec: { args: ['x', 'y'] } },
        { manager: 'a', spec: { args: ['z'] } },
      ],
      wantSpec: { args: ['z'] },
      wantOwners: [{ manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:args': {} } } }],
    },
    {
      reason: 'forcing an atomic list takes it over whole',
      steps: [
        { manager: 'a', spec: { args: ['x', 'y'], replicas: 1 } },
        { manager: 'b', spec: { args: ['z'] }, force: true },
      ],
      wantSpec: { args: ['z'], replicas: 1 },
      wantOwners: [
        { manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:replicas': {} } } },
        { manager: 'b', operation: 'Apply', fields: { 'f:spec': { 'f:args': {} } } },
      ],
    },
    {
      reason: 'atomic maps are replaced whole',
      steps: [
        { manager: 'a', spec: { selector: { x: '1', y: '2' } } },
        { manager: 'a', spec: { selector: { z: '3' } } },
      ],
      wantSpec: { selector: { z: '3' } },
      wantOwners: [{ manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:selector': {} } } }],
    },
    {
      reason: 'an explicit null removes a field but keeps it owned',
      steps: [
        { manager: 'a', spec: { replicas: 1, image: 'i' } },
        { manager: 'a', spec: { replicas: 1, image: null } },
      ],
      wantSpec: { replicas: 1 },
      wantOwners: [{ manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:image': {}, 'f:replicas': {} } } }],
    },
    {
      reason: 'dropping an empty map one owned keeps what others put inside it',
      steps: [
        { manager: 'a', spec: { config: {} } },
        { manager: 'b', spec: { config: { x: 1 } } },
        { manager: 'a', spec: { replicas: 1 } },
      ],
      wantSpec: { config: { x: 1 }, replicas: 1 },
      wantOwners: [
        { manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:replicas': {} } } },
        { manager: 'b', operation: 'Apply', fields: { 'f:spec': { 'f:config': { 'f:x': {} } } } },
      ],
    },
    {
      reason: 'a null on a nullable field is kept',
      steps: [{ manager: 'a', spec: { note: null } }],
      wantSpec: { note: null },
      wantOwners: [{ manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:note': {} } } }],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = applyAll(c.steps);
      assert.deepEqual(specOf(got), c.wantSpec);
      assert.deepEqual(owners(got?.metadata.managedFields), c.wantOwners);
    });
  }

  test('map-list items keep applied order, live-only items stay after the item they followed', () => {
    const live = applyAll([{ manager: 'b', spec: { containers: [{ name: 'a' }, { name: 'keep' }, { name: 'b' }] } }]);
    const got = applyWidget(live, 'c', { containers: [{ name: 'b', image: '2' }, { name: 'a', image: '1' }, { name: 'new' }] }).object;
    assert.deepEqual(specOf(got), {
      containers: [{ name: 'b', image: '2' }, { name: 'a', image: '1' }, { name: 'keep' }, { name: 'new' }],
    });
  });

  test('the entry records manager, operation, version, time and FieldsV1', () => {
    const got = applyWidget(undefined, 'a', { replicas: 1 }, { now: new Date('2024-05-06T07:08:09.123Z') });
    assert.deepEqual(got.managedFields, [
      {
        manager: 'a',
        operation: 'Apply',
        apiVersion: widgetVersion,
        time: '2024-05-06T07:08:09Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ]);
    assert.deepEqual(got.object.metadata.managedFields, got.managedFields);
  });

  test('the inputs are not modified', () => {
    const live = applyWidget(undefined, 'a', { replicas: 1, image: 'i' }).object;
    const applied = widget({ replicas: 2 });
    const liveCopy = structuredClone(live);
    const appliedCopy = structuredClone(applied);
    apply({ live, applied, manager: 'a', schema: widgetSchema, apiVersion: widgetVersion, now: t1 });
    assert.deepEqual(live, liveCopy);
    assert.deepEqual(applied, appliedCopy);
  });

  test('a field taken over by an update is not removed when the applier drops it', () => {
    const applied = applyWidget(undefined, 'a', { replicas: 1, image: 'i' }).object;
    const edited = structuredClone(applied);
    (edited.spec as Record<string, unknown>).image = 'j';
    edited.metadata.managedFields = trackUpdate({
      old: applied,
      updated: edited,
      manager: 'kubectl-edit',
      schema: widgetSchema,
      apiVersion: widgetVersion,
      now: t1,
    });
    const got = applyWidget(edited, 'a', { replicas: 1 }, { now: t2 }).object;
    assert.deepEqual(specOf(got), { replicas: 1, image: 'j' });
    assert.deepEqual(owners(got.metadata.managedFields), [
      { manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:replicas': {} } } },
      { manager: 'kubectl-edit', operation: 'Update', fields: { 'f:spec': { 'f:image': {} } } },
    ]);
  });
});

describe('apply: conflicts', () => {
  test('a differing value owned by an Update manager fails with the Kubernetes message and cause', () => {
    const created = configMap({ key: 'a' }, { uid: 'u1' });
    created.metadata.managedFields = trackUpdate({
      updated: created,
      manager: 'kubectl-client-side-apply',
      schema: configMapSchema,
      apiVersion: 'v1',
      now: t0,
    });
    assert.throws(
      () => apply({ live: created, applied: configMap({ key: 'b' }), manager: 'kubectl', schema: configMapSchema, apiVersion: 'v1', now: t1 }),
      (err: unknown) => {
        assert.ok(isApiError(err));
        assert.deepEqual(err.status, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key',
          reason: 'Conflict',
          code: 409,
          details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.key' }] },
        });
        return true;
      },
    );
  });

  test('an equal value is shared, not a conflict', () => {
    const created = configMap({ key: 'a' }, { uid: 'u1' });
    created.metadata.managedFields = trackUpdate({
      updated: created,
      manager: 'kubectl-client-side-apply',
      schema: configMapSchema,
      apiVersion: 'v1',
      now: t0,
    });
    const got = apply({ live: created, applied: configMap({ key: 'a' }), manager: 'kubectl', schema: configMapSchema, apiVersion: 'v1', now: t1 });
    assert.deepEqual(owners(got.managedFields), [
      { manager: 'kubectl', operation: 'Apply', fields: { 'f:data': { 'f:key': {} } } },
      { manager: 'kubectl-client-side-apply', operation: 'Update', fields: { 'f:data': { '.': {}, 'f:key': {} } } },
    ]);
  });

  test('several conflicts are grouped by manager, Apply managers without a version', () => {
    let live = applyWidget(undefined, 'a', { replicas: 1, image: 'i' }).object;
    const labelled = structuredClone(live);
    labelled.metadata.labels = { app: 'x' };
    labelled.metadata.managedFields = trackUpdate({ old: live, updated: labelled, manager: 'b', schema: widgetSchema, apiVersion: widgetVersion, now: t1 });
    live = labelled;
    assert.throws(
      () => applyWidget(live, 'c', { replicas: 2, image: 'j' }, { meta: { labels: { app: 'y' } } }),
      (err: unknown) => {
        assert.ok(isApiError(err));
        assert.equal(err.code, 409);
        assert.equal(
          err.message,
          [
            'Apply failed with 3 conflicts: conflicts with "a":',
            '- .spec.image',
            '- .spec.replicas',
            `conflicts with "b" using ${widgetVersion}:`,
            '- .metadata.labels.app',
          ].join('\n'),
        );
        assert.deepEqual(err.status.details?.causes, [
          { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.image' },
          { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' },
          { reason: 'FieldManagerConflict', message: `conflict with "b" using ${widgetVersion}`, field: '.metadata.labels.app' },
        ]);
        return true;
      },
    );
  });

  test('force takes ownership; managers left with nothing disappear', () => {
    const live = applyAll([
      { manager: 'a', spec: { replicas: 1, image: 'i' } },
      { manager: 'b', spec: { tags: ['t'] } },
    ]);
    const got = applyWidget(live, 'c', { replicas: 2, image: 'j' }, { force: true });
    assert.deepEqual(specOf(got.object), { replicas: 2, image: 'j', tags: ['t'] });
    assert.deepEqual(owners(got.managedFields), [
      { manager: 'b', operation: 'Apply', fields: { 'f:spec': { 'f:tags': { 'v:"t"': {} } } } },
      { manager: 'c', operation: 'Apply', fields: { 'f:spec': { 'f:image': {}, 'f:replicas': {} } } },
    ]);
  });

  test('a conflict inside a map-list item names the item', () => {
    const live = applyAll([{ manager: 'a', spec: { containers: [{ name: 'web', image: '1' }] } }]);
    assert.throws(
      () => applyWidget(live, 'b', { containers: [{ name: 'web', image: '2' }] }),
      (err: unknown) => isApiError(err) && err.message === 'Apply failed with 1 conflict: conflict with "a": .spec.containers[name="web"].image',
    );
  });

  test('removing a value with null conflicts like changing it', () => {
    const live = applyAll([{ manager: 'a', spec: { image: 'i' } }]);
    assert.throws(
      () => applyWidget(live, 'b', { image: null }),
      (err: unknown) => isApiError(err) && err.message === 'Apply failed with 1 conflict: conflict with "a": .spec.image',
    );
  });

  test('an object without managedFields is first owned by before-first-apply', () => {
    const live = widget({ replicas: 1, image: 'i' }, { uid: 'u1' });
    assert.throws(
      () => applyWidget(live, 'a', { replicas: 2 }),
      (err: unknown) =>
        isApiError(err) && err.message === `Apply failed with 1 conflict: conflict with "before-first-apply" using ${widgetVersion}: .spec.replicas`,
    );
    const got = applyWidget(live, 'a', { replicas: 1 });
    assert.deepEqual(owners(got.managedFields), [
      { manager: 'a', operation: 'Apply', fields: { 'f:spec': { 'f:replicas': {} } } },
      { manager: 'before-first-apply', operation: 'Update', fields: { 'f:spec': { 'f:image': {}, 'f:replicas': {} } } },
    ]);
  });
});

describe('apply: entries and no-ops', () => {
  test('re-applying the same configuration changes nothing, not even the time', () => {
    const first = applyWidget(undefined, 'a', { replicas: 1 }, { now: t0 });
    const again = applyWidget(first.object, 'a', { replicas: 1 }, { now: t1 });
    assert.equal(again.changed, false);
    assert.deepEqual(again.object, first.object);
  });

  test('a change updates the time of the manager entry', () => {
    const first = applyWidget(undefined, 'a', { replicas: 1 }, { now: t0 });
    const again = applyWidget(first.object, 'a', { replicas: 2 }, { now: t1 });
    assert.equal(again.changed, true);
    assert.equal(again.managedFields[0]?.time, '2024-01-01T00:01:00Z');
  });

  test("entries are in kube's order: Apply before Update, then by time (seconds), then by manager", () => {
    let live = applyWidget(undefined, 'z', { replicas: 1 }, { now: t0 }).object;
    live = applyWidget(live, 'y', { image: 'i' }, { now: t0 }).object;
    const got = applyWidget(live, 'x', { tags: ['t'] }, { now: t0 });
    assert.deepEqual(
      got.managedFields.map((e) => e.manager),
      ['x', 'y', 'z'],
      'same second: by manager',
    );
    const later = applyWidget(got.object, 'x', { tags: ['u'] }, { now: t1 });
    assert.deepEqual(
      later.managedFields.map((e) => e.manager),
      ['y', 'z', 'x'],
      'the entry changed last comes last',
    );
    const updated = structuredClone(later.object);
    (updated as unknown as { spec: { args: string[] } }).spec.args = ['a'];
    updated.metadata.managedFields = trackUpdate({
      old: later.object,
      updated,
      manager: 'a-controller',
      schema: widgetSchema,
      apiVersion: widgetVersion,
      now: t0,
    });
    assert.deepEqual(
      updated.metadata.managedFields.map((e) => `${e.manager}/${e.operation}`),
      ['y/Apply', 'z/Apply', 'x/Apply', 'a-controller/Update'],
    );
  });

  test('a subresource apply has its own entry and ignored paths are not owned', () => {
    const live = applyWidget(undefined, 'a', { replicas: 1 }).object;
    const got = apply({
      live,
      applied: { ...widget(undefined), status: { phase: 'Ready' } },
      manager: 'a',
      schema: widgetSchema,
      apiVersion: widgetVersion,
      now: t1,
      subresource: 'status',
      ignore: [['spec'], ['metadata', 'labels']],
    });
    assert.deepEqual(
      got.managedFields.map((e) => [e.manager, e.subresource ?? '', e.fieldsV1]),
      [
        ['a', '', { 'f:spec': { 'f:replicas': {} } }],
        ['a', 'status', { 'f:status': { 'f:phase': {} } }],
      ],
    );
    assert.deepEqual(got.object.status, { phase: 'Ready' });
    assert.deepEqual(got.object.spec, { replicas: 1 }, 'the main entry was not pruned by the status apply');
  });
});

describe('apply: bad requests', () => {
  const cases: { reason: string; run: () => unknown; code: number; message: RegExp }[] = [
    {
      reason: 'a missing field manager',
      run: () => apply({ applied: widget({}), manager: '', apiVersion: widgetVersion }),
      code: 400,
      message: /^fieldManager is required for apply requests$/,
    },
    {
      reason: 'managedFields in the configuration',
      run: () => apply({ applied: widget({}, { managedFields: [] }), manager: 'a', apiVersion: widgetVersion }),
      code: 400,
      message: /^metadata\.managedFields must be nil$/,
    },
    {
      reason: 'a map-list item without its key',
      run: () => applyWidget(undefined, 'a', { ports: [{ name: 'x' }] }),
      code: 400,
      message: /^failed to create typed patch object: \.spec\.ports: element 0: associative list with keys has an element that omits key field "port"/,
    },
    {
      reason: 'two map-list items with one key',
      run: () => applyWidget(undefined, 'a', { containers: [{ name: 'x' }, { name: 'x' }] }),
      code: 400,
      message: /^failed to create typed patch object: \.spec\.containers: duplicate entries for key \[name="x"\]$/,
    },
  ];
  for (const c of cases) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(c.run, (err: unknown) => isApiError(err) && err.code === c.code && c.message.test(err.message));
    });
  }
});

describe('apply: properties', () => {
  const step = fc.record({
    manager: fc.constantFrom('a', 'b', 'c'),
    data: fc.dictionary(fc.constantFrom('k1', 'k2', 'k3', 'k4'), fc.constantFrom('x', 'y')),
  });
  test('with force: the last apply wins, every owner agrees with the object, every key is owned', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) => {
        let live: KObject | undefined;
        const last = new Map<string, Record<string, string>>();
        for (const s of steps) {
          live = apply({ live, applied: configMap(s.data), manager: s.manager, force: true, schema: configMapSchema, apiVersion: 'v1', now: t0 }).object;
          last.set(s.manager, s.data);
        }
        const data = (live?.data ?? {}) as Record<string, string>;
        const final = steps[steps.length - 1]?.data ?? {};
        for (const [k, v] of Object.entries(final)) assert.equal(data[k], v, `last applied ${k}`);
        const owned = new Set<string>();
        for (const e of live?.metadata.managedFields ?? []) {
          const fields = (e.fieldsV1['f:data'] ?? {}) as Record<string, unknown>;
          for (const key of Object.keys(fields)) {
            if (key === '.') continue;
            const k = key.slice(2);
            owned.add(k);
            assert.equal(last.get(e.manager)?.[k], data[k], `${e.manager} owns ${k} with the live value`);
          }
        }
        assert.deepEqual([...owned].sort(), Object.keys(data).sort());
      }),
      { numRuns: 200 },
    );
  });
});
