import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JsonValue } from '../object.js';
import type { FieldPath, PathElement } from './field-path.js';
import { fieldElement as f, indexElement, keyElement, valueElement } from './field-path.js';
import { FieldSet } from './field-set.js';
import { PathSyntaxError } from './field-path.js';

const set = (...paths: FieldPath[]): FieldSet => FieldSet.of(...paths);

describe('FieldSet.toFieldsV1', () => {
  const cases: { reason: string; set: FieldSet; want: JsonValue }[] = [
    { reason: 'the empty set is an empty object', set: set(), want: {} },
    { reason: 'a leaf is an empty object', set: set([f('data'), f('k')]), want: { 'f:data': { 'f:k': {} } } },
    {
      reason: 'a member with children gets "."',
      set: set([f('data')], [f('data'), f('k')]),
      want: { 'f:data': { '.': {}, 'f:k': {} } },
    },
    {
      reason: 'keyed items, set values and indexes encode their elements',
      set: set(
        [f('spec'), f('containers'), keyElement({ name: 'x' })],
        [f('spec'), f('containers'), keyElement({ name: 'x' }), f('image')],
        [f('spec'), f('tags'), valueElement('a')],
        [f('spec'), f('args'), indexElement(0)],
      ),
      want: {
        'f:spec': {
          'f:args': { 'i:0': {} },
          'f:containers': { 'k:{"name":"x"}': { '.': {}, 'f:image': {} } },
          'f:tags': { 'v:"a"': {} },
        },
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(c.set.toFieldsV1(), c.want);
      assert.ok(FieldSet.fromFieldsV1(c.want).equals(c.set), 'decoding the encoding gives the set back');
    });
  }

  test('keys come out in canonical order ("." first, then fields by name)', () => {
    const s = set([f('b')], [f('a'), f('y')], [f('a')], [f('a'), f('x')]);
    assert.equal(JSON.stringify(s.toFieldsV1()), '{"f:a":{".":{},"f:x":{},"f:y":{}},"f:b":{}}');
  });
});

describe('FieldSet.fromFieldsV1', () => {
  test('reads a Kubernetes managedFields entry', () => {
    const s = FieldSet.fromFieldsV1({ 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:data': { '.': {}, 'f:k': {} } });
    assert.deepEqual(s.toStrings(), ['.data', '.data.k', '.metadata.labels.app']);
  });
  test('a key spelled with fields in another order is the same element', () => {
    const s = FieldSet.fromFieldsV1({ 'k:{"b":1,"a":2}': {}, 'k:{"a":2,"b":1}': { 'f:x': {} } });
    assert.deepEqual(s.paths().length, 2);
    assert.ok(s.has([keyElement({ a: 2, b: 1 })]));
  });
  const bad: { reason: string; value: unknown; message: RegExp }[] = [
    { reason: 'not an object', value: [], message: /fieldsV1 must be a JSON object, got an array/ },
    { reason: 'a child that is not an object', value: { 'f:a': 1 }, message: /fieldsV1 f:a must map to a JSON object, got a number/ },
    { reason: 'a bad element deep down', value: { 'f:a': { 'q:b': {} } }, message: /fieldsV1 f:a: q:b: field path element "q:b" must start with/ },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => FieldSet.fromFieldsV1(c.value),
        (err: unknown) => err instanceof PathSyntaxError && c.message.test(err.message),
      );
    });
  }
});

describe('FieldSet algebra', () => {
  const a = set([f('x')], [f('y'), f('z')], [f('y')]);
  const b = set([f('y')], [f('w')]);
  const cases: { reason: string; got: () => FieldSet; want: string[] }[] = [
    { reason: 'union has the members of both', got: () => a.union(b), want: ['.w', '.x', '.y', '.y.z'] },
    { reason: 'intersection has the common members', got: () => a.intersection(b), want: ['.y'] },
    { reason: 'difference removes paths, not their descendants', got: () => a.difference(b), want: ['.x', '.y.z'] },
    { reason: 'difference with itself is empty', got: () => a.difference(a), want: [] },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(c.got().toStrings(), c.want));

  test('emptiness and size', () => {
    assert.ok(set().isEmpty());
    assert.ok(!a.isEmpty());
    assert.equal(a.size, 3);
    assert.ok(a.difference(a).isEmpty());
  });
  test('operations leave their operands alone', () => {
    const before = a.toStrings();
    a.union(b);
    a.difference(b);
    a.intersection(b);
    assert.deepEqual(a.toStrings(), before);
  });
  test('paths lists members before the paths below children, as Kubernetes does', () => {
    assert.deepEqual(set([f('b'), f('c')], [f('a')], [f('d')]).toStrings(), ['.a', '.d', '.b.c']);
  });
  test('withPrefix returns the paths below a prefix', () => {
    assert.deepEqual(a.withPrefix([f('y')]).toStrings(), ['.z']);
    assert.ok(a.withPrefix([f('nope')]).isEmpty());
  });
});

const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean());
const element: fc.Arbitrary<PathElement> = fc.oneof(
  fc.string({ maxLength: 8 }).map((name) => f(name)),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), scalar, { minKeys: 1, maxKeys: 3 }).map((fields) => keyElement(fields)),
  fc.oneof(scalar, fc.constant(null)).map((v) => valueElement(v)),
  fc.nat({ max: 50 }).map((i) => indexElement(i)),
);
const path = fc.array(element, { minLength: 1, maxLength: 4 });
const fieldSet = fc.array(path, { maxLength: 12 }).map((paths) => FieldSet.of(...paths));

