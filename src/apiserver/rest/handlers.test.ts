/**
 * The write path of RestHandlers shares data between the request, the stored object and the
 * result instead of copying it; these tests pin down what that sharing must never change:
 * the caller's objects, the stored object handed to admission, a retry's starting point,
 * the status subresource's limits and the answer to a write that changes nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KObject } from '../../machinery/object.js';
import { openSqliteStore, type Store } from '../../store/index.js';
import { AdmissionChain, type AdmissionAttributes } from '../admission/types.js';
import { configMapResourceType, namespaceResourceType, objectMetaSchema } from '../builtins/index.js';
import { resourceTypesForCrd } from '../crd/crd-types.js';
import { compileSchema } from '../schema/index.js';
import type { ResourceType } from '../registry/resource-type.js';
import { ObjectStore } from '../storage/object-store.js';
import { systemContext } from './context.js';
import { RestHandlers } from './handlers.js';
import type { PatchParams, WriteParams } from './params.js';

const NS = 'default';
const NOW = new Date('2026-01-02T03:04:05Z');

const widgetCrd: KObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.example.com' },
  spec: {
    group: 'test.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer', default: 1 },
                  mode: { type: 'string', default: 'auto' },
                  note: { type: 'string' },
                  tags: { type: 'array', items: { type: 'string' } },
                  ports: {
                    type: 'array',
                    items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } } },
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  phase: { type: 'string', default: 'Pending' },
                  count: { type: 'integer' },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const widgets: ResourceType = resourceTypesForCrd(widgetCrd, objectMetaSchema)[0];

/** A Harness is RestHandlers over an in-memory store with one test admission plugin. */
interface Harness {
  rest: RestHandlers;
  objects: ObjectStore;
  store: Store;
  /** Called for every mutating-admission call; may change attrs.object. */
  onAdmit?: (attrs: AdmissionAttributes) => void | Promise<void>;
  /** Called for every validating-admission call. */
  onValidate?: (attrs: AdmissionAttributes) => void | Promise<void>;
  close(): Promise<void>;
}

function harness(): Harness {
  const store = openSqliteStore({ path: ':memory:', compactionIntervalMs: 0 });
  const objects = new ObjectStore(store);
  const admission = new AdmissionChain();
  const h: Harness = {
    rest: new RestHandlers({ objects, admission, now: () => NOW }),
    objects,
    store,
    close: () => store.close(),
  };
  admission.addMutating({ name: 'test-mutating', handles: () => true, admit: (a) => h.onAdmit?.(a) });
  admission.addValidating({ name: 'test-validating', handles: () => true, validate: (a) => h.onValidate?.(a) });
  return h;
}

async function withHarness(fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = harness();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

const ctx = () => systemContext('test');
// Warn, not Strict: several cases write (or start from) objects with undeclared fields, which
// must then be pruned rather than refused.
const write = (fieldManager = 'test'): WriteParams => ({ dryRun: false, fieldManager, fieldValidation: 'Warn' });
const patchParams = (fieldManager = 'test'): PatchParams => ({ ...write(fieldManager), force: false, fieldManagerGiven: true });

function widget(name: string, spec: Record<string, unknown> = { replicas: 2, mode: 'fast', tags: ['a'] }): KObject {
  return { apiVersion: 'test.example.com/v1', kind: 'Widget', metadata: { name, namespace: NS, labels: { app: 'w' } }, spec };
}

/** Freezes a JSON value and everything in it: any write to it then throws. */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}

function key(h: Harness, rt: ResourceType, name: string, namespace: string | undefined = NS): string {
  return h.objects.key(rt, rt.namespaced ? namespace : undefined, name);
}

/** The stored object as a fresh parse of the stored text. */
async function stored(h: Harness, name: string, rt: ResourceType = widgets): Promise<KObject> {
  const found = await h.objects.get(rt, rt.namespaced ? NS : undefined, name);
  assert.ok(found, `${name} is stored`);
  return found.obj;
}

/** Writes an object straight into the store, past every handler (as an older schema or server may have left it). */
async function storeRaw(h: Harness, obj: KObject, rt: ResourceType = widgets): Promise<void> {
  const o = structuredClone(obj);
  o.metadata.uid ??= 'uid-raw';
  o.metadata.creationTimestamp ??= '2026-01-01T00:00:00Z';
  o.metadata.generation ??= 1;
  await h.store.create(key(h, rt, o.metadata.name!, o.metadata.namespace), h.objects.encoder(o));
}

