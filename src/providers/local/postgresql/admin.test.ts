import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adminProblem, generatePassword, scramVerifier } from './admin.js';

describe('admin helpers', () => {
  test('scramVerifier has the form PostgreSQL stores, salted afresh each time', async () => {
    const a = await scramVerifier('s3cret-pass');
    assert.match(a, /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(await scramVerifier('s3cret-pass'), a);
    const salt = Buffer.alloc(16, 7);
    assert.equal(await scramVerifier('x', salt), await scramVerifier('x', salt));
  });

  test('scramVerifier refuses passwords SASLprep could change', async () => {
    await assert.rejects(scramVerifier('pässword'), /printable ASCII/);
    await assert.rejects(scramVerifier(''), /printable ASCII/);
  });

  test('generated passwords are long, URI-safe and distinct', () => {
    const p = generatePassword();
    assert.match(p, /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(generatePassword(), p);
  });

  const cases = [
    { reason: 'a superuser may do everything', info: { superuser: true, createRole: false, createDb: false }, want: undefined },
    { reason: 'CREATEROLE and CREATEDB suffice', info: { superuser: false, createRole: true, createDb: true }, want: undefined },
    {
      reason: 'missing powers are named',
      info: { superuser: false, createRole: false, createDb: true },
      want: 'role "admin" lacks CREATEROLE: want a superuser or a role with CREATEROLE and CREATEDB',
    },
  ];
  for (const c of cases) {
    test(`adminProblem: ${c.reason}`, () => {
      assert.equal(adminProblem({ version: '15.4', versionNum: 150004, user: 'admin', ...c.info }), c.want);
    });
  }
});
