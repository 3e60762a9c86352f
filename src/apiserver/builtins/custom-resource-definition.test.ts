import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { crdResourceType } from './custom-resource-definition.js';
import { tableLayoutFor } from './table.js';

const rt = crdResourceType();
const strategy = rt.strategy;

/** The shape of a CRD version in these fixtures (fields tests set to wrong values are loose). */
interface VersionFixture {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema: JSONSchemaProps & { properties: { spec: JSONSchemaProps } } };
  subresources?: unknown;
  additionalPrinterColumns?: unknown[];
  selectableFields?: unknown[];
}

/** The shape of a CRD spec in these fixtures. */
interface Spec {
  group: string;
  names: { plural: string; kind?: string; singular?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  scope?: string;
  versions: VersionFixture[];
  conversion?: unknown;
  preserveUnknownFields?: boolean;
}

type Status = Record<string, unknown>;

/** The value at a path of keys in nested JSON, or undefined. */
function dig(value: unknown, ...path: string[]): unknown {
  let cur = value;
  for (const k of path) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

function crd(mutate: (spec: Spec, o: KObject) => void = () => {}): KObject {
  const o: KObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [version('v1', true)],
    },
  };
  mutate(o.spec as Spec, o);
  return o;
}

function version(name: string, storage: boolean): VersionFixture {
  return {
    name,
    served: true,
    storage,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              color: { type: 'string' },
              size: { type: 'integer' },
              ready: { type: 'boolean' },
              tags: { type: 'array', items: { type: 'string' } },
              labels: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
        },
      },
    },
  };
}

