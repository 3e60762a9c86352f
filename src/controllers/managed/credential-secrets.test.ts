/**
 * CredentialSecrets against the in-process API server: a credentials Secret is handed out
 * from the informer watching it, changed values take effect with the Secret's watch event,
 * a deleted Secret is no longer handed out (the caller reads the API, which says NotFound),
 * and names that cannot go into a field selector are never watched.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startConductor, type RunningConductor } from '../../conductor/index.js';
import { SharedInformers } from '../../client/shared-informers.js';
import { builtinRefs } from '../../client/types.js';
import { eventually } from '../../../test/support/eventually.js';
import { CredentialSecrets } from './credential-secrets.js';

const NS = 'conductor-system';
let server: RunningConductor;
let dataDir: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'conductor-credentials-'));
  server = await startConductor({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
});

after(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const secret = (name: string, token: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  data: { token: Buffer.from(token).toString('base64') },
});

describe('CredentialSecrets', () => {
  test('hands out the watched Secret decoded; a change takes effect with its event; a deleted Secret is no longer handed out', async () => {
    const informers = new SharedInformers(server.client);
    const credentials = new CredentialSecrets(informers);
    try {
      await server.client.create(builtinRefs.secrets, secret('creds', 'one'));
      const ref = { namespace: NS, name: 'creds' };
      assert.deepEqual(await eventually(() => credentials.lookup(ref), 'the Secret handed out', 10_000), { token: 'one' });
      const live = await server.client.get(builtinRefs.secrets, 'creds', NS);
      await server.client.update(builtinRefs.secrets, { ...live, data: { token: Buffer.from('two').toString('base64') } });
      await eventually(() => (credentials.lookup(ref)?.token === 'two' ? true : undefined), 'the changed value handed out', 10_000);
      const copy = credentials.lookup(ref)!;
      copy.token = 'changed by a connector';
      assert.equal(credentials.lookup(ref)?.token, 'two', 'what a caller does with its copy never reaches the cache');
      await server.client.delete(builtinRefs.secrets, 'creds', { namespace: NS });
      await eventually(() => (credentials.lookup(ref) === undefined ? true : undefined), 'the deleted Secret no longer handed out', 10_000);
      assert.equal(informers.size, 1, 'one informer, on that Secret only');
    } finally {
      credentials.stop();
      informers.stop();
    }
  });

  test('a Secret the informer does not hold, and a name no field selector can carry, are left to the API', async () => {
    const informers = new SharedInformers(server.client);
    const credentials = new CredentialSecrets(informers);
    try {
      await server.client.create(builtinRefs.secrets, secret('other', 'x'));
      const missing = { namespace: NS, name: 'missing' };
      await eventually(() => credentials.lookup({ namespace: NS, name: 'other' }), 'a watched Secret handed out', 10_000);
      assert.equal(credentials.lookup(missing), undefined, 'not held (not synced yet, or no such Secret)');
      assert.equal(credentials.lookup({ namespace: NS, name: 'a,metadata.name=other' }), undefined);
      assert.equal(informers.size, 2, 'no informer for a name that is not a plain object name');
    } finally {
      credentials.stop();
      informers.stop();
    }
  });
});
