import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readAdminCredentials } from './admin-credentials.js';

const strict = { usernameRequired: true, emptyPasswordAllowed: false };

describe('readAdminCredentials', () => {
  const cases: Array<{
    reason: string;
    ref?: { name?: string; usernameKey?: string; passwordKey?: string };
    data: Record<string, string>;
    rules: typeof strict;
    want?: object;
    error?: RegExp;
  }> = [
    { reason: 'default keys', ref: { name: 's' }, data: { username: 'admin', password: 'pw' }, rules: strict, want: { username: 'admin', password: 'pw' } },
    {
      reason: 'keys named by the ref',
      ref: { name: 's', usernameKey: 'u', passwordKey: 'p' },
      data: { u: 'root', p: 'x' },
      rules: strict,
      want: { username: 'root', password: 'x' },
    },
    {
      reason: 'an empty password counts where allowed (MySQL)',
      ref: { name: 's' },
      data: { username: 'root', password: '' },
      rules: { usernameRequired: true, emptyPasswordAllowed: true },
      want: { username: 'root', password: '' },
    },
    {
      reason: 'the user name may be left out where optional (Redis)',
      ref: { name: 's' },
      data: { password: 'pw' },
      rules: { usernameRequired: false, emptyPasswordAllowed: false },
      want: { username: undefined, password: 'pw' },
    },
    {
      reason: 'both missing are named',
      ref: { name: 'admins' },
      data: {},
      rules: strict,
      error: /db: the admin credentials Secret admins lacks username and password/,
    },
    {
      reason: 'an empty password is missing where not allowed',
      ref: { name: 'admins' },
      data: { username: 'a', password: '' },
      rules: strict,
      error: /lacks password$/,
    },
    {
      reason: 'no ref at all',
      ref: undefined,
      data: {},
      rules: { usernameRequired: false, emptyPasswordAllowed: true },
      error: /Secret \(none named\) lacks password/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const read = () => readAdminCredentials('db', c.ref, { credentials: c.data }, c.rules);
      if (c.error) assert.throws(read, c.error);
      else assert.deepEqual(read(), c.want);
    });
  }
});
