import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../schema-types.js';
import { isApiError } from '../errors.js';
import { deepCopy, type JsonValue } from '../object.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

const mergeBy = (key: string, items: JSONSchemaProps): JSONSchemaProps => ({
  type: 'array',
  items,
  'x-kubernetes-patch-strategy': 'merge',
  'x-kubernetes-patch-merge-key': key,
});

const container: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    image: { type: 'string' },
    args: { type: 'array', items: { type: 'string' } },
    ports: mergeBy('containerPort', { type: 'object', properties: { containerPort: { type: 'integer' }, protocol: { type: 'string' } } }),
    env: mergeBy('name', { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } }),
  },
};

const podSpec: JSONSchemaProps = {
  type: 'object',
  properties: {
    containers: mergeBy('name', container),
    tolerations: { type: 'array', items: { type: 'object' } },
    volumes: {
      ...mergeBy('name', {
        type: 'object',
        properties: { name: { type: 'string' }, emptyDir: { type: 'object' }, hostPath: { type: 'object' } },
      }),
      'x-kubernetes-patch-strategy': 'merge,retainKeys',
    },
    nodeSelector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-patch-strategy': 'replace' },
    grid: { type: 'array', 'x-kubernetes-patch-strategy': 'merge', items: { type: 'array', items: { type: 'string' } } },
    keyless: { type: 'array', 'x-kubernetes-patch-strategy': 'merge', items: { type: 'object' } },
  },
};

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
      },
    },
    spec: {
      type: 'object',
      properties: {
        strategy: {
          type: 'object',
          'x-kubernetes-patch-strategy': 'retainKeys',
          properties: { type: { type: 'string' }, rollingUpdate: { type: 'object' } },
        },
        // Reached through allOf, as built-in schemas that wrap references do.
        template: { allOf: [{ type: 'object', properties: { spec: podSpec } }] },
      },
    },
  },
};

const pod = (containers: JsonValue[], extra: Record<string, JsonValue> = {}): JsonValue => ({
  spec: { template: { spec: { containers, ...extra } } },
});
/** The container names of a pod-shaped document. */
function names(doc: JsonValue): string[] {
  const spec = (doc as { spec: { template: { spec: { containers: Array<{ name: string }> } } } }).spec.template.spec;
  return spec.containers.map((c) => c.name);
}

/** Fails when a directive key survives anywhere in `value`. */
function assertNoDirectives(value: unknown, path = ''): void {
  if (Array.isArray(value)) value.forEach((v, i) => assertNoDirectives(v, `${path}[${i}]`));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      assert.ok(!k.startsWith('$'), `directive ${k} left at ${path || 'the top'}`);
      assertNoDirectives(v, `${path}.${k}`);
    }
  }
}

interface Case {
  reason: string;
  original: JsonValue;
  patch: JsonValue;
  want: JsonValue;
}

const base: JsonValue = {
  metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, finalizers: ['a', 'b'] },
  spec: {
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'app:1', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'side:1' },
        ],
        tolerations: [{ key: 'a' }, { key: 'b' }],
        volumes: [{ name: 'data', emptyDir: {} }],
        nodeSelector: { zone: 'a', disk: 'ssd' },
      },
    },
  },
};

function withSpec(changes: Record<string, JsonValue>): JsonValue {
  const doc = deepCopy(base) as { spec: { template: { spec: Record<string, JsonValue> } } };
  Object.assign(doc.spec.template.spec, changes);
  return doc;
}

