/**
 * The protobuf form of /openapi/v2, decoded with a generic wire-format walker (the
 * project's ProtoReader, which knows nothing of OpenAPI) and checked field by field. The
 * field numbers in these tests are gnostic's OpenAPIv2.proto, written out here a second
 * time on purpose: a wrong number in the encoder's tables fails them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtoReader } from '../protobuf/index.js';
import { buildOpenApiV2 } from './openapi-v2.js';
import { encodeOpenApiV2, yamlText } from './openapi-v2-protobuf.js';
import { buildServedSet } from './served-set.js';
import { fixtureTypes, mysqlInstance } from './test-fixtures.js';

/** One decoded field value: a varint, a 64-bit value, or the bytes of a length-delimited field. */
type Value = { varint: bigint } | { fixed64: bigint } | { bytes: Uint8Array };

/** A decoded message: field number → its values in wire order. */
class Msg {
  constructor(readonly fields: Map<number, Value[]>) {}

  static decode(bytes: Uint8Array): Msg {
    const r = new ProtoReader(bytes);
    const fields = new Map<number, Value[]>();
    while (!r.done) {
      const tag = r.readTag();
      let v: Value;
      if (tag.wireType === 0) v = { varint: r.readVarint() };
      else if (tag.wireType === 1) v = { fixed64: r.readFixed64() };
      else if (tag.wireType === 2) v = { bytes: r.readBytes() };
      else throw new Error(`unexpected wire type ${tag.wireType} for field ${tag.field}`);
      fields.set(tag.field, [...(fields.get(tag.field) ?? []), v]);
    }
    return new Msg(fields);
  }

  private all(n: number): Value[] {
    return this.fields.get(n) ?? [];
  }
  has(n: number): boolean {
    return this.fields.has(n);
  }
  strings(n: number): string[] {
    return this.all(n).map((v) => {
      assert.ok('bytes' in v, `field ${n} is length-delimited`);
      return new TextDecoder().decode(v.bytes);
    });
  }
  string(n: number): string {
    const s = this.strings(n);
    assert.ok(s.length <= 1, `field ${n} appears at most once`);
    return s[0] ?? '';
  }
  varint(n: number): bigint {
    const v = this.all(n);
    assert.ok(v.length <= 1);
    if (v.length === 0) return 0n;
    assert.ok('varint' in v[0], `field ${n} is a varint`);
    return v[0].varint;
  }
  double(n: number): number {
    const v = this.all(n);
    if (v.length === 0) return 0;
    assert.ok('fixed64' in v[0], `field ${n} is 64-bit`);
    const b = new DataView(new ArrayBuffer(8));
    b.setBigUint64(0, v[0].fixed64, true);
    return b.getFloat64(0, true);
  }
  messages(n: number): Msg[] {
    return this.all(n).map((v) => {
      assert.ok('bytes' in v, `field ${n} is length-delimited`);
      return Msg.decode(v.bytes);
    });
  }
  message(n: number): Msg {
    const m = this.messages(n);
    assert.equal(m.length, 1, `field ${n} appears once`);
    return m[0];
  }
  /** A `repeated Named<X>` field (name = 1, value = 2) as a map. */
  named(n: number): Map<string, Msg> {
    return new Map(this.messages(n).map((e) => [e.string(1), e.message(2)]));
  }
  /** A `repeated NamedAny` field: name → the Any's yaml text (Any.yaml = 2). */
  extensions(n: number): Map<string, string> {
    return new Map(this.messages(n).map((e) => [e.string(1), e.message(2).string(2)]));
  }
}

// Field numbers of gnostic's OpenAPIv2.proto used below.
const Document = { swagger: 1, info: 2, paths: 8, definitions: 9, parameters: 10, security: 12, securityDefinitions: 13 };
const Schema = {
  ref: 1,
  format: 2,
  description: 4,
  default: 5,
  maximum: 7,
  minimum: 9,
  maxLength: 11,
  minLength: 12,
  pattern: 13,
  required: 19,
  enum: 20,
  additionalProperties: 21,
  type: 22,
  items: 23,
  allOf: 24,
  properties: 25,
  vendorExtension: 31,
};
const PathItem = { get: 2, patch: 8, parameters: 9 };
const Operation = { tags: 1, description: 3, operationId: 5, produces: 6, consumes: 7, parameters: 8, responses: 9, vendorExtension: 13 };