function summary(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field ?? ''} ${c.reason}`);
}

/** Runs the create path: prepare, then validate. */
function create(o: KObject): StatusCause[] {
  strategy.prepareForCreate!(o);
  return strategy.validate!(o, { operation: 'create', subresource: '' });
}

/** Runs the update path from a created `old`: prepare, then validate. */
function update(old: KObject, next: KObject): StatusCause[] {
  strategy.prepareForUpdate!(next, old);
  return strategy.validate!(next, { operation: 'update', old, subresource: '' });
}

describe('CRD prepare', () => {
  test('create applies the v1 defaults and starts a fresh status', () => {
    const o = crd((_, obj) => {
      obj.status = { conditions: [{ type: 'Established', status: 'True' }] };
    });
    strategy.prepareForCreate!(o);
    const spec = o.spec as Spec;
    assert.equal(spec.names.singular, 'widget');
    assert.equal(spec.names.listKind, 'WidgetList');
    assert.deepEqual(spec.conversion, { strategy: 'None' });
    assert.deepEqual(o.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
  });
  test('explicit names are kept', () => {
    const o = crd((s) => {
      s.names.singular = 'wid';
      s.names.listKind = 'Widgets';
    });
    strategy.prepareForCreate!(o);
    assert.equal(dig(o, 'spec', 'names', 'singular'), 'wid');
    assert.equal(dig(o, 'spec', 'names', 'listKind'), 'Widgets');
  });
  test('a webhook service port defaults to 443', () => {
    const o = crd((s) => {
      s.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'conv', namespace: 'ns' } }, conversionReviewVersions: ['v1'] } };
    });
    strategy.prepareForCreate!(o);
    assert.equal(dig(o, 'spec', 'conversion', 'webhook', 'clientConfig', 'service', 'port'), 443);
  });
  test('update keeps the status and records a new storage version', () => {
    const old = crd();
    strategy.prepareForCreate!(old);
    old.status = { ...(old.status as Status), conditions: [{ type: 'Established', status: 'True' }] };
    const next = crd((s) => {
      s.versions = [version('v1', false), version('v2', true)];
    });
    next.status = { storedVersions: [] };
    strategy.prepareForUpdate!(next, old);
    assert.deepEqual((next.status as Status).storedVersions, ['v1', 'v2']);
    assert.deepEqual((next.status as Status).conditions, [{ type: 'Established', status: 'True' }]);
    assert.deepEqual((old.status as Status).storedVersions, ['v1'], 'the old object is not changed');
  });
});

describe('CRD validation on create', () => {
  const cases: { reason: string; obj: KObject; want: string[] }[] = [
    { reason: 'a complete definition is valid', obj: crd(), want: [] },
    {
      reason: 'the name must be plural.group',
      obj: crd((_, o) => {
        o.metadata.name = 'gadgets.example.com';
      }),
      want: ['metadata.name FieldValueInvalid'],
    },
    {
      reason: 'the group needs a dot',
      obj: crd((s, o) => {
        s.group = 'example';
        o.metadata.name = 'widgets.example';
      }),
      want: ['spec.group FieldValueInvalid'],
    },
    {
      reason: 'the group must be a DNS subdomain',
      obj: crd((s, o) => {
        s.group = 'Example.com';
        o.metadata.name = 'widgets.Example.com';
      }),
      want: ['spec.group FieldValueInvalid'],
    },
    {
      reason: 'the group is required',
      obj: crd((s, o) => {
        s.group = '';
        o.metadata.name = 'widgets.';
      }),
      want: ['spec.group FieldValueRequired'],
    },
    { reason: 'the scope is Namespaced or Cluster', obj: crd((s) => (s.scope = 'Global')), want: ['spec.scope FieldValueNotSupported'] },
    { reason: 'the scope may not be empty', obj: crd((s) => (s.scope = '')), want: ['spec.scope FieldValueRequired'] },
    { reason: 'a missing scope is left to the schema', obj: crd((s) => delete s.scope), want: [] },
    {
      reason: 'there must be a version',
      obj: crd((s) => (s.versions = [])),
      want: ['spec.versions FieldValueInvalid', 'status.storedVersions FieldValueInvalid'],
    },
    {
      reason: 'exactly one version is stored',
      obj: crd((s) => (s.versions = [version('v1', true), version('v2', true)])),
      want: ['spec.versions FieldValueInvalid', 'status.storedVersions FieldValueInvalid'],
    },
    {
      reason: 'no version is stored',
      obj: crd((s) => (s.versions = [version('v1', false)])),
      want: ['spec.versions FieldValueInvalid', 'status.storedVersions FieldValueInvalid'],
    },
    {
      reason: 'version names are unique',
      obj: crd((s) => (s.versions = [version('v1', true), version('v1', false)])),
      want: ['spec.versions FieldValueInvalid'],
    },
    { reason: 'version names are DNS-1035 labels', obj: crd((s) => (s.versions = [version('1v', true)])), want: ['spec.versions[0].name FieldValueInvalid'] },
    {
      reason: 'every version has a schema',
      obj: crd((s) => delete s.versions[0].schema),
      want: ['spec.versions[0].schema.openAPIV3Schema FieldValueRequired'],
    },
    {
      reason: 'the plural is required',
      obj: crd((s, o) => {
        s.names.plural = '';
        o.metadata.name = '.example.com';
      }),
      want: ['spec.names.plural FieldValueRequired'],
    },
    {
      reason: 'the kind may not be empty',
      obj: crd((s) => (s.names.kind = '')),
      want: ['spec.names.kind FieldValueRequired', 'spec.names.singular FieldValueRequired', 'spec.names.listKind FieldValueRequired'],
    },
    {
      reason: 'the plural is lower case',
      obj: crd((s, o) => {
        s.names.plural = 'Widgets';
        o.metadata.name = 'Widgets.example.com';
      }),
      want: ['spec.names.plural FieldValueInvalid'],
    },
    {
      reason: 'the kind is alphanumeric',
      obj: crd((s) => (s.names.kind = 'My_Widget')),
      want: ['spec.names.singular FieldValueInvalid', 'spec.names.kind FieldValueInvalid', 'spec.names.listKind FieldValueInvalid'],
    },
    { reason: 'kind and listKind differ', obj: crd((s) => (s.names.listKind = 'Widget')), want: ['spec.names.listKind FieldValueInvalid'] },
    { reason: 'short names are DNS-1035 labels', obj: crd((s) => (s.names.shortNames = ['wd', 'W'])), want: ['spec.names.shortNames[1] FieldValueInvalid'] },
    {
      reason: 'categories are DNS-1035 labels',
      obj: crd((s) => (s.names.categories = ['all', 'my_cat'])),
      want: ['spec.names.categories[1] FieldValueInvalid'],
    },
    {
      reason: 'printer columns need a name, a known type and a path',
      obj: crd(
        (s) =>
          (s.versions[0].additionalPrinterColumns = [
            { name: '', type: 'float', jsonPath: 'spec.color' },
            { name: 'Size', type: 'integer', format: 'huge', jsonPath: '' },
          ]),
      ),
      want: [
        'spec.versions[0].additionalPrinterColumns[0].name FieldValueRequired',
        'spec.versions[0].additionalPrinterColumns[0].type FieldValueInvalid',
        'spec.versions[0].additionalPrinterColumns[0].jsonPath FieldValueInvalid',
        'spec.versions[0].additionalPrinterColumns[1].format FieldValueInvalid',
        'spec.versions[0].additionalPrinterColumns[1].jsonPath FieldValueRequired',
      ],
    },
    {
      reason: 'good printer columns are valid',
      obj: crd((s) => (s.versions[0].additionalPrinterColumns = [{ name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 }])),
      want: [],
    },
    {
      reason: 'selectable fields point to scalar fields outside metadata',
      obj: crd(
        (s) =>
          (s.versions[0].selectableFields = [
            { jsonPath: '.spec.color' },
            { jsonPath: '.spec.size' },
            { jsonPath: '.spec.ready' },
            { jsonPath: '.spec.labels.team' },
            { jsonPath: '.spec.tags' },
            { jsonPath: '.spec.nope' },
            { jsonPath: '.metadata.name' },
            { jsonPath: '.spec.color' },
            { jsonPath: '' },
          ]),
      ),
      want: [
        'spec.versions[0].selectableFields[4].jsonPath FieldValueInvalid',
        'spec.versions[0].selectableFields[5].jsonPath FieldValueInvalid',
        'spec.versions[0].selectableFields[6].jsonPath FieldValueInvalid',
        'spec.versions[0].selectableFields[7].jsonPath FieldValueDuplicate',
        'spec.versions[0].selectableFields[8].jsonPath FieldValueRequired',
      ],
    },
    {
      reason: 'at most 8 selectable fields',
      obj: crd((s) => {
        const props: Record<string, JSONSchemaProps> = {};
        for (let i = 0; i < 9; i++) props[`f${i}`] = { type: 'string' };
        s.versions[0].schema!.openAPIV3Schema.properties.spec.properties = props;
        s.versions[0].selectableFields = Object.keys(props).map((k) => ({ jsonPath: `.spec.${k}` }));
      }),
      want: ['spec.versions[0].selectableFields FieldValueTooMany'],
    },
    {
      reason: 'scale paths point under spec and status',
      obj: crd(
        (s) =>
          (s.versions[0].subresources = {
            status: {},
            scale: { specReplicasPath: '.status.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: '.x' },
          }),
      ),
      want: [
        'spec.versions[0].subresources.scale.specReplicasPath FieldValueInvalid',
        'spec.versions[0].subresources.scale.statusReplicasPath FieldValueInvalid',
        'spec.versions[0].subresources.scale.labelSelectorPath FieldValueInvalid',
      ],
    },
    {
      reason: 'a deprecation warning needs a deprecated version',
      obj: crd((s) => (s.versions[0].deprecationWarning = 'old')),
      want: ['spec.versions[0].deprecationWarning FieldValueInvalid'],
    },
    {
      reason: 'a deprecation warning is at most 256 characters',
      obj: crd((s) => {
        s.versions[0].deprecated = true;
        s.versions[0].deprecationWarning = 'x'.repeat(257);
      }),
      want: ['spec.versions[0].deprecationWarning FieldValueInvalid'],
    },
    {
      reason: 'the conversion strategy is None or Webhook',
      obj: crd((s) => (s.conversion = { strategy: 'Magic' })),
      want: ['spec.conversion.strategy FieldValueNotSupported'],
    },
    {
      reason: 'a webhook strategy needs a webhook',
      obj: crd((s) => (s.conversion = { strategy: 'Webhook' })),
      want: ['spec.conversion.webhook FieldValueRequired'],
    },
    {
      reason: 'a webhook has exactly one of url and service',
      obj: crd(
        (s) =>
          (s.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https://a', service: { name: 'a', namespace: 'b' } }, conversionReviewVersions: ['v1'] },
          }),
      ),
      want: ['spec.conversion.webhook.clientConfig FieldValueRequired'],
    },
    {
      reason: 'a webhook URL is https without a query',
      obj: crd(
        (s) => (s.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://conv.example.com/?a=b' }, conversionReviewVersions: ['v1'] } }),
      ),
      want: ['spec.conversion.webhook.clientConfig.url FieldValueInvalid', 'spec.conversion.webhook.clientConfig.url FieldValueInvalid'],
    },
    {
      reason: 'a webhook speaks a known review version',
      obj: crd(
        (s) => (s.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://conv.example.com' }, conversionReviewVersions: ['v9'] } }),
      ),
      want: ['spec.conversion.webhook.conversionReviewVersions FieldValueInvalid'],
    },
    {
      reason: 'a valid webhook conversion',
      obj: crd(
        (s) =>
          (s.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { service: { name: 'conv', namespace: 'ns', path: '/convert' } }, conversionReviewVersions: ['v1', 'v1beta1'] },
          }),
      ),
      want: [],
    },
    {
      reason: 'no webhook without the Webhook strategy',
      obj: crd((s) => (s.conversion = { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } })),
      want: ['spec.conversion.webhook FieldValueForbidden'],
    },
    {
      reason: 'preserveUnknownFields cannot be true',
      obj: crd((s) => (s.preserveUnknownFields = true)),
      want: ['spec.preserveUnknownFields FieldValueInvalid'],
    },
    {
      reason: 'Kubernetes-owned groups need an approval annotation',
      obj: crd((s, o) => {
        s.group = 'widgets.k8s.io';
        o.metadata.name = 'widgets.widgets.k8s.io';
      }),
      want: ['metadata.annotations[api-approved.kubernetes.io] FieldValueRequired'],
    },
    {
      reason: 'an unapproved reason satisfies the approval annotation',
      obj: crd((s, o) => {
        s.group = 'widgets.k8s.io';
        o.metadata.name = 'widgets.widgets.k8s.io';
        o.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, experimental' };
      }),
      want: [],
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(summary(create(c.obj)), c.want));

  test('messages match Kubernetes wording', () => {
    const byField = (o: KObject) => new Map(create(o).map((c) => [c.field, c.message]));
    assert.equal(
      byField(crd((_, o) => (o.metadata.name = 'x.example.com'))).get('metadata.name'),
      'Invalid value: "x.example.com": must be spec.names.plural+"."+spec.group',
    );
    assert.equal(
      byField(
        crd((s, o) => {
          s.group = 'example';
          o.metadata.name = 'widgets.example';
        }),
      ).get('spec.group'),
      'Invalid value: "example": should be a domain with at least one dot',
    );
    assert.equal(byField(crd((s) => (s.scope = 'Global'))).get('spec.scope'), 'Unsupported value: "Global": supported values: "Cluster", "Namespaced"');
    assert.equal(byField(crd((s) => delete s.versions[0].schema)).get('spec.versions[0].schema.openAPIV3Schema'), 'Required value: schemas are required');
  });

  test('each version schema is checked as a structural schema at its path', () => {
    const g = globalThis as { __structural?: (s: unknown, p: string) => StatusCause[] };
    // Used only when the schema package is stubbed out; the real checker finds the missing type itself.
    g.__structural = (s, p) => {
      const spec = (s as JSONSchemaProps).properties?.spec;
      return spec && !spec.type
        ? [{ reason: 'FieldValueRequired', message: 'Required value: must not be empty for specified object fields', field: `${p}.properties[spec].type` }]
        : [];
    };
    try {
      const causes = create(crd((s) => (s.versions[0].schema!.openAPIV3Schema.properties.spec = { properties: { a: { type: 'string' } } })));
      assert.ok(causes.length > 0);
      for (const c of causes) assert.ok(c.field?.startsWith('spec.versions[0].schema.openAPIV3Schema'), c.field);
    } finally {
      delete g.__structural;
    }
  });
});

describe('CRD validation on update', () => {
  function created(mutate?: (spec: Spec, o: KObject) => void, established = false): KObject {
    const o = crd(mutate);
    strategy.prepareForCreate!(o);
    if (established) (o.status as Status).conditions = [{ type: 'Established', status: 'True' }];
    return o;
  }
  const cases: { reason: string; old: KObject; next: KObject; want: string[] }[] = [
    {
      reason: 'adding a printer column is fine',
      old: created(),
      next: crd((s) => (s.versions[0].additionalPrinterColumns = [{ name: 'C', type: 'string', jsonPath: '.spec.color' }])),
      want: [],
    },
    {
      reason: 'the group is immutable',
      old: created(),
      next: crd((s, o) => {
        s.group = 'other.com';
        o.metadata.name = 'widgets.example.com';
      }),
      want: ['metadata.name FieldValueInvalid', 'spec.group FieldValueInvalid'],
    },
    {
      reason: 'the plural is immutable',
      old: created(),
      next: crd((s) => (s.names.plural = 'gizmos')),
      want: ['metadata.name FieldValueInvalid', 'spec.names.plural FieldValueInvalid'],
    },
    { reason: 'the scope may change before the CRD is established', old: created(), next: crd((s) => (s.scope = 'Cluster')), want: [] },
    {
      reason: 'the scope is immutable once established',
      old: created(undefined, true),
      next: crd((s) => (s.scope = 'Cluster')),
      want: ['spec.scope FieldValueInvalid'],
    },
    {
      reason: 'the kind is immutable once established',
      old: created(undefined, true),
      next: crd((s) => (s.names.kind = 'Gizmo')),
      want: ['spec.names.kind FieldValueInvalid'],
    },
    { reason: 'a new storage version may be added', old: created(), next: crd((s) => (s.versions = [version('v1', false), version('v2', true)])), want: [] },
    {
      reason: 'a stored version may not be dropped',
      old: created(),
      next: crd((s) => (s.versions = [version('v2', true)])),
      want: ['status.storedVersions[0] FieldValueInvalid'],
    },
    {
      reason: 'a version without a schema may stay if it had none before',
      old: created((s) => delete s.versions[0].schema),
      next: crd((s) => delete s.versions[0].schema),
      want: [],
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(summary(update(c.old, c.next)), c.want));

  test('the status subresource checks the accepted names', () => {
    const o = crd();
    o.status = { acceptedNames: { plural: 'Widgets', kind: 'Widget' }, storedVersions: ['v1'] };
    assert.deepEqual(summary(strategy.validate!(o, { operation: 'update', old: crd(), subresource: 'status' })), [
      'status.acceptedNames.plural FieldValueInvalid',
    ]);
  });
});

describe('CRD type', () => {
  test('is cluster-scoped with status, short names and the api-extensions category', () => {
    assert.equal(rt.namespaced, false);
    assert.equal(rt.subresources.status, true);
    assert.deepEqual(rt.shortNames, ['crd', 'crds']);
    assert.deepEqual(rt.categories, ['api-extensions']);
    assert.equal(rt.tracksGeneration, true);
  });
  test('the table shows CREATED AT instead of AGE', () => {
    assert.deepEqual(
      rt.printerColumns.map((c) => c.name),
      ['Created At'],
    );
    const o = crd((_, obj) => (obj.metadata.creationTimestamp = '2024-05-01T10:00:00Z'));
    assert.equal(rt.printerColumns[0].cell!(o), '2024-05-01T10:00:00Z');
    assert.deepEqual(tableLayoutFor(rt), { nameColumn: true, ageColumn: false });
  });
  test('the embedded schema is kept as opaque JSON', () => {
    const v = rt.schema.properties!.spec.properties!.versions.items!;
    assert.equal(v.properties!.schema.properties!.openAPIV3Schema['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(v.properties!.schema.properties!.openAPIV3Schema.type, 'object');
  });
});
