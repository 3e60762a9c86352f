import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CredentialsError, gcpCredentialsFrom, serviceEndpoint } from './credentials.js';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-SECRET\n-----END PRIVATE KEY-----\n';
const key = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'shop-prod-1',
    client_email: 'conductor@shop-prod-1.iam.gserviceaccount.com',
    private_key: PEM,
    ...over,
  });

describe('the gcp credentials Secret, read without the SDKs', () => {
  test('a key alone: the project from the key, Google endpoints with TLS', () => {
    const c = gcpCredentialsFrom({ 'credentials.json': key() });
    assert.equal(c.projectId, 'shop-prod-1');
    assert.equal(c.key?.client_email, 'conductor@shop-prod-1.iam.gserviceaccount.com');
    assert.deepEqual(c.pubsub, { host: 'pubsub.googleapis.com', port: 443, emulator: false });
    assert.deepEqual(c.spanner, { host: 'spanner.googleapis.com', port: 443, emulator: false });
    assert.equal(c.applicationCredentials, undefined);
  });

  test('projectId in the Secret wins over spec.project, which wins over the key', () => {
    assert.equal(gcpCredentialsFrom({ 'credentials.json': key(), projectId: 'other-proj' }, 'spec-proj').projectId, 'other-proj');
    assert.equal(gcpCredentialsFrom({ 'credentials.json': key() }, 'spec-proj').projectId, 'spec-proj');
  });

  test('both services on emulators: no key needed, plain http to the loopback', () => {
    const c = gcpCredentialsFrom({ projectId: 'conductor-test', pubsubEndpoint: 'http://127.0.0.1:8085', spannerEndpoint: 'http://localhost:9010/' });
    assert.equal(c.key, undefined);
    assert.deepEqual(c.pubsub, { host: '127.0.0.1', port: 8085, emulator: true });
    assert.deepEqual(c.spanner, { host: 'localhost', port: 9010, emulator: true });
  });

  test('an application key is handed to claims, with its e-mail', () => {
    const app = key({ client_email: 'app@shop-prod-1.iam.gserviceaccount.com' });
    const c = gcpCredentialsFrom({ 'credentials.json': key(), 'applicationCredentials.json': app });
    assert.equal(c.applicationCredentials, app);
    assert.equal(c.applicationEmail, 'app@shop-prod-1.iam.gserviceaccount.com');
  });

  const bad: { reason: string; data: Record<string, string>; want: RegExp }[] = [
    { reason: 'nothing', data: {}, want: /names no credentials Secret, or it is empty/ },
    { reason: 'no key and Google endpoints', data: { projectId: 'shop-prod-1' }, want: /has no credentials\.json: add the service-account key/ },
    { reason: 'one emulator only', data: { projectId: 'shop-prod-1', pubsubEndpoint: 'http://127.0.0.1:8085' }, want: /has no credentials\.json/ },
    {
      reason: 'a key that does not parse',
      data: { 'credentials.json': `{"private_key": "${PEM.slice(0, 40)}` },
      want: /key credentials\.json does not parse as JSON/,
    },
    { reason: 'a key that is not an object', data: { 'credentials.json': '[1]' }, want: /key credentials\.json is not a JSON object/ },
    { reason: 'a user key', data: { 'credentials.json': key({ type: 'authorized_user' }) }, want: /is not a service-account key/ },
    { reason: 'no private key', data: { 'credentials.json': key({ private_key: 'abc' }) }, want: /has no private_key in PEM form/ },
    { reason: 'no e-mail', data: { 'credentials.json': key({ client_email: 'nobody' }) }, want: /has no client_email/ },
    {
      reason: 'no project anywhere',
      data: { 'credentials.json': key({ project_id: '' }) },
      want: /has no projectId, the Provider no spec\.project and the key no project_id/,
    },
    { reason: 'a bad project id', data: { 'credentials.json': key(), projectId: 'Shop Prod' }, want: /key projectId is not a Google Cloud project id/ },
    {
      reason: 'http to another host',
      data: { 'credentials.json': key(), pubsubEndpoint: 'http://pubsub.example.com' },
      want: /key pubsubEndpoint uses http to a host that is not this machine/,
    },
    {
      reason: 'an endpoint with a path',
      data: { 'credentials.json': key(), spannerEndpoint: 'https://spanner.example.com/x?y' },
      want: /key spannerEndpoint has a user, path, query or fragment/,
    },
    {
      reason: 'a broken application key',
      data: { 'credentials.json': key(), 'applicationCredentials.json': 'nope' },
      want: /key applicationCredentials\.json does not parse as JSON/,
    },
  ];
  for (const c of bad) {
    test(`refused, naming the key and quoting no value: ${c.reason}`, () => {
      assert.throws(
        () => gcpCredentialsFrom(c.data),
        (err: unknown) => {
          assert.ok(err instanceof CredentialsError);
          assert.match(err.message, c.want);
          assert.ok(!err.message.includes('SECRET') && !err.message.includes('MIIE'), `no key material in: ${err.message}`);
          return true;
        },
      );
    });
  }

  test('an https endpoint keeps its port, or 443', () => {
    assert.deepEqual(serviceEndpoint('https://us-central1-pubsub.googleapis.com', 'pubsubEndpoint'), {
      host: 'us-central1-pubsub.googleapis.com',
      port: 443,
      emulator: false,
    });
    assert.deepEqual(serviceEndpoint('https://10.0.0.5:8443', 'pubsubEndpoint'), { host: '10.0.0.5', port: 8443, emulator: false });
  });
});