describe('encodeOpenApiV2', () => {
  const crd = mysqlInstance('v1alpha1', true, {
    size: { type: 'integer', minimum: 1, maximum: 64, default: 3, description: 'How big.' },
    tier: { type: 'string', enum: ['small', 'large'], maxLength: 5, pattern: '^[a-z]+$' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    anything: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    free: { type: 'object', additionalProperties: true },
    ports: { type: 'array', items: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'x-kubernetes-list-type': 'set' },
  });
  const json = buildOpenApiV2(buildServedSet([...fixtureTypes().filter((t) => t.kind !== 'MySQLInstance'), crd]), 'v1.32.0+conductor.0.1.0');
  const encoded = encodeOpenApiV2(json);
  const doc = Msg.decode(encoded.bytes);
  const definitions = doc.message(Document.definitions).named(1);

  test('every key of the JSON document has a field in the message', () => {
    assert.deepEqual(encoded.unrepresented, []);
  });

  test('the top level: swagger, info, and one entry per path, definition and shared parameter', () => {
    assert.equal(doc.string(Document.swagger), '2.0');
    const info = doc.message(Document.info);
    assert.equal(info.string(1), 'Conductor');
    assert.equal(info.string(2), 'v1.32.0+conductor.0.1.0');
    const paths = doc.message(Document.paths).named(2);
    assert.deepEqual([...paths.keys()], Object.keys(json.paths as object));
    assert.deepEqual([...definitions.keys()], Object.keys(json.definitions as object));
    const params = doc.message(Document.parameters).named(1);
    assert.deepEqual([...params.keys()], Object.keys(json.parameters as object));
  });

  test('a schema: type, description, properties, $ref inside allOf, GVK extension', () => {
    const cm = definitions.get('io.k8s.api.core.v1.ConfigMap')!;
    assert.deepEqual(cm.message(Schema.type).strings(1), ['object']);
    assert.match(cm.string(Schema.description), /ConfigMap/);
    const props = cm.message(Schema.properties).named(1);
    assert.ok(props.has('data') && props.has('metadata') && props.has('apiVersion'));
    const meta = props.get('metadata')!;
    assert.deepEqual(
      meta.messages(Schema.allOf).map((s) => s.string(Schema.ref)),
      ['#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'],
    );
    // data: {type: object, additionalProperties: {type: string}} — AdditionalPropertiesItem.schema = 1.
    const data = props.get('data')!;
    assert.deepEqual(data.message(Schema.additionalProperties).message(1).message(Schema.type).strings(1), ['string']);
    const gvk = cm.extensions(Schema.vendorExtension).get('x-kubernetes-group-version-kind');
    assert.deepEqual(JSON.parse(gvk!), [{ group: '', version: 'v1', kind: 'ConfigMap' }]);
  });

  test("a CRD schema's numbers, enums, defaults, patterns, booleans and extensions", () => {
    const spec = definitions.get('io.conductor.storage.v1alpha1.MySQLInstance')!.message(Schema.properties).named(1).get('spec')!;
    const p = spec.message(Schema.properties).named(1);
    const size = p.get('size')!;
    assert.deepEqual(size.message(Schema.type).strings(1), ['integer']);
    assert.equal(size.double(Schema.minimum), 1);
    assert.equal(size.double(Schema.maximum), 64);
    assert.equal(size.message(Schema.default).string(2), '3');
    const tier = p.get('tier')!;
    assert.deepEqual(
      tier.messages(Schema.enum).map((a) => a.string(2)),
      ['"small"', '"large"'],
    );
    assert.equal(tier.varint(Schema.maxLength), 5n);
    assert.equal(tier.string(Schema.pattern), '^[a-z]+$');
    assert.equal(p.get('anything')!.extensions(Schema.vendorExtension).get('x-kubernetes-preserve-unknown-fields'), 'true');
    // additionalProperties: true is AdditionalPropertiesItem.boolean = 2, written although a oneof's value is the zero value elsewhere.
    assert.equal(p.get('free')!.message(Schema.additionalProperties).varint(2), 1n);
    const ports = p.get('ports')!;
    const item = ports.message(Schema.items).message(1);
    assert.equal(item.extensions(Schema.vendorExtension).get('x-kubernetes-int-or-string'), 'true');
    assert.ok(!item.has(Schema.type), 'an int-or-string item has no type');
    assert.equal(ports.extensions(Schema.vendorExtension).get('x-kubernetes-list-type'), '"set"');
  });

  test('an operation: body and query parameters, a shared-parameter $ref, responses, extensions', () => {
    const item = doc.message(Document.paths).named(2).get('/api/v1/namespaces/{namespace}/configmaps/{name}')!;
    const patch = item.message(PathItem.patch);
    assert.deepEqual(patch.strings(Operation.tags), ['core_v1']);
    assert.equal(patch.string(Operation.operationId), 'patchCoreV1NamespacedConfigMap');
    assert.ok(patch.strings(Operation.consumes).includes('application/strategic-merge-patch+json'));
    const params = patch.messages(Operation.parameters);
    // ParametersItem.parameter = 1 → Parameter.body_parameter = 1 → BodyParameter {name 2, in 3, required 4, schema 5}.
    const body = params[0].message(1).message(1);
    assert.equal(body.string(2), 'body');
    assert.equal(body.string(3), 'body');
    assert.equal(body.varint(4), 1n);
    assert.equal(body.message(5).string(Schema.ref), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    // Parameter.non_body_parameter = 2 → NonBodyParameter.query_parameter_sub_schema = 3 → {in 2, name 4, type 6}.
    const queries = params.filter((p) => p.has(1) && p.message(1).has(2)).map((p) => p.message(1).message(2).message(3));
    const fieldValidation = queries.find((q) => q.string(4) === 'fieldValidation')!;
    assert.equal(fieldValidation.string(2), 'query');
    assert.equal(fieldValidation.string(6), 'string');
    // ParametersItem.json_reference = 2 → JsonReference._ref = 1.
    assert.ok(params.some((p) => p.has(2) && p.message(2).string(1) === '#/parameters/fieldManager'));
    // Responses.response_code = 1 → NamedResponseValue → ResponseValue.response = 1 → Response {description 1, schema 2 → SchemaItem.schema 1}.
    const ok = patch.message(Operation.responses).named(1).get('200')!.message(1);
    assert.equal(ok.message(2).message(1).string(Schema.ref), '#/definitions/io.k8s.api.core.v1.ConfigMap');
    const ext = patch.extensions(Operation.vendorExtension);
    assert.equal(ext.get('x-kubernetes-action'), '"patch"');
    assert.deepEqual(JSON.parse(ext.get('x-kubernetes-group-version-kind')!), { group: '', version: 'v1', kind: 'ConfigMap' });
    // Path-level parameters: PathParameterSubSchema = 4 {required 1, in 2, name 4}.
    const name = item
      .messages(PathItem.parameters)
      .filter((p) => p.has(1))
      .map((p) => p.message(1).message(2).message(4))
      .find((p) => p.string(4) === 'name')!;
    assert.equal(name.varint(1), 1n);
    assert.equal(name.string(2), 'path');
  });

  test('security: the BearerToken api key and the requirement naming it', () => {
    const def = doc.message(Document.securityDefinitions).named(1).get('BearerToken')!;
    const apiKey = def.message(2); // SecurityDefinitionsItem.api_key_security = 2
    assert.deepEqual([apiKey.string(1), apiKey.string(2), apiKey.string(3)], ['apiKey', 'authorization', 'header']);
    const req = doc.messages(Document.security);
    assert.equal(req.length, 1);
    assert.ok(req[0].named(1).has('BearerToken'));
  });

  test('keys no message can hold are reported, not dropped silently', () => {
    const out = encodeOpenApiV2({ swagger: '2.0', definitions: { A: { type: 'object', oneOf: [], maxLength: 1.5 } }, bogus: 1 });
    assert.deepEqual(out.unrepresented.sort(), [
      '$.bogus: no field of the message holds it',
      '$.definitions["A"].maxLength: expected an integer',
      '$.definitions["A"].oneOf: no field of the message holds it',
    ]);
  });

  test('an empty properties object is still written (kubectl tells a kind from a map by it)', () => {
    const out = Msg.decode(encodeOpenApiV2({ definitions: { A: { type: 'object', properties: {} } } }).bytes);
    const a = out.message(Document.definitions).named(1).get('A')!;
    assert.ok(a.has(Schema.properties));
    assert.equal(a.message(Schema.properties).named(1).size, 0);
  });
});

describe('yamlText', () => {
  test('writes JSON with a space after every colon and comma, which YAML reads as the same value', () => {
    assert.equal(yamlText([{ group: '', kind: 'A:b', version: 'v1' }]), '[{"group": "", "kind": "A:b", "version": "v1"}]');
    assert.equal(yamlText('a "quoted"\nline'), '"a \\"quoted\\"\\nline"');
    assert.equal(yamlText(true), 'true');
    assert.equal(yamlText(null), 'null');
  });
});
