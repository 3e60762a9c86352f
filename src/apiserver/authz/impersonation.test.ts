import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import { impersonatedUser } from './impersonation.js';
import type { AuthorizationAttributes, Authorizer } from './types.js';

/** An authorizer allowing impersonation of the listed `resource/name` pairs only. */
function allowing(...allowed: string[]): Authorizer & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    authorize(a: AuthorizationAttributes) {
      const key = `${a.verb} ${a.resource}/${a.namespace ? `${a.namespace}/` : ''}${a.name}`;
      asked.push(key);
      return { allowed: allowed.includes(key), reason: '' };
    },
  };
}
const me = { name: 'me', groups: ['system:authenticated'] };

describe('impersonatedUser', () => {
  test('no headers: the user itself, nothing asked', async () => {
    const a = allowing();
    assert.equal(await impersonatedUser({ accept: ['x'] }, me, a), me);
    assert.deepEqual(a.asked, []);
  });

  test('a user with groups, each authorized', async () => {
    const a = allowing('impersonate users/dev', 'impersonate groups/g1');
    const u = await impersonatedUser({ 'impersonate-user': ['dev'], 'impersonate-group': ['g1'] }, me, a);
    assert.deepEqual(u, { name: 'dev', groups: ['g1', 'system:authenticated'] });
  });

  test('a ServiceAccount user needs impersonate on the serviceaccount and gets its groups', async () => {
    const a = allowing('impersonate serviceaccounts/ns/app');
    const u = await impersonatedUser({ 'impersonate-user': ['system:serviceaccount:ns:app'] }, me, a);
    assert.deepEqual(u.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated']);
  });

  const refused: Array<{ reason: string; headers: Record<string, string[]>; allowed: string[]; code: number }> = [
    { reason: 'user not allowed', headers: { 'impersonate-user': ['dev'] }, allowed: [], code: 403 },
    {
      reason: 'group not allowed',
      headers: { 'impersonate-user': ['dev'], 'impersonate-group': ['system:masters'] },
      allowed: ['impersonate users/dev'],
      code: 403,
    },
    { reason: 'group without user', headers: { 'impersonate-group': ['g'] }, allowed: [], code: 400 },
    { reason: 'two users', headers: { 'impersonate-user': ['a', 'b'] }, allowed: [], code: 400 },
  ];
  for (const c of refused) {
    test(c.reason, async () => {
      await assert.rejects(impersonatedUser(c.headers, me, allowing(...c.allowed)), (err) => isApiError(err) && err.code === c.code);
    });
  }
});
