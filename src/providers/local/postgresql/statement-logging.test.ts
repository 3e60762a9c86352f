import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { startThrowawayServer, type ThrowawayServer } from './testing.js';

let server: ThrowawayServer;
before(async () => {
  server = await startThrowawayServer();
});
after(async () => server?.stop());

test('a failed statement holding a password is logged as an error, without the statement (the log is served to admins who may not read Secrets)', async () => {
  const client = new pg.Client({ host: server.host, port: server.port, user: server.username, password: server.password, database: 'postgres' });
  await client.connect();
  const password = 'never-in-the-log-7f3a9c';
  try {
    await client.query(`CREATE ROLE log_probe LOGIN PASSWORD '${password}'`);
    await assert.rejects(client.query(`CREATE ROLE log_probe LOGIN PASSWORD '${password}'`), /already exists/);
  } finally {
    await client.end();
  }
  const log = await readFile(server.logFile, 'utf8');
  assert.match(log, /role "log_probe" already exists/, 'the error itself is logged');
  assert.ok(!log.includes(password), 'the statement with the password is not');
});
