import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createClient } from 'redis';
import { startThrowawayRedis, type ThrowawayRedis } from './testing.js';

let redis: ThrowawayRedis;
before(async () => {
  redis = await startThrowawayRedis();
});
after(async () => redis?.stop());

test('a Redis server log holds no password: not of a user made with ACL SETUSER, nor of a refused AUTH (the log is served to admins who may not read Secrets)', async () => {
  const password = 'never-in-the-log-61c0d8';
  const wrong = 'never-in-the-log-either-e5a932';
  const admin = createClient({ socket: { host: redis.host, port: redis.port, reconnectStrategy: false }, password: redis.password });
  admin.on('error', () => {});
  await admin.connect();
  try {
    await admin.sendCommand(['ACL', 'SETUSER', 'log_probe', 'on', `>${password}`, '~probe:*', '+get']);
    await assert.rejects(admin.sendCommand(['AUTH', 'log_probe', wrong]), /WRONGPASS/);
  } finally {
    await admin.quit().catch(() => undefined);
  }
  const log = await readFile(redis.logFile, 'utf8');
  assert.match(log, /Ready to accept connections/, 'the file is the server log');
  assert.ok(!log.includes(password), 'the password of a user made is not logged');
  assert.ok(!log.includes(wrong), 'the password of a refused AUTH is not logged');
  assert.ok(!log.includes(redis.password), "the default user's password is not logged");
});