/** Makes the next compare-and-swap of `name` fail once, by writing an annotation under it. */
function concurrentWriteOnce(h: Harness, name: string): () => Promise<void> {
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    const k = key(h, widgets, name);
    const kv = await h.store.get(k);
    assert.ok(kv);
    const o = JSON.parse(kv.value) as KObject;
    o.metadata.annotations = { ...o.metadata.annotations, concurrent: 'yes' };
    await h.store.update(k, kv.modRevision, h.objects.encoder(o));
  };
}

describe('RestHandlers: a retried update starts from the request as sent', () => {
  const cases: {
    reason: string;
    subresource: '' | 'status';
    body: (current: KObject) => KObject;
    /** What the admission plugin appends, in place, to a list of the object it is given. */
    listOf: (o: KObject) => string[];
    want: (o: KObject) => unknown;
    wantValue: unknown;
    wantConcurrentAnnotation: boolean;
  }[] = [
    {
      reason: 'PUT of the main resource: spec.tags gets one "admitted", the request is defaulted once',
      subresource: '',
      body: () => widget('w', { tags: ['sent'], extra: 'pruned' }),
      listOf: (o) => (o.spec as { tags: string[] }).tags,
      want: (o) => o.spec,
      wantValue: { tags: ['sent', 'admitted'], replicas: 1, mode: 'auto' },
      // A PUT replaces the whole object: the concurrent annotation is overwritten.
      wantConcurrentAnnotation: false,
    },
    {
      reason: 'PUT of status: status.tags gets one "admitted", built on the object the retry read',
      subresource: 'status',
      body: (current) => ({ ...current, metadata: { ...current.metadata, resourceVersion: undefined }, status: { tags: ['sent'], count: 1 } }),
      listOf: (o) => (o.status as { tags: string[] }).tags,
      want: (o) => o.status,
      wantValue: { tags: ['sent', 'admitted'], count: 1, phase: 'Pending' },
      wantConcurrentAnnotation: true,
    },
  ];
  for (const c of cases) {
    test(c.reason, () =>
      withHarness(async (h) => {
        const created = await h.rest.create(ctx(), widgets, NS, widget('w'), write());
        const conflict = concurrentWriteOnce(h, 'w');
        let attempts = 0;
        h.onAdmit = async (a) => {
          if (a.operation !== 'UPDATE') return;
          attempts++;
          c.listOf(a.object!).push('admitted');
          await conflict();
        };
        const body = c.body(created);
        const result = await h.rest.update(ctx(), widgets, NS, 'w', body, c.subresource, write());
        assert.equal(attempts, 2, 'the first compare-and-swap failed and the update was retried');
        const s = await stored(h, 'w');
        assert.deepEqual(c.want(s), c.wantValue);
        assert.deepEqual(c.want(result), c.wantValue);
        assert.equal(s.metadata.annotations?.concurrent === 'yes', c.wantConcurrentAnnotation);
      }),
    );
  }

  test('a retried patch applies the patch to the object the retry read', () =>
    withHarness(async (h) => {
      await h.rest.create(ctx(), widgets, NS, widget('w'), write());
      h.onAdmit = concurrentWriteOnce(h, 'w');
      const res = await h.rest.patch(ctx(), widgets, NS, 'w', 'merge', { spec: { replicas: 7 } }, '', patchParams());
      assert.equal((res.obj.spec as { replicas: number }).replicas, 7);
      assert.equal(res.obj.metadata.annotations?.concurrent, 'yes');
      assert.deepEqual(await stored(h, 'w'), res.obj);
    }));
});

