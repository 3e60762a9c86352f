import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failureLines } from './cancellable.js';

describe('failureLines', () => {
  test("quotes the lines naming an error (mariadb-install-db's advice after them is left out), else the last lines", () => {
    const installDb = [
      "Installing MariaDB/MySQL system tables in '/x/data.init' ...",
      "2026-11-28 12:44:58 1 [Warning] Could not remove temporary table: '/tmp/#sql-temptable-73a1-1-3', error: 2",
      "ERROR: 1051  Unknown table 'mysql.tmp_user_sys'",
      '2026-11-28 12:44:58 0 [ERROR] Aborting',
      '',
      'Installation of system tables failed!  Examine the logs in',
      'The problem could be conflicting information in an external',
      'You can find the latest source at https://downloads.mariadb.org and',
      'at https://mariadb.org/jira',
    ].join('\n');
    assert.deepEqual(failureLines(installDb), [
      "2026-11-28 12:44:58 1 [Warning] Could not remove temporary table: '/tmp/#sql-temptable-73a1-1-3', error: 2",
      "ERROR: 1051  Unknown table 'mysql.tmp_user_sys'",
      '2026-11-28 12:44:58 0 [ERROR] Aborting',
      'Installation of system tables failed!  Examine the logs in',
    ]);
    assert.deepEqual(failureLines('one\ntwo\n\nthree\nfour\nfive\nsix\n'), ['two', 'three', 'four', 'five', 'six']);
    assert.deepEqual(failureLines(''), []);
  });
});
