import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps, ValidationRule } from '../../registry/resource-type.js';
import type { StatusCause } from '../../../machinery/errors.js';
import { compileSchema, validateStructuralSchema } from '../index.js';

function withSpec(properties: Record<string, JSONSchemaProps>, rules: ValidationRule[], extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: { type: 'object', properties, 'x-kubernetes-validations': rules, ...extra },
    },
  };
}

function wrap(spec: unknown, name = 'w'): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec };
}

function run(schema: JSONSchemaProps, spec: unknown, oldSpec?: unknown): StatusCause[] {
  const compiled = compileSchema(schema, { group: 'example.com', kind: 'Widget' });
  return compiled.validate(wrap(spec), oldSpec === undefined ? undefined : wrap(oldSpec));
}

const scale: Record<string, JSONSchemaProps> = {
  replicas: { type: 'integer' },
  maxReplicas: { type: 'integer' },
  name: { type: 'string' },
  ratio: { type: 'number' },
  tags: { type: 'array', items: { type: 'string' } },
  labels: { type: 'object', additionalProperties: { type: 'string' } },
  size: { type: 'string' },
};

interface Case {
  reason: string;
  rules: ValidationRule[];
  spec: unknown;
  old?: unknown;
  want: StatusCause[];
}

const cases: Case[] = [
  { reason: 'a passing rule yields nothing', rules: [{ rule: 'self.replicas <= self.maxReplicas' }], spec: { replicas: 1, maxReplicas: 2 }, want: [] },
  {
    reason: 'a failing rule without message quotes the rule',
    rules: [{ rule: 'self.replicas <= self.maxReplicas' }],
    spec: { replicas: 3, maxReplicas: 2 },
    want: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": failed rule: self.replicas <= self.maxReplicas' }],
  },
  {
    reason: 'a failing rule uses its message',
    rules: [{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' }],
    spec: { replicas: 3, maxReplicas: 2 },
    want: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": replicas must not exceed maxReplicas' }],
  },
  {
    reason: 'messageExpression builds the message from the object',
    rules: [
      {
        rule: 'self.replicas <= self.maxReplicas',
        message: 'static',
        messageExpression: '"replicas " + string(self.replicas) + " exceeds " + string(self.maxReplicas)',
      },
    ],
    spec: { replicas: 3, maxReplicas: 2 },
    want: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": replicas 3 exceeds 2' }],
  },
  {
    reason: 'a messageExpression that fails falls back to the message',
    rules: [{ rule: 'self.replicas <= 1', message: 'static', messageExpression: 'self.nosuch' }],
    spec: { replicas: 3 },
    want: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": static' }],
  },
  {
    reason: 'reason FieldValueForbidden changes the cause',
    rules: [{ rule: '!has(self.name)', message: 'name may not be set', reason: 'FieldValueForbidden' }],
    spec: { name: 'x' },
    want: [{ reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: name may not be set' }],
  },
  {
    reason: 'reason FieldValueRequired with a fieldPath reports the named field',
    rules: [{ rule: 'has(self.name)', message: 'name is required', reason: 'FieldValueRequired', fieldPath: '.name' }],
    spec: {},
    want: [{ reason: 'FieldValueRequired', field: 'spec.name', message: 'Required value: name is required' }],
  },
  {
    reason: 'a fieldPath into a map names the key',
    rules: [{ rule: "self.labels['app'] != ''", fieldPath: ".labels['app']" }],
    spec: { labels: { app: '' } },
    want: [{ reason: 'FieldValueInvalid', field: 'spec.labels[app]', message: `Invalid value: "object": failed rule: self.labels['app'] != ''` }],
  },
  {
    reason: 'an evaluation error becomes a cause, not an exception',
    rules: [{ rule: 'self.name == "a"' }],
    spec: {},
    want: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": no such key: name evaluating rule: self.name == "a"' }],
  },
  {
    reason: 'a transition rule is skipped on create',
    rules: [{ rule: 'self.replicas >= oldSelf.replicas', message: 'no scale down' }],
    spec: { replicas: 1 },
    want: [],
  },
  {
    reason: 'a transition rule compares with oldSelf on update',
    rules: [{ rule: 'self.replicas >= oldSelf.replicas', message: 'no scale down' }],
    spec: { replicas: 1 },
    old: { replicas: 2 },
    want: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": no scale down' }],
  },
  {
    reason: 'an immutability rule passes when unchanged',
    rules: [{ rule: 'self.name == oldSelf.name', message: 'name is immutable' }],
    spec: { name: 'a', replicas: 2 },
    old: { name: 'a', replicas: 1 },
    want: [],
  },
  {
    reason: 'optionalOldSelf runs on create with oldSelf empty',
    rules: [{ rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true, message: 'no scale down' }],
    spec: { replicas: 1 },
    want: [],
  },
  {
    reason: 'optionalOldSelf sees the old value on update',
    rules: [{ rule: 'oldSelf.hasValue() && self.replicas >= oldSelf.value().replicas', optionalOldSelf: true, message: 'no scale down' }],
    spec: { replicas: 1 },
    old: { replicas: 3 },
    want: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": no scale down' }],
  },
  { reason: 'integers compare with doubles', rules: [{ rule: 'self.ratio < 1 && self.replicas > 0.5' }], spec: { ratio: 0.5, replicas: 1 }, want: [] },
  { reason: 'integer arithmetic works on integer fields', rules: [{ rule: 'self.replicas + 1 == 4' }], spec: { replicas: 3 }, want: [] },
  {
    reason: 'macros over lists and maps',
    rules: [
      { rule: 'self.tags.all(t, t.size() <= 3)' },
      { rule: 'self.tags.exists(t, t == "b")' },
      { rule: 'self.tags.exists_one(t, t.startsWith("a"))' },
      { rule: 'self.tags.filter(t, t != "a").map(t, t + "!") == ["b!"]' },
      { rule: 'self.labels.all(k, k.matches("^[a-z]+$"))' },
      { rule: '"app" in self.labels && size(self.labels) == 1' },
    ],
    spec: { tags: ['a', 'b'], labels: { app: 'x' } },
    want: [],
  },
  {
    reason: 'library extensions: strings, lists, sets, quantities',
    rules: [
      { rule: 'self.name.lowerAscii() == "web" && self.name.replace("W", "w") == "web" && self.name.charAt(0) == "W"' },
      { rule: 'self.tags.isSorted() && self.tags.indexOf("b") == 1 && [3, 1, 2].max() == 3 && [1, 2].sum() == 3' },
      { rule: 'sets.contains(self.tags, ["a"]) && !sets.intersects(self.tags, ["z"])' },
      { rule: 'quantity(self.size).isLessThan(quantity("1Gi")) && quantity("1.5").add(quantity("500m")).asInteger() == 2' },
      { rule: 'isQuantity(self.size) && !isQuantity("12 apples")' },
      { rule: 'self.name.find("[a-z]+") == "eb" && "a1b2".findAll("[0-9]") == ["1", "2"]' },
    ],
    spec: { name: 'Web', tags: ['a', 'b'], size: '512Mi' },
    want: [],
  },
  {
    reason: 'optional field selection',
    rules: [{ rule: 'self.?name.orValue("default") == "default"' }],
    spec: {},
    want: [],
  },
];

describe('x-kubernetes-validations', () => {
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(run(withSpec(scale, c.rules), c.spec, c.old), c.want);
    });
  }

  test('rules on nested nodes bind self to that node and report its path', () => {
    const schema = withSpec(
      {
        ports: {
          type: 'array',
          items: {
            type: 'object',
            properties: { port: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.port > 1024', message: 'privileged port' }],
          },
        },
        name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 5' }] },
      },
      [],
    );
    assert.deepEqual(run(schema, { ports: [{ port: 8080 }, { port: 80 }], name: 'toolong' }), [
      { reason: 'FieldValueInvalid', field: 'spec.ports[1]', message: 'Invalid value: "object": privileged port' },
      { reason: 'FieldValueInvalid', field: 'spec.name', message: 'Invalid value: "string": failed rule: self.size() < 5' },
    ]);
  });

  test('transition rules inside list-type=map lists correlate items by key', () => {
    const schema = withSpec(
      {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              port: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'port is immutable' }] },
            },
          },
        },
      },
      [],
    );
    const old = {
      ports: [
        { name: 'a', port: 1 },
        { name: 'b', port: 2 },
      ],
    };
    assert.deepEqual(
      run(
        schema,
        {
          ports: [
            { name: 'b', port: 2 },
            { name: 'a', port: 1 },
            { name: 'c', port: 3 },
          ],
        },
        old,
      ),
      [],
    );
    assert.deepEqual(run(schema, { ports: [{ name: 'b', port: 5 }] }, old), [
      { reason: 'FieldValueInvalid', field: 'spec.ports[0].port', message: 'Invalid value: "integer": port is immutable' },
    ]);
  });

  test('rules at the root see apiVersion, kind and metadata.name', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
      'x-kubernetes-validations': [{ rule: 'self.metadata.name.startsWith("w") && self.kind == "Widget" && self.spec.a == "x"' }],
    };
    assert.deepEqual(compileSchema(schema, { group: 'example.com', kind: 'Widget' }).validate(wrap({ a: 'x' })), []);
    assert.equal(compileSchema(schema, { group: 'example.com', kind: 'Widget' }).validate(wrap({ a: 'x' }, 'other')).length, 1);
  });

  test('escaped property names are addressable', () => {
    const schema = withSpec({ 'max-size': { type: 'integer' }, namespace: { type: 'string' } }, [
      { rule: 'self.max__dash__size == 3 && self.__namespace__ == "ns"' },
    ]);
    assert.deepEqual(run(schema, { 'max-size': 3, namespace: 'ns' }), []);
  });

  test('date-time fields are timestamps and duration fields durations', () => {
    const schema = withSpec({ at: { type: 'string', format: 'date-time' }, every: { type: 'string', format: 'duration' } }, [
      { rule: 'self.at > timestamp("2020-01-01T00:00:00Z") && self.every >= duration("90s")' },
    ]);
    assert.deepEqual(run(schema, { at: '2024-05-01T10:00:00Z', every: '1m30s' }), []);
    assert.equal(run(schema, { at: '2019-05-01T10:00:00Z', every: '1m30s' }).length, 1);
  });

  test('a rule that does not compile is not evaluated at runtime by parse failure', () => {
    const schema = withSpec(scale, [{ rule: 'self.replicas >' }]);
    assert.deepEqual(run(schema, { replicas: 1 }), []);
  });
});