describe("RestHandlers: the caller's objects are never changed", () => {
  const cm = configMapResourceType();
  const cases: { reason: string; rt?: ResourceType; run: (h: Harness, current: KObject) => Promise<{ body: unknown; call: () => Promise<unknown> }> }[] = [
    {
      reason: 'create',
      run: async (h) => {
        const body = deepFreeze(widget('fresh', { tags: ['x'], extra: 'pruned', note: null }));
        return { body, call: () => h.rest.create(ctx(), widgets, NS, body, write()) };
      },
    },
    {
      reason: 'update (PUT) of the main resource, with a retry',
      run: async (h, current) => {
        h.onAdmit = concurrentWriteOnce(h, 'w');
        const body = deepFreeze({
          ...structuredClone(current),
          metadata: { ...structuredClone(current.metadata), resourceVersion: undefined },
          spec: { tags: ['y'], extra: 1 },
        });
        return { body, call: () => h.rest.update(ctx(), widgets, NS, 'w', body, '', write()) };
      },
    },
    {
      reason: 'update of the status subresource, with a retry',
      run: async (h, current) => {
        h.onAdmit = concurrentWriteOnce(h, 'w');
        const body = deepFreeze({
          ...structuredClone(current),
          metadata: { ...structuredClone(current.metadata), resourceVersion: undefined },
          status: { count: 3, extra: true },
        });
        return { body, call: () => h.rest.update(ctx(), widgets, NS, 'w', body, 'status', write()) };
      },
    },
    {
      reason: 'merge patch',
      run: async (h) => {
        const body = deepFreeze({ metadata: { labels: { b: '2' } }, spec: { tags: ['m'], ports: [{ name: 'p' }] } });
        return { body, call: () => h.rest.patch(ctx(), widgets, NS, 'w', 'merge', body, '', patchParams()) };
      },
    },
    {
      reason: 'merge patch of status',
      run: async (h) => {
        const body = deepFreeze({ status: { tags: ['s'] } });
        return { body, call: () => h.rest.patch(ctx(), widgets, NS, 'w', 'merge', body, 'status', patchParams()) };
      },
    },
    {
      reason: 'JSON patch',
      run: async (h) => {
        const body = deepFreeze([
          { op: 'add', path: '/spec/ports', value: [{ name: 'j' }] },
          { op: 'copy', from: '/spec/ports/0', path: '/spec/ports/-' },
        ]);
        return { body, call: () => h.rest.patch(ctx(), widgets, NS, 'w', 'json', body, '', patchParams()) };
      },
    },
    {
      reason: 'strategic merge patch (a built-in kind)',
      rt: cm,
      run: async (h) => {
        const body = deepFreeze({ data: { k2: 'v2' }, metadata: { labels: { s: '1' } } });
        return { body, call: () => h.rest.patch(ctx(), cm, NS, 'w', 'strategic', body, '', patchParams()) };
      },
    },
    {
      reason: 'server-side apply of an existing object',
      run: async (h) => {
        const body = deepFreeze({
          apiVersion: 'test.example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', labels: { applied: 'yes' } },
          spec: { ports: [{ name: 'q' }] },
        });
        return { body, call: () => h.rest.patch(ctx(), widgets, NS, 'w', 'apply', body, '', patchParams('applier')) };
      },
    },
    {
      reason: 'server-side apply that creates the object',
      run: async (h) => {
        const body = deepFreeze({ apiVersion: 'test.example.com/v1', kind: 'Widget', metadata: { name: 'new' }, spec: { tags: ['n'] } });
        return { body, call: () => h.rest.patch(ctx(), widgets, NS, 'new', 'apply', body, '', patchParams('applier')) };
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, () =>
      withHarness(async (h) => {
        const rt = c.rt ?? widgets;
        const initial: KObject =
          rt === widgets ? widget('w') : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w', namespace: NS }, data: { k: 'v' } };
        const current = await h.rest.create(ctx(), rt, NS, initial, write());
        const { body, call } = await c.run(h, current);
        const before = JSON.stringify(body);
        await call();
        assert.equal(JSON.stringify(body), before);
      }),
    );
  }
});

