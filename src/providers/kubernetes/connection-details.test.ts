import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../machinery/object.js';
import { connectionDetailsOf } from './connection-details.js';
import type { ConnectionDetailSource } from './kinds.js';

const live: JsonObject = { apiVersion: 'example.com/v1', kind: 'Db', metadata: { name: 'db1', namespace: 'shop', uid: 'uid-db1' }, status: { host: 'h' } };
const owned = (uid: string) => ({ ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Db', name: 'x', uid }] });
const objects: Record<string, JsonObject> = {
  'Secret shop/db1-app': { metadata: { name: 'db1-app', ...owned('uid-db1') }, data: { password: Buffer.from('pw').toString('base64') } },
  'Secret shop/other-app': { metadata: { name: 'other-app', ...owned('uid-other') }, data: { password: Buffer.from('theirs').toString('base64') } },
  'Secret shop/by-hand': { metadata: { name: 'by-hand' }, data: { token: Buffer.from('t').toString('base64') } },
  'ConfigMap shop/db1': { metadata: { name: 'db1', ...owned('uid-db1') }, data: { BUCKET_HOST: '127.0.0.1' } },
};
const from = {
  live,
  key: { apiVersion: 'example.com/v1', kind: 'Db', namespace: 'shop', name: 'db1' },
  readSecret: async (ns: string, name: string) => objects[`Secret ${ns}/${name}`],
  readConfigMap: async (ns: string, name: string) => objects[`ConfigMap ${ns}/${name}`],
};

describe('connectionDetailsOf', () => {
  const cases: { reason: string; sources: ConnectionDetailSource[]; want: Record<string, string> | RegExp }[] = [
    {
      reason: 'a field, a Secret named after the object with $(object.name), a ConfigMap by default name',
      sources: [
        { fromField: '.status.host', toKey: 'host' },
        { fromSecretKey: 'password', secretName: '$(object.name)-app', toKey: 'password' },
        { fromConfigMapKey: 'BUCKET_HOST', toKey: 'bucketHost' },
      ],
      want: { host: 'h', password: 'pw', bucketHost: '127.0.0.1' },
    },
    {
      reason: 'a Secret without ownerReferences (made by hand) is read',
      sources: [{ fromSecretKey: 'token', secretName: 'by-hand', toKey: 't' }],
      want: { t: 't' },
    },
    {
      reason: "another object's dependent is never read",
      sources: [{ fromSecretKey: 'password', secretName: 'other-app', toKey: 'password' }],
      want: /Secret shop\/other-app in the target belongs to another object \(its ownerReferences do not name this one\): not read/,
    },
    {
      reason: 'a missing ConfigMap is named',
      sources: [{ fromConfigMapKey: 'X', configMapName: 'nope', toKey: 'x' }],
      want: /ConfigMap shop\/nope does not exist in the target \(yet\)/,
    },
    { reason: 'a missing key is named', sources: [{ fromConfigMapKey: 'X', toKey: 'x' }], want: /ConfigMap shop\/db1 in the target has no key X/ },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      if (c.want instanceof RegExp) await assert.rejects(connectionDetailsOf(c.sources, from), c.want);
      else assert.deepEqual(await connectionDetailsOf(c.sources, from), c.want);
    });
  }
});