describe('applyStrategicMergePatch', () => {
  const cases: Case[] = [
    {
      reason: 'maps merge and null deletes a key',
      original: base,
      patch: { metadata: { labels: { tier: null, env: 'prod' } } },
      want: { ...(deepCopy(base) as object), metadata: { name: 'web', labels: { app: 'web', env: 'prod' }, finalizers: ['a', 'b'] } },
    },
    {
      reason: 'a list without a strategy is replaced',
      original: base,
      patch: { spec: { template: { spec: { tolerations: [{ key: 'c' }] } } } },
      want: withSpec({ tolerations: [{ key: 'c' }] }),
    },
    {
      reason: 'a merging list updates the item with the same key and keeps the others',
      original: base,
      patch: { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'side:2' }] } } } },
      want: withSpec({
        containers: [
          { name: 'app', image: 'app:1', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'side:2' },
        ],
      }),
    },
    {
      reason: 'nested merging lists merge by their own keys, numbers included',
      original: base,
      patch: {
        spec: {
          template: {
            spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 443 }], env: [{ name: 'B', value: '2' }] }] },
          },
        },
      },
      want: withSpec({
        containers: [
          {
            name: 'app',
            image: 'app:1',
            ports: [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 443 }],
            env: [
              { name: 'B', value: '2' },
              { name: 'A', value: '1' },
            ],
          },
          { name: 'sidecar', image: 'side:1' },
        ],
      }),
    },
    {
      reason: 'a new item comes before the server-only items, as in Kubernetes',
      original: pod([{ name: 'a' }, { name: 'b' }]),
      patch: pod([{ name: 'new', image: 'x' }]),
      want: pod([{ name: 'new', image: 'x' }, { name: 'a' }, { name: 'b' }]),
    },
    {
      reason: 'an item named in the patch keeps its place among server-only items',
      original: pod([{ name: 'a' }, { name: 'b' }, { name: 'c' }]),
      patch: pod([{ name: 'b', image: 'x' }]),
      want: pod([{ name: 'a' }, { name: 'b', image: 'x' }, { name: 'c' }]),
    },
    {
      reason: 'items named in the patch take the patch order',
      original: pod([{ name: 'a' }, { name: 'b' }, { name: 'c' }]),
      patch: pod([
        { name: 'c', image: 'x' },
        { name: 'a', image: 'y' },
      ]),
      want: pod([{ name: 'b' }, { name: 'c', image: 'x' }, { name: 'a', image: 'y' }]),
    },
    {
      reason: 'primitive lists with the merge strategy are unioned',
      original: { metadata: { finalizers: ['a', 'b'] } },
      patch: { metadata: { finalizers: ['b', 'c'] } },
      want: { metadata: { finalizers: ['a', 'b', 'c'] } },
    },
    {
      reason: '$patch: delete removes the item with that key',
      original: pod([{ name: 'a' }, { name: 'b' }]),
      patch: pod([{ name: 'a', $patch: 'delete' }]),
      want: pod([{ name: 'b' }]),
    },
    {
      reason: '$patch: delete of a missing item changes nothing',
      original: pod([{ name: 'a' }]),
      patch: pod([{ name: 'zzz', $patch: 'delete' }]),
      want: pod([{ name: 'a' }]),
    },
    {
      reason: '$patch: replace in a list replaces the whole list',
      original: pod([{ name: 'a', image: '1' }, { name: 'b' }]),
      patch: pod([{ $patch: 'replace' }, { name: 'c', image: '3', args: null }]),
      want: pod([{ name: 'c', image: '3' }]),
    },
    {
      reason: '$patch: replace in a map replaces the map',
      original: base,
      patch: { metadata: { labels: { $patch: 'replace', only: 'this' } } },
      want: { ...(deepCopy(base) as object), metadata: { name: 'web', labels: { only: 'this' }, finalizers: ['a', 'b'] } },
    },
    {
      reason: '$patch: delete in a map empties it, as Kubernetes does',
      original: base,
      patch: { metadata: { labels: { $patch: 'delete' } } },
      want: { ...(deepCopy(base) as object), metadata: { name: 'web', labels: {}, finalizers: ['a', 'b'] } },
    },
    {
      reason: '$retainKeys drops the keys it does not list',
      original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      want: { spec: { strategy: { type: 'Recreate' } } },
    },
    {
      reason: '$retainKeys inside a merging list item',
      original: pod([], {
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'keep', emptyDir: {} },
        ],
      }),
      patch: pod([], { volumes: [{ name: 'data', hostPath: { path: '/x' }, $retainKeys: ['name', 'hostPath'] }] }),
      want: pod([], {
        volumes: [
          { name: 'data', hostPath: { path: '/x' } },
          { name: 'keep', emptyDir: {} },
        ],
      }),
    },
    {
      reason: '$deleteFromPrimitiveList removes values and can add others at once',
      original: { metadata: { finalizers: ['a', 'b', 'a'] } },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['c'] } },
      want: { metadata: { finalizers: ['c', 'b'] } },
    },
    {
      reason: '$deleteFromPrimitiveList on a missing list does nothing',
      original: { metadata: {} },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      want: { metadata: {} },
    },
    {
      reason: '$setElementOrder alone reorders the list',
      original: pod([{ name: 'a' }, { name: 'b' }, { name: 'c' }]),
      patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] } } } },
      want: pod([{ name: 'c' }, { name: 'a' }, { name: 'b' }]),
    },
    {
      reason: '$setElementOrder places a new item and keeps a server-only item in place (kubectl apply)',
      original: pod([{ name: 'a' }, { name: 'injected' }, { name: 'b' }]),
      patch: {
        spec: {
          template: { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'new' }, { name: 'b' }], containers: [{ name: 'new', image: 'n' }] } },
        },
      },
      want: pod([{ name: 'a' }, { name: 'new', image: 'n' }, { name: 'injected' }, { name: 'b' }]),
    },
    {
      reason: '$setElementOrder for a primitive list',
      original: { metadata: { finalizers: ['x', 'y'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['z', 'y'], '$deleteFromPrimitiveList/finalizers': ['x'], finalizers: ['z'] } },
      want: { metadata: { finalizers: ['z', 'y'] } },
    },
    {
      reason: '$setElementOrder naming items that do not exist is harmless',
      original: pod([{ name: 'a' }]),
      patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'gone' }, { name: 'a' }] } } } },
      want: pod([{ name: 'a' }]),
    },
    {
      reason: 'a map with the replace strategy is replaced',
      original: base,
      patch: { spec: { template: { spec: { nodeSelector: { zone: 'b' } } } } },
      want: withSpec({ nodeSelector: { zone: 'b' } }),
    },
    {
      reason: 'a new merging list is built from the patch with its directives applied',
      original: { spec: { template: { spec: {} } } },
      patch: pod(
        [
          { name: 'a', env: [{ name: 'X', value: null }] },
          { name: 'gone', $patch: 'delete' },
        ],
        { '$setElementOrder/containers': [{ name: 'a' }] },
      ),
      want: pod([{ name: 'a', env: [{ name: 'X' }] }]),
    },
    {
      reason: 'nulls inside new objects are dropped',
      original: {},
      patch: { metadata: { labels: { a: 'b', c: null } } },
      want: { metadata: { labels: { a: 'b' } } },
    },
    {
      reason: 'a value of another type is replaced',
      original: { metadata: { labels: 'oops' } },
      patch: { metadata: { labels: { a: 'b' } } },
      want: { metadata: { labels: { a: 'b' } } },
    },
    {
      reason: 'fields the schema does not know merge like a JSON merge patch',
      original: { status: { conditions: [{ type: 'A' }], phase: 'x' } },
      patch: { status: { conditions: [{ type: 'B' }], phase: null } },
      want: { status: { conditions: [{ type: 'B' }] } },
    },
    {
      reason: 'directive items in a replaced list are dropped',
      original: base,
      patch: { spec: { template: { spec: { tolerations: [{ $patch: 'replace' }, { key: 'z', value: null }] } } } },
      want: withSpec({ tolerations: [{ key: 'z' }] }),
    },
    {
      reason: 'a non-object original is treated as empty',
      original: 'nonsense',
      patch: { a: 1 },
      want: { a: 1 },
    },
    {
      reason: 'a __proto__ key is stored as data, not as a prototype',
      original: {},
      patch: JSON.parse('{"metadata": {"labels": {"__proto__": {"polluted": "yes"}}}}') as JsonValue,
      want: JSON.parse('{"metadata": {"labels": {"__proto__": {"polluted": "yes"}}}}') as JsonValue,
    },
  ];

  for (const c of cases) {
    test(c.reason, () => {
      const originalBefore = deepCopy(c.original);
      const patchBefore = deepCopy(c.patch);
      const got = applyStrategicMergePatch(c.original, c.patch, schema);
      assert.deepEqual(got, c.want);
      assertNoDirectives(got);
      assert.deepEqual(c.original, originalBefore, 'the original must not change');
      assert.deepEqual(c.patch, patchBefore, 'the patch must not change');
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    });
  }

  test('the order of a kubectl-apply style patch matches the desired configuration', () => {
    const original = pod([
      { name: 'a', image: '1' },
      { name: 'b', image: '1' },
      { name: 'c', image: '1' },
    ]);
    const patch: JsonValue = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'c' }, { name: 'd' }, { name: 'a' }],
            containers: [
              { name: 'b', $patch: 'delete' },
              { name: 'd', image: '2' },
              { name: 'a', image: '2' },
            ],
          },
        },
      },
    };
    assert.deepEqual(names(applyStrategicMergePatch(original, patch, schema)), ['c', 'd', 'a']);
  });
});

