import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import mysql from 'mysql2/promise';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from './testing.js';

let db: ThrowawayMariaDb;
before(async () => {
  db = await startThrowawayMariaDb();
});
after(async () => {
  await db?.stop();
});

test("a dedicated MariaDB server keeps its temporary files in its own directory, not the machine's shared /tmp", async () => {
  // Concurrent mariadb-install-db runs sharing /tmp were seen to lose each other's temporary
  // tables (ERROR 1051 Unknown table 'mysql.tmp_user_sys'); tenants' servers share nothing there either.
  const own = join(dirname(db.logFile), 'tmp');
  const admin = await mysql.createConnection({ host: db.host, port: db.port, user: db.username, password: db.password });
  try {
    const [rows] = await admin.query<mysql.RowDataPacket[]>('SELECT @@tmpdir AS tmpdir');
    assert.equal(rows[0]?.['tmpdir'], own);
  } finally {
    await admin.end();
  }
  const info = await stat(own);
  assert.ok(info.isDirectory());
  assert.equal(info.mode & 0o077, 0, 'private to the server user');
});