describe('FieldSet properties', () => {
  test('decode(encode(s)) == s, also through JSON text', () => {
    fc.assert(
      fc.property(fieldSet, (s) => {
        const wire = JSON.parse(JSON.stringify(s.toFieldsV1())) as unknown;
        const back = FieldSet.fromFieldsV1(wire);
        return back.equals(s) && JSON.stringify(back.toFieldsV1()) === JSON.stringify(s.toFieldsV1());
      }),
    );
  });
  test('membership follows the set operations', () => {
    fc.assert(
      fc.property(fieldSet, fieldSet, path, (s, t, p) => {
        const inS = s.has(p);
        const inT = t.has(p);
        return s.union(t).has(p) === (inS || inT) && s.intersection(t).has(p) === (inS && inT) && s.difference(t).has(p) === (inS && !inT);
      }),
    );
  });
  test('every listed path is a member and the count matches size', () => {
    fc.assert(
      fc.property(fieldSet, (s) => {
        const paths = s.paths();
        return paths.length === s.size && paths.every((p) => s.has(p));
      }),
    );
  });
});

/** FieldsV1 spelled another way, meaning the same: keys reversed, leaves as `{".": {}}`, per the coin flips. */
function respell(v: unknown, flips: boolean[], at = 0): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const keys = Object.keys(v);
  const flip = flips[at % Math.max(flips.length, 1)] ?? false;
  if (keys.length === 0) return flip && at > 0 ? { '.': {} } : {};
  const ordered = flip ? [...keys].reverse() : keys;
  return Object.fromEntries(ordered.map((k, i) => [k, respell((v as Record<string, unknown>)[k], flips, at + i + 1)]));
}

describe('FieldSet.decodeFieldsV1 tells canonical FieldsV1 apart', () => {
  const cases: { reason: string; value: JsonValue; canonical: boolean }[] = [
    { reason: 'an encoding as toFieldsV1 writes it', value: { 'f:a': { '.': {}, 'f:b': {} }, 'f:c': { 'k:{"x":1,"y":"z"}': {} } }, canonical: true },
    { reason: 'the empty set', value: {}, canonical: true },
    { reason: 'the root member alone', value: { '.': {} }, canonical: true },
    { reason: 'fields out of order', value: { 'f:c': {}, 'f:a': {} }, canonical: false },
    { reason: 'a leaf spelled {".": {}}', value: { 'f:a': { '.': {} } }, canonical: false },
    { reason: '"." after the children', value: { 'f:a': { 'f:b': {}, '.': {} } }, canonical: false },
    { reason: '"." mapping to something', value: { 'f:a': { '.': { 'f:x': {} }, 'f:b': {} } }, canonical: false },
    { reason: 'key fields out of order', value: { 'k:{"y":"z","x":1}': {} }, canonical: false },
    { reason: 'a key with spaces', value: { 'k:{"x": 1}': {} }, canonical: false },
    { reason: 'indexes ordered as text, not numbers', value: { 'i:10': {}, 'i:9': {} }, canonical: false },
    { reason: 'indexes ordered as numbers', value: { 'i:9': {}, 'i:10': {} }, canonical: true },
    { reason: 'kinds out of order (an index before a field)', value: { 'i:0': {}, 'f:a': {} }, canonical: false },
  ];
  for (const c of cases) {
    test(`${c.reason}: ${c.canonical ? 'canonical' : 'not canonical'}`, () => {
      const { set: s, canonical } = FieldSet.decodeFieldsV1(c.value);
      assert.equal(canonical, c.canonical);
      assert.equal(JSON.stringify(s.toFieldsV1()) === JSON.stringify(c.value), c.canonical, 'canonical means toFieldsV1 gives the same text');
    });
  }

  test('canonical exactly when the encoding of the decoded set is the same text (property)', () => {
    fc.assert(
      fc.property(fieldSet, fc.array(fc.boolean(), { maxLength: 8 }), (s, flips) => {
        const wire = respell(JSON.parse(JSON.stringify(s.toFieldsV1())), flips);
        const decoded = FieldSet.decodeFieldsV1(wire);
        return decoded.set.equals(s) && decoded.canonical === (JSON.stringify(decoded.set.toFieldsV1()) === JSON.stringify(wire));
      }),
    );
  });
});

describe('FieldSet sharing and building', () => {
  test('inserting into a result changes neither operand, however the sets were made (property)', () => {
    fc.assert(
      fc.property(fieldSet, fieldSet, path, path, (s, t, p, q) => {
        const decoded = FieldSet.fromFieldsV1(s.toFieldsV1());
        const before = JSON.stringify([s.toStrings(), t.toStrings(), decoded.toStrings()]);
        const results = [s.union(t), s.difference(t), s.intersection(t), decoded.union(t), decoded.difference(t), FieldSet.fromFieldsV1(s.toFieldsV1())];
        for (const r of results) r.insert(p).insert([...p, ...q]);
        return JSON.stringify([s.toStrings(), t.toStrings(), decoded.toStrings()]) === before && results.every((r) => r.has(p) && r.has([...p, ...q]));
      }),
    );
  });

  test('intersects is true exactly when the intersection is not empty (property)', () => {
    fc.assert(fc.property(fieldSet, fieldSet, (s, t) => s.intersects(t) === !s.intersection(t).isEmpty()));
  });

  test('attach adds one element with its membership and the members below it', () => {
    const s = new FieldSet();
    s.attach('f:a', f('a'), false, set([f('b')]));
    s.attach('f:c', f('c'), true, undefined);
    s.attach('f:d', f('d'), false, new FieldSet());
    s.attach('f:a', f('a'), true, set([f('e')]));
    assert.deepEqual(s.toStrings(), ['.a', '.c', '.a.b', '.a.e']);
  });
});