describe('RestHandlers: the stored object handed to admission is not changed by the write', () => {
  // Objects as an older schema left them: no defaults, an undeclared field, a null, so the
  // write's defaulting and pruning have work to do on parts it shares with the stored object.
  const legacy = (): KObject => ({
    ...widget('old', { tags: ['t'], unknown: { deep: 1 }, note: null, ports: [{ name: 'p' }] }),
    status: { count: 1, unknownStatus: 'x', tags: ['s'] },
  });
  const cases: {
    reason: string;
    rt?: ResourceType;
    initial?: () => KObject;
    write: (h: Harness, current: KObject) => Promise<KObject>;
    /** Checks of the result, which shows the write worked on its own copy. */
    check: (result: KObject, old: KObject) => void;
  }[] = [
    {
      reason: 'status update: the stored spec is defaulted and pruned in the new object only (and generation moves, as a spec change)',
      write: (h, cur) => h.rest.update(ctx(), widgets, NS, 'old', { ...cur, status: { count: 2 } }, 'status', write()),
      check: (res, old) => {
        assert.deepEqual(res.spec, { tags: ['t'], ports: [{ name: 'p', port: 80 }], replicas: 1, mode: 'auto' });
        assert.deepEqual(res.status, { count: 2, phase: 'Pending' });
        assert.equal(res.metadata.generation, (old.metadata.generation ?? 0) + 1);
      },
    },
    {
      reason: 'PUT of the main resource: the stored status is defaulted and pruned in the new object only',
      write: (h, cur) => h.rest.update(ctx(), widgets, NS, 'old', { ...cur, spec: { replicas: 5 } }, '', write()),
      check: (res) => {
        assert.deepEqual(res.spec, { replicas: 5, mode: 'auto' });
        assert.deepEqual(res.status, { count: 1, tags: ['s'], phase: 'Pending' });
      },
    },
    {
      reason: 'status update of an object stored without its spec defaults (nothing to prune)',
      initial: () => ({ ...widget('old', { tags: ['t'], ports: [{ name: 'p' }] }), status: { count: 1 } }),
      write: (h, cur) => h.rest.update(ctx(), widgets, NS, 'old', { ...cur, status: { count: 2 } }, 'status', write()),
      check: (res, old) => {
        assert.deepEqual(res.spec, { tags: ['t'], ports: [{ name: 'p', port: 80 }], replicas: 1, mode: 'auto' });
        assert.equal(res.metadata.generation, (old.metadata.generation ?? 0) + 1);
      },
    },
    {
      reason: 'status update of an object stored with an undeclared spec field (no default missing)',
      initial: () => ({ ...widget('old', { replicas: 1, mode: 'auto', unknown: { deep: 1 } }), status: { phase: 'Running' } }),
      write: (h, cur) => h.rest.update(ctx(), widgets, NS, 'old', { ...cur, status: { phase: 'Done' } }, 'status', write()),
      check: (res, old) => {
        assert.deepEqual(res.spec, { replicas: 1, mode: 'auto' });
        assert.equal(res.metadata.generation, (old.metadata.generation ?? 0) + 1);
      },
    },
    {
      reason: 'PUT of the main resource over a stored status with a null (nothing to prune, no default missing)',
      initial: () => ({ ...widget('old'), status: { phase: 'Running', count: null, tags: ['s'] } }),
      write: (h, cur) => h.rest.update(ctx(), widgets, NS, 'old', { ...cur, spec: { replicas: 5 } }, '', write()),
      check: (res) => assert.deepEqual(res.status, { phase: 'Running', tags: ['s'] }),
    },
    {
      reason: 'merge patch over a stored status without its default (nothing to prune)',
      initial: () => ({ ...widget('old'), status: { tags: ['s'] } }),
      write: async (h) => (await h.rest.patch(ctx(), widgets, NS, 'old', 'merge', { spec: { replicas: 6 } }, '', patchParams())).obj,
      check: (res) => assert.deepEqual(res.status, { tags: ['s'], phase: 'Pending' }),
    },
    {
      reason: 'merge patch of labels only',
      write: async (h) => (await h.rest.patch(ctx(), widgets, NS, 'old', 'merge', { metadata: { labels: { x: 'y' } } }, '', patchParams())).obj,
      check: (res) => {
        assert.deepEqual(res.metadata.labels, { app: 'w', x: 'y' });
        assert.deepEqual(res.status, { count: 1, tags: ['s'], phase: 'Pending' });
      },
    },
    {
      reason: 'merge patch of status',
      write: async (h) => (await h.rest.patch(ctx(), widgets, NS, 'old', 'merge', { status: { count: 9 } }, 'status', patchParams())).obj,
      check: (res) => {
        assert.deepEqual(res.status, { count: 9, tags: ['s'], phase: 'Pending' });
        assert.deepEqual(res.spec, { tags: ['t'], ports: [{ name: 'p', port: 80 }], replicas: 1, mode: 'auto' });
      },
    },
    {
      reason: 'server-side apply',
      write: async (h) =>
        (
          await h.rest.patch(
            ctx(),
            widgets,
            NS,
            'old',
            'apply',
            { apiVersion: 'test.example.com/v1', kind: 'Widget', metadata: { name: 'old' }, spec: { replicas: 4 } },
            '',
            patchParams('applier'),
          )
        ).obj,
      check: (res) => assert.equal((res.spec as { replicas: number }).replicas, 4),
    },
    {
      reason: 'finalize of a namespace: only spec.finalizers changes',
      rt: namespaceResourceType(),
      initial: () => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'old', labels: { a: 'b' } },
        spec: { finalizers: ['kubernetes', 'x'] },
        status: { phase: 'Active' },
      }),
      write: (h, cur) =>
        h.rest.update(
          ctx(),
          namespaceResourceType(),
          undefined,
          'old',
          { ...cur, metadata: { ...cur.metadata, labels: { changed: 'no' } }, spec: { finalizers: ['kubernetes'] } },
          'finalize',
          write(),
        ),
      check: (res) => {
        assert.deepEqual(res.spec, { finalizers: ['kubernetes'] });
        assert.deepEqual(res.metadata.labels, { a: 'b' });
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, () =>
      withHarness(async (h) => {
        const rt = c.rt ?? widgets;
        await storeRaw(h, c.initial?.() ?? legacy(), rt);
        const before = await stored(h, 'old', rt);
        const seen: { phase: string; old: KObject; snapshot: string }[] = [];
        const record = (phase: string) => (a: AdmissionAttributes) => {
          if (a.oldObject) seen.push({ phase, old: a.oldObject, snapshot: JSON.stringify(a.oldObject) });
        };
        h.onAdmit = record('admit');
        h.onValidate = record('validate');
        const result = await c.write(h, before);
        assert.ok(seen.length >= 2, 'admission saw the stored object');
        for (const s of seen) {
          assert.deepEqual(JSON.parse(s.snapshot), before, `${s.phase}: oldObject as stored`);
          assert.equal(JSON.stringify(s.old), s.snapshot, `${s.phase}: oldObject unchanged after the write`);
        }
        assert.notEqual(result.metadata.resourceVersion, before.metadata.resourceVersion, 'the write happened');
        c.check(result, before);
        assert.deepEqual(await stored(h, 'old', rt), result, 'the result is what was stored');
      }),
    );
  }

  test('delete of an object with a finalizer: the stored object admission saw stays as it was', () =>
    withHarness(async (h) => {
      await h.rest.create(ctx(), widgets, NS, { ...widget('d'), metadata: { ...widget('d').metadata, finalizers: ['test/hold'] } }, write());
      const before = await stored(h, 'd');
      let old: KObject | undefined;
      h.onAdmit = (a) => {
        old = a.oldObject;
      };
      const res = await h.rest.delete(ctx(), widgets, NS, 'd', {
        dryRun: false,
        propagationPolicy: undefined,
        gracePeriodSeconds: undefined,
        preconditions: {},
      });
      assert.equal(res.deleted, false);
      assert.equal(res.obj.metadata.deletionTimestamp, '2026-01-02T03:04:05Z');
      assert.deepEqual(old, before);
      assert.deepEqual(await stored(h, 'd'), res.obj);
    }));
});