describe('applyStrategicMergePatch rejects', () => {
  const cases: Array<{ reason: string; original?: JsonValue; patch: JsonValue; code: number; message: RegExp }> = [
    { reason: 'a string body', patch: 'x', code: 400, message: /^a strategic merge patch must be a JSON object, got a string$/ },
    { reason: 'a number body', patch: 3, code: 400, message: /got a number/ },
    { reason: 'an array body', patch: [{ op: 'add' }], code: 400, message: /got an array/ },
    { reason: 'a null body', patch: null, code: 400, message: /got null/ },
    {
      reason: 'an unknown $patch in a map',
      patch: { metadata: { $patch: 'merge' } },
      code: 400,
      message: /unknown "\$patch" directive "merge" at metadata: expected "replace" or "delete"/,
    },
    {
      reason: 'an unknown $patch in a list',
      patch: pod([{ name: 'a', $patch: 'merge' }]),
      code: 400,
      message: /in the list at spec\.template\.spec\.containers/,
    },
    { reason: 'a delete item without the merge key', patch: pod([{ $patch: 'delete' }]), code: 400, message: /must carry the list's merge key "name"/ },
    { reason: 'a list item without the merge key', patch: pod([{ image: 'x' }]), code: 400, message: /has no merge key "name": \{"image":"x"\}/ },
    {
      reason: '$retainKeys that is not a list',
      patch: { spec: { strategy: { $retainKeys: 'type' } } },
      code: 400,
      message: /"\$retainKeys" at spec\.strategy must be a list of field names/,
    },
    {
      reason: '$retainKeys missing a set key',
      patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } },
      code: 400,
      message: /"rollingUpdate" is missing/,
    },
    {
      reason: '$deleteFromPrimitiveList of objects',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': [{}] } },
      code: 400,
      message: /must be a list of primitive values/,
    },
    {
      reason: '$deleteFromPrimitiveList on a non-list',
      original: { metadata: { finalizers: 'x' } },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } },
      code: 422,
      message: /metadata\.finalizers, which is a string, not a list/,
    },
    {
      reason: '$setElementOrder that is not a list',
      original: pod([{ name: 'a' }]),
      patch: { spec: { template: { spec: { '$setElementOrder/containers': 'a' } } } },
      code: 400,
      message: /must be a list, got a string/,
    },
    {
      reason: '$setElementOrder entries without the key',
      original: pod([{ name: 'a' }]),
      patch: { spec: { template: { spec: { '$setElementOrder/containers': ['a'] } } } },
      code: 400,
      message: /must be an object with the merge key "name"/,
    },
    { reason: 'a merging list that mixes objects and strings', patch: pod(['a', { name: 'b' }]), code: 422, message: /mixes objects and other values/ },
    { reason: 'a merging list of lists', patch: pod([], { grid: [['a']] }), code: 422, message: /cannot merge lists of lists/ },
    {
      reason: 'a merging list of objects without a merge key',
      patch: pod([], { keyless: [{ a: 1 }] }),
      code: 422,
      message: /declares no x-kubernetes-patch-merge-key/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.throws(
        () => applyStrategicMergePatch(c.original ?? base, c.patch, schema),
        (err: unknown) => {
          assert.ok(isApiError(err), String(err));
          assert.equal(err.code, c.code);
          assert.match(err.message, c.message);
          return true;
        },
      );
    });
  }
});