describe('a realistic schema (routes with parent references, matches and filters)', () => {
  const ref: JSONSchemaProps = {
    type: 'object',
    required: ['name'],
    properties: {
      // Bounded as Gateway API bounds them: without bounds the rules' estimated cost is over Kubernetes' budget.
      group: { type: 'string', maxLength: 253, default: 'example.io' },
      kind: { type: 'string', maxLength: 63, default: 'Gateway' },
      name: { type: 'string', maxLength: 253 },
      namespace: { type: 'string', maxLength: 63 },
      sectionName: { type: 'string', maxLength: 253 },
    },
  };
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          parentRefs: {
            type: 'array',
            maxItems: 32,
            items: ref,
            'x-kubernetes-validations': [
              {
                message: 'sectionName must be set when a parent is referenced twice',
                rule: "self.all(a, self.all(b, a.group == b.group && a.kind == b.kind && a.name == b.name && (has(a.__namespace__) ? a.__namespace__ : '') == (has(b.__namespace__) ? b.__namespace__ : '') ? (has(a.sectionName) == has(b.sectionName)) : true))",
              },
            ],
          },
          matches: {
            type: 'array',
            maxItems: 64,
            items: {
              type: 'object',
              properties: { type: { type: 'string', enum: ['Exact', 'PathPrefix'], default: 'PathPrefix' }, value: { type: 'string', maxLength: 1024 } },
              'x-kubernetes-validations': [
                { message: 'value must be an absolute path', rule: "self.type in ['Exact', 'PathPrefix'] ? self.value.startsWith('/') : true" },
                { message: 'value must not contain //', rule: "!self.value.contains('//')" },
              ],
            },
          },
          filters: {
            type: 'array',
            maxItems: 16,
            items: {
              type: 'object',
              required: ['type'],
              properties: { type: { type: 'string', maxLength: 32 }, redirect: { type: 'object', properties: { code: { type: 'integer' } } } },
              'x-kubernetes-validations': [
                {
                  rule: "self.type == 'Redirect' ? has(self.redirect) : !has(self.redirect)",
                  messageExpression: "'filter of type ' + self.type + ' has the wrong settings'",
                },
              ],
            },
            'x-kubernetes-validations': [{ message: 'at most one redirect', rule: "self.filter(f, f.type == 'Redirect').size() <= 1" }],
          },
          port: {
            'x-kubernetes-int-or-string': true,
            anyOf: [{ type: 'integer' }, { type: 'string' }],
            'x-kubernetes-validations': [{ rule: 'type(self) == int ? self > 0 && self < 65536 : self.size() > 0' }],
          },
          storage: {
            type: 'string',
            maxLength: 64,
            'x-kubernetes-validations': [{ rule: "quantity(self).compareTo(quantity('100Gi')) <= 0", message: 'at most 100Gi' }],
          },
          mode: { type: 'string', maxLength: 32, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
        },
        'x-kubernetes-validations': [{ rule: 'has(self.parentRefs) || has(self.matches)', message: 'parentRefs or matches are required' }],
      },
    },
  };
  const compiled = compileSchema(schema, { group: 'example.io', kind: 'Route' });
  const good = wrap({
    parentRefs: [
      { name: 'gw', sectionName: 'a' },
      { name: 'gw', sectionName: 'b' },
    ],
    matches: [{ value: '/api' }],
    filters: [{ type: 'Redirect', redirect: { code: 301 } }],
    port: 8080,
    storage: '50Gi',
    mode: 'fast',
  });
  compiled.applyDefaults(good);

  test('its rules compile against the schema', () => {
    assert.deepEqual(validateStructuralSchema(schema, 'openAPIV3Schema'), []);
  });

  test('a valid route passes, on create and on update', () => {
    assert.deepEqual(compiled.validate(good), []);
    assert.deepEqual(compiled.validate(good, good), []);
  });

  test('an invalid route reports every broken rule at its node', () => {
    const bad = structuredClone(good) as { spec: Record<string, unknown> };
    bad.spec.parentRefs = [{ name: 'gw' }, { name: 'gw', sectionName: 'b' }];
    bad.spec.matches = [{ type: 'Exact', value: 'api//x' }];
    bad.spec.filters = [{ type: 'Redirect', redirect: { code: 301 } }, { type: 'Redirect' }];
    bad.spec.port = 0;
    bad.spec.storage = '1Ti';
    bad.spec.mode = 'slow';
    compiled.applyDefaults(bad);
    assert.deepEqual(
      compiled.validate(bad, good).map((c) => `${c.field}: ${c.message}`),
      [
        'spec.parentRefs: Invalid value: "array": sectionName must be set when a parent is referenced twice',
        'spec.matches[0]: Invalid value: "object": value must be an absolute path',
        'spec.matches[0]: Invalid value: "object": value must not contain //',
        'spec.filters: Invalid value: "array": at most one redirect',
        'spec.filters[1]: Invalid value: "object": filter of type Redirect has the wrong settings',
        'spec.port: Invalid value: "": failed rule: type(self) == int ? self > 0 && self < 65536 : self.size() > 0',
        'spec.storage: Invalid value: "string": at most 100Gi',
        'spec.mode: Invalid value: "string": mode is immutable',
      ],
    );
  });
});