describe('RestHandlers: property: a write never changes the stored object it started from', () => {
  // Stored values as any older schema may have left them: fields missing (defaults to fill),
  // nulls (to drop or default), undeclared fields (to prune) — or nothing to do at all.
  const maybeNull = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 3 });
  const extra = fc.dictionary(fc.constantFrom('x', 'y'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 1 });
  const spec = fc.record(
    {
      replicas: maybeNull(fc.integer({ min: 0, max: 9 })),
      mode: maybeNull(fc.constantFrom('auto', 'fast')),
      note: maybeNull(fc.string({ maxLength: 3 })),
      tags: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
      ports: fc.array(fc.record({ name: fc.constantFrom('a', 'b'), port: maybeNull(fc.integer({ min: 1, max: 9 })) }, { requiredKeys: ['name'] }), {
        maxLength: 2,
      }),
      undeclared: extra,
    },
    { requiredKeys: [] },
  );
  const status = fc.record(
    {
      phase: maybeNull(fc.constantFrom('Running', 'Done')),
      count: maybeNull(fc.integer({ min: 0, max: 9 })),
      tags: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
      undeclared: extra,
    },
    { requiredKeys: [] },
  );
  type Write = 'status PUT' | 'main PUT' | 'label patch' | 'status patch';
  const writes = fc.constantFrom<Write>('status PUT', 'main PUT', 'label patch', 'status patch');
  const normalise = compileSchema(widgets.schema, { group: widgets.group, kind: widgets.kind });

  /** The stored object after the schema's pruning and defaulting, as every write applies them. */
  function normalised(o: KObject): KObject {
    const copy = structuredClone(o);
    normalise.prune(copy);
    normalise.applyDefaults(copy);
    normalise.prune(copy);
    return copy;
  }

  test('oldObject stays as stored, and the part the write may not change comes out normalised', async () => {
    await fc.assert(
      fc.asyncProperty(spec, fc.option(status, { nil: undefined }), writes, async (sp, st, w) => {
        await withHarness(async (h) => {
          await storeRaw(h, { ...widget('p', sp), ...(st === undefined ? {} : { status: st }) });
          const before = await stored(h, 'p');
          const olds: { old: KObject; snapshot: string }[] = [];
          h.onAdmit = (a) => void olds.push({ old: a.oldObject!, snapshot: JSON.stringify(a.oldObject) });
          let result: KObject;
          if (w === 'status PUT') result = await h.rest.update(ctx(), widgets, NS, 'p', { ...before, status: { count: 7 } }, 'status', write());
          else if (w === 'main PUT') result = await h.rest.update(ctx(), widgets, NS, 'p', { ...before, spec: { replicas: 7 } }, '', write());
          else if (w === 'label patch')
            result = (await h.rest.patch(ctx(), widgets, NS, 'p', 'merge', { metadata: { labels: { p: 'q' } } }, '', patchParams())).obj;
          else result = (await h.rest.patch(ctx(), widgets, NS, 'p', 'merge', { status: { count: 7 } }, 'status', patchParams())).obj;
          assert.equal(olds.length, 1);
          assert.equal(JSON.stringify(olds[0].old), olds[0].snapshot, 'oldObject unchanged after the write');
          assert.deepEqual(JSON.parse(olds[0].snapshot), before, 'oldObject as stored');
          const want = normalised(before);
          if (w === 'status PUT' || w === 'status patch') assert.deepEqual(result.spec, want.spec);
          else assert.deepEqual(result.status, want.status);
          if (w === 'label patch') assert.deepEqual(result.spec, want.spec);
        });
      }),
      { numRuns: 150 },
    );
  });
});

