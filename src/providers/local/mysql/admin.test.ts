import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { adminProblem, globalPrivileges, grantTarget, type ServerInfo } from './admin.js';

describe('globalPrivileges', () => {
  const cases = [
    { reason: 'MariaDB root', grants: ['GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION'], want: { all: true, grantOption: true } },
    {
      reason: 'a listed set without grant option',
      grants: ['GRANT SELECT, CREATE, CREATE USER ON *.* TO `ops`@`%`', 'GRANT ALL PRIVILEGES ON `x`.* TO `ops`@`%` WITH GRANT OPTION'],
      want: { all: false, grantOption: false },
    },
    { reason: 'no global grants', grants: ['GRANT USAGE ON *.* TO `app`@`%`'], want: { all: false, grantOption: false } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = globalPrivileges(c.grants);
      assert.deepEqual({ all: got.all, grantOption: got.grantOption }, c.want);
    });
  }
  test('privileges on one database do not count as global', () => {
    assert.equal(globalPrivileges(['GRANT ALL PRIVILEGES ON `x`.* TO `a`@`%` WITH GRANT OPTION']).privileges.size, 0);
  });
});

describe('adminProblem', () => {
  const info: ServerInfo = {
    versionText: '10.11.19-MariaDB',
    version: undefined,
    user: 'ops@%',
    createUser: true,
    createDb: true,
    grantOption: true,
    readUsers: true,
  };
  test('a capable account has no problem', () => assert.equal(adminProblem(info), undefined));
  test('names every missing privilege', () =>
    assert.match(adminProblem({ ...info, createUser: false, readUsers: false }) ?? '', /^account ops@% lacks CREATE USER, SELECT on mysql.user: want/));
});

describe('grantTarget', () => {
  test('escapes the GRANT wildcards _ and % and quotes the name', () => {
    assert.equal(grantTarget(mysql, 'team_a%b'), '`team\\_a\\%b`.*');
  });
});
