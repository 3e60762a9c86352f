import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import mysql from 'mysql2/promise';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from './testing.js';

let db: ThrowawayMariaDb;
before(async () => {
  db = await startThrowawayMariaDb();
});
after(async () => db?.stop());

test('a MariaDB server log holds no password: not of a user created, nor of a failed CREATE USER, nor of a refused login (the log is served to admins who may not read Secrets)', async () => {
  const password = 'never-in-the-log-4b81e2';
  const wrong = 'never-in-the-log-either-9d07c5';
  const admin = await mysql.createConnection({ host: db.host, port: db.port, user: db.username, password: db.password });
  try {
    await admin.query(`CREATE USER 'log_probe'@'%' IDENTIFIED BY '${password}'`);
    await assert.rejects(admin.query(`CREATE USER 'log_probe'@'%' IDENTIFIED BY '${password}'`), /Operation CREATE USER failed/);
  } finally {
    await admin.end();
  }
  await assert.rejects(mysql.createConnection({ host: db.host, port: db.port, user: 'log_probe', password: wrong }), /Access denied/);
  const log = await readFile(db.logFile, 'utf8');
  assert.match(log, /ready for connections/, 'the file is the server log');
  assert.ok(!log.includes(password), 'the password of a created user is not logged');
  assert.ok(!log.includes(wrong), 'the password of a refused login is not logged');
});