describe('RestHandlers: a status update changes status only', () => {
  const cases: { reason: string; write: (h: Harness, cur: KObject) => Promise<KObject> }[] = [
    {
      reason: 'PUT of status with a changed spec, labels, annotations and finalizers',
      write: (h, cur) =>
        h.rest.update(
          ctx(),
          widgets,
          NS,
          'w',
          {
            ...cur,
            metadata: { ...cur.metadata, labels: { hacked: 'yes' }, annotations: { a: 'b' }, finalizers: ['x/y'] },
            spec: { replicas: 99 },
            status: { count: 5 },
          },
          'status',
          write(),
        ),
    },
    {
      reason: 'merge patch of status with spec and metadata',
      write: async (h) =>
        (
          await h.rest.patch(
            ctx(),
            widgets,
            NS,
            'w',
            'merge',
            { metadata: { labels: { hacked: 'yes' } }, spec: { replicas: 99 }, status: { count: 5 } },
            'status',
            patchParams(),
          )
        ).obj,
    },
    {
      reason: 'JSON patch of status with spec',
      write: async (h) =>
        (
          await h.rest.patch(
            ctx(),
            widgets,
            NS,
            'w',
            'json',
            [
              { op: 'replace', path: '/spec/replicas', value: 99 },
              { op: 'add', path: '/status', value: { count: 5 } },
            ],
            'status',
            patchParams(),
          )
        ).obj,
    },
  ];
  for (const c of cases) {
    test(c.reason, () =>
      withHarness(async (h) => {
        const cur = await h.rest.create(ctx(), widgets, NS, widget('w'), write());
        const res = await c.write(h, cur);
        const s = await stored(h, 'w');
        assert.deepEqual(s, res);
        assert.deepEqual(s.spec, cur.spec);
        assert.deepEqual(s.metadata.labels, cur.metadata.labels);
        assert.equal(s.metadata.annotations, undefined);
        assert.equal(s.metadata.finalizers, undefined);
        assert.equal(s.metadata.generation, cur.metadata.generation);
        assert.deepEqual(s.status, { count: 5, phase: 'Pending' });
      }),
    );
  }
});

