import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { secretResourceType } from './secret.js';

const rt = secretResourceType();
const strategy = rt.strategy;

function secret(fields: Record<string, unknown>, annotations?: Record<string, string>): KObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', ...(annotations ? { annotations } : {}) }, ...fields };
}

function b64(s: string): string {
  return Buffer.from(s).toString('base64');
}

function summary(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field ?? ''} ${c.reason}`);
}

describe('Secret prepare', () => {
  test('stringData is encoded into data and removed', () => {
    const s = secret({ data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'ünïcode' } });
    strategy.prepareForCreate!(s);
    assert.deepEqual(s.data, { a: b64('new'), b: b64('keep'), c: b64('ünïcode') });
    assert.equal('stringData' in s, false);
  });
  test('stringData is merged on update too', () => {
    const old = secret({ data: { a: b64('1') }, type: 'Opaque' });
    const next = secret({ data: { a: b64('1') }, stringData: { b: '2' }, type: 'Opaque' });
    strategy.prepareForUpdate!(next, old);
    assert.deepEqual(next.data, { a: b64('1'), b: b64('2') });
    assert.equal('stringData' in next, false);
  });
  test('a key named __proto__ is an ordinary key', () => {
    const s = secret({ stringData: JSON.parse('{"__proto__":"x"}') });
    strategy.prepareForCreate!(s);
    assert.deepEqual(Object.entries(s.data as object), [['__proto__', b64('x')]]);
  });
  test('the type defaults to Opaque', () => {
    const s = secret({});
    strategy.prepareForCreate!(s);
    assert.equal(s.type, 'Opaque');
  });
  test('a given type is kept', () => {
    const s = secret({ type: 'kubernetes.io/tls' });
    strategy.prepareForCreate!(s);
    assert.equal(s.type, 'kubernetes.io/tls');
  });
  test('malformed stringData is left in place for the schema to report', () => {
    const s = secret({ data: { a: b64('1') }, stringData: { a: 5 } });
    strategy.prepareForCreate!(s);
    assert.deepEqual(s.stringData, { a: 5 });
    assert.deepEqual(s.data, { a: b64('1') });
  });
  test('property: every stringData value decodes back from data', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-zA-Z0-9._-]{1,20}$/), fc.string()), (sd) => {
        const s = secret({ stringData: sd });
        strategy.prepareForCreate!(s);
        const data = (s.data ?? {}) as Record<string, string>;
        for (const [k, v] of Object.entries(sd)) assert.equal(Buffer.from(data[k], 'base64').toString('utf8'), v);
        assert.equal('stringData' in s, false);
      }),
    );
  });
});

describe('Secret validation on create', () => {
  const cases: { reason: string; obj: KObject; want: string[] }[] = [
    { reason: 'an opaque secret with good keys is valid', obj: secret({ type: 'Opaque', data: { 'a.b_C-1': b64('x') } }), want: [] },
    { reason: 'keys may not contain spaces', obj: secret({ type: 'Opaque', data: { 'a b': b64('x') } }), want: ['data[a b] FieldValueInvalid'] },
    { reason: 'keys may not be ..', obj: secret({ type: 'Opaque', data: { '..': b64('x') } }), want: ['data[..] FieldValueInvalid'] },
    { reason: 'keys may not start with ..', obj: secret({ type: 'Opaque', data: { '..a': b64('x') } }), want: ['data[..a] FieldValueInvalid'] },
    {
      reason: 'keys are at most 253 characters',
      obj: secret({ type: 'Opaque', data: { ['k'.repeat(254)]: b64('x') } }),
      want: [`data[${'k'.repeat(254)}] FieldValueInvalid`],
    },
    {
      reason: 'data may not exceed 1 MiB decoded',
      obj: secret({ type: 'Opaque', data: { a: Buffer.alloc(600 * 1024).toString('base64'), b: Buffer.alloc(500 * 1024).toString('base64') } }),
      want: ['data FieldValueTooLong'],
    },
    { reason: 'exactly 1 MiB is allowed', obj: secret({ type: 'Opaque', data: { a: Buffer.alloc(1024 * 1024).toString('base64') } }), want: [] },
    {
      reason: 'TLS secrets need a certificate and a key',
      obj: secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } }),
      want: ['data[tls.key] FieldValueRequired'],
    },
    {
      reason: 'docker config secrets need valid JSON',
      obj: secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{nope') } }),
      want: ['data[.dockerconfigjson] FieldValueInvalid'],
    },
    {
      reason: 'docker config secrets with JSON are valid',
      obj: secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }),
      want: [],
    },
    {
      reason: 'basic auth needs a username or a password',
      obj: secret({ type: 'kubernetes.io/basic-auth', data: {} }),
      want: ['data[username] FieldValueRequired', 'data[password] FieldValueRequired'],
    },
    { reason: 'basic auth with only a password is valid', obj: secret({ type: 'kubernetes.io/basic-auth', data: { password: b64('p') } }), want: [] },
    { reason: 'ssh auth needs a private key', obj: secret({ type: 'kubernetes.io/ssh-auth', data: {} }), want: ['data[ssh-privatekey] FieldValueRequired'] },
    {
      reason: 'service account tokens name their account',
      obj: secret({ type: 'kubernetes.io/service-account-token' }),
      want: ['metadata.annotations[kubernetes.io/service-account.name] FieldValueRequired'],
    },
    {
      reason: 'service account tokens with the annotation are valid',
      obj: secret({ type: 'kubernetes.io/service-account-token' }, { 'kubernetes.io/service-account.name': 'default' }),
      want: [],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summary(strategy.validate!(c.obj, { operation: 'create', subresource: '' })), c.want));
  }
  test('the key message says what a valid key is', () => {
    const [cause] = strategy.validate!(secret({ data: { 'a b': b64('x') } }), { operation: 'create', subresource: '' });
    assert.match(cause.message, /^Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '\.'/);
  });
  test('the size message states the limit', () => {
    const [cause] = strategy.validate!(secret({ data: { a: Buffer.alloc(1024 * 1024 + 1).toString('base64') } }), { operation: 'create', subresource: '' });
    assert.equal(cause.message, 'Too long: may not be more than 1048576 bytes');
  });
});

describe('Secret validation on update', () => {
  const cases: { reason: string; old: KObject; next: KObject; want: string[] }[] = [
    {
      reason: 'mutable data may change',
      old: secret({ type: 'Opaque', data: { a: b64('1') } }),
      next: secret({ type: 'Opaque', data: { a: b64('2') } }),
      want: [],
    },
    { reason: 'the type is immutable', old: secret({ type: 'Opaque' }), next: secret({ type: 'example.com/other' }), want: ['type FieldValueInvalid'] },
    {
      reason: 'immutable data may not change',
      old: secret({ type: 'Opaque', immutable: true, data: { a: b64('1') } }),
      next: secret({ type: 'Opaque', immutable: true, data: { a: b64('2') } }),
      want: ['data FieldValueForbidden'],
    },
    {
      reason: 'immutable may not be unset',
      old: secret({ type: 'Opaque', immutable: true, data: { a: b64('1') } }),
      next: secret({ type: 'Opaque', data: { a: b64('1') } }),
      want: ['immutable FieldValueForbidden'],
    },
    {
      reason: 'an immutable secret may change its metadata',
      old: secret({ type: 'Opaque', immutable: true, data: { a: b64('1') } }),
      next: { ...secret({ type: 'Opaque', immutable: true, data: { a: b64('1') } }), metadata: { name: 's', namespace: 'ns', labels: { x: 'y' } } },
      want: [],
    },
    {
      reason: 'a mutable secret may become immutable',
      old: secret({ type: 'Opaque', data: { a: b64('1') } }),
      next: secret({ type: 'Opaque', immutable: true, data: { a: b64('2') } }),
      want: [],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summary(strategy.validate!(c.next, { operation: 'update', old: c.old, subresource: '' })), c.want));
  }
  test('stringData on an immutable secret is a data change', () => {
    const old = secret({ type: 'Opaque', immutable: true, data: { a: b64('1') } });
    const next = secret({ type: 'Opaque', immutable: true, data: { a: b64('1') }, stringData: { a: '2' } });
    strategy.prepareForUpdate!(next, old);
    const [cause] = strategy.validate!(next, { operation: 'update', old, subresource: '' });
    assert.equal(cause.message, 'Forbidden: field is immutable when `immutable` is set');
  });
});

describe('Secret table and selectors', () => {
  const s = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } });
  test('columns show the type and the number of keys', () => {
    assert.deepEqual(
      rt.printerColumns.map((c) => c.name),
      ['Type', 'Data'],
    );
    assert.deepEqual(
      rt.printerColumns.map((c) => c.cell!(s)),
      ['kubernetes.io/tls', 2],
    );
  });
  test('type is selectable', () => {
    assert.deepEqual(strategy.selectableFields!(s), { type: 'kubernetes.io/tls' });
  });
});