describe('properties', () => {
  const key = fc.constantFrom('a', 'b', 'c', 'labels', 'spec');
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
      fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
      fc.dictionary(key, tie('tree'), { maxKeys: 4, noNullPrototype: true }),
    ),
  }));
  const doc = fc.dictionary(key, tree as fc.Arbitrary<JsonValue>, { maxKeys: 5, noNullPrototype: true });

  test('without patch metadata or directives it is a JSON merge patch', () => {
    fc.assert(
      fc.property(doc, doc, (original, patch) => {
        assert.deepEqual(applyStrategicMergePatch(original, patch, {}), applyMergePatch(original, patch));
      }),
    );
  });

  const containerName = fc.constantFrom('a', 'b', 'c', 'd', 'e');
  const item = fc.record({ name: containerName, image: fc.constantFrom('1', '2') }, { requiredKeys: ['name'] });
  const uniqueItems = fc.uniqueArray(item, { selector: (c) => c.name, maxLength: 5 });
  const patchItem = fc.oneof(
    item,
    containerName.map((name) => ({ name, $patch: 'delete' })),
  );
  const patchList = fc.uniqueArray(patchItem, { selector: (c) => c.name, maxLength: 4 });

  test('applying a patch twice gives the same result as once', () => {
    fc.assert(
      fc.property(uniqueItems, patchList, fc.option(fc.uniqueArray(containerName, { maxLength: 5 }), { nil: undefined }), (original, list, order) => {
        const spec: Record<string, JsonValue> = { containers: list };
        if (order) spec['$setElementOrder/containers'] = order.map((name) => ({ name }));
        const patch = { spec: { template: { spec } } };
        const once = applyStrategicMergePatch(pod(original), patch, schema);
        assertNoDirectives(once);
        assert.deepEqual(applyStrategicMergePatch(once, patch, schema), once);
      }),
    );
  });

  test('merged items are the union of the original and patch keys minus deletions', () => {
    fc.assert(
      fc.property(uniqueItems, patchList, (original, list) => {
        const got = names(applyStrategicMergePatch(pod(original), pod(list), schema));
        const deleted = new Set(list.filter((i) => '$patch' in i).map((i) => i.name));
        const want = new Set([...original.map((i) => i.name), ...list.filter((i) => !('$patch' in i)).map((i) => i.name)]);
        for (const d of deleted) if (!list.some((i) => i.name === d && !('$patch' in i))) want.delete(d);
        assert.deepEqual(new Set(got), want);
        assert.equal(got.length, want.size);
      }),
    );
  });
});

describe('hostile input', () => {
  function deep(levels: number): JsonValue {
    let v: JsonValue = { leaf: 1 };
    for (let i = 0; i < levels; i++) v = { a: v };
    return v;
  }
  test('absurdly deep patches fail with a 400 from every patch type, never another error', async () => {
    const { applyJsonPatch } = await import('./json-patch.js');
    const patch = deep(200_000);
    const attempts: Array<() => unknown> = [
      () => applyStrategicMergePatch({}, patch, schema),
      () => applyMergePatch({}, patch),
      () => applyJsonPatch({}, [{ op: 'add', path: '/x', value: patch }]),
      () => applyJsonPatch(patch, []),
    ];
    for (const attempt of attempts) {
      assert.throws(attempt, (err: unknown) => isApiError(err) && err.code === 400 && /nested too deeply/.test(err.message));
    }
  });
});