describe("RestHandlers: a create's answer is the text the store wrote", () => {
  test('createForResponse: its JSON is the stored object (resourceVersion included), its object the one written', () =>
    withHarness(async (h) => {
      const answer = await h.rest.createForResponse(ctx(), widgets, NS, widget('w'), write());
      const s = await stored(h, 'w');
      assert.equal(answer.obj().metadata.resourceVersion, String(h.store.currentRevision()));
      assert.deepEqual(JSON.parse(answer.json()), s);
      assert.deepEqual(answer.obj(), s);
    }));

  test('a dry run answers the object that would be written, and writes nothing', () =>
    withHarness(async (h) => {
      const revision = h.store.currentRevision();
      const answer = await h.rest.createForResponse(ctx(), widgets, NS, widget('w'), { ...write(), dryRun: true });
      assert.equal(JSON.parse(answer.json()).metadata.name, 'w');
      assert.equal(h.store.currentRevision(), revision, 'nothing was written');
    }));
});

describe('RestHandlers: a write that changes nothing returns the stored object unchanged', () => {
  const cases: { reason: string; write: (h: Harness, cur: KObject) => Promise<KObject> }[] = [
    { reason: 'PUT of the object as read', write: (h, cur) => h.rest.update(ctx(), widgets, NS, 'w', cur, '', write()) },
    { reason: 'PUT of status as read', write: (h, cur) => h.rest.update(ctx(), widgets, NS, 'w', cur, 'status', write()) },
    { reason: 'an empty merge patch', write: async (h) => (await h.rest.patch(ctx(), widgets, NS, 'w', 'merge', {}, '', patchParams())).obj },
    {
      reason: 'a merge patch setting what is there',
      write: async (h) => (await h.rest.patch(ctx(), widgets, NS, 'w', 'merge', { spec: { replicas: 2 } }, '', patchParams())).obj,
    },
    {
      reason: 'a status merge patch setting what is there',
      write: async (h) => (await h.rest.patch(ctx(), widgets, NS, 'w', 'merge', { status: { count: 1 } }, 'status', patchParams())).obj,
    },
    {
      reason: 'a JSON patch whose test passes and changes nothing',
      write: async (h) => (await h.rest.patch(ctx(), widgets, NS, 'w', 'json', [{ op: 'test', path: '/spec/replicas', value: 2 }], '', patchParams())).obj,
    },
  ];
  for (const c of cases) {
    test(c.reason, () =>
      withHarness(async (h) => {
        await h.rest.create(ctx(), widgets, NS, widget('w'), write());
        await h.rest.update(ctx(), widgets, NS, 'w', { ...(await stored(h, 'w')), status: { count: 1 } }, 'status', write());
        const before = await stored(h, 'w');
        const revision = h.store.currentRevision();
        const res = await c.write(h, structuredClone(before));
        assert.deepEqual(res, before);
        assert.equal(h.store.currentRevision(), revision, 'nothing was written');
      }),
    );
  }
});

describe('RestHandlers: a mutating plugin that edits in place cannot reach the stored object', () => {
  for (const c of [
    { reason: 'status update', subresource: 'status', body: (cur: KObject) => ({ ...cur, status: { count: 2, tags: ['s'] } }) },
    { reason: 'main-resource update', subresource: '', body: (cur: KObject) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 3 } }) },
  ]) {
    test(`${c.reason}: oldObject is as stored while the plugin changes nested values of the new object`, () =>
      withHarness(async (h) => {
        await h.rest.create(ctx(), widgets, NS, { ...widget('w', { replicas: 2, mode: 'fast', tags: ['a'] }) }, write());
        await h.rest.update(ctx(), widgets, NS, 'w', { ...(await stored(h, 'w')), status: { count: 1, tags: ['s'] } }, 'status', write());
        const before = await stored(h, 'w');
        h.onAdmit = (a) => {
          if (a.operation !== 'UPDATE' || !a.object) return;
          (a.object.spec as { tags: string[] }).tags.push('by-plugin');
          (a.object.status as { tags: string[] }).tags.push('by-plugin');
          a.object.metadata.labels!.app = 'by-plugin';
        };
        let seenOld: KObject | undefined;
        h.onValidate = (a) => {
          if (a.operation === 'UPDATE') seenOld = JSON.parse(JSON.stringify(a.oldObject)) as KObject;
        };
        await h.rest.update(ctx(), widgets, NS, 'w', c.body(before), c.subresource, write());
        assert.ok(seenOld);
        assert.deepEqual((seenOld.spec as { tags: string[] }).tags, ['a']);
        assert.deepEqual((seenOld.status as { tags: string[] }).tags, ['s']);
        assert.equal(seenOld.metadata.labels?.app, 'w');
      }));
  }
});
