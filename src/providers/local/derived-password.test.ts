import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimPasswordIdentity, derivePassword } from './derived-password.js';

describe('derivePassword', () => {
  test('is stable for the same inputs and differs with the secret, the identity or the engine', () => {
    assert.equal(derivePassword('mysql', 's', 'x'), derivePassword('mysql', 's', 'x'));
    assert.notEqual(derivePassword('mysql', 's', 'x'), derivePassword('mysql', 's', 'y'));
    assert.notEqual(derivePassword('mysql', 's', 'x'), derivePassword('mysql', 't', 'x'));
    assert.notEqual(derivePassword('mysql', 's', 'x'), derivePassword('redis', 's', 'x'));
    assert.match(derivePassword('mysql', 's', 'x'), /^[A-Za-z0-9_-]{32}$/);
  });

  test('Redis claim passwords are the ones earlier releases derived (bound claims keep working after an upgrade)', () => {
    // Computed by the release that introduced derived Redis passwords, for these inputs.
    assert.equal(derivePassword('redis', 'admin-secret', 'ruid/team/app/cuid'), 'ICtI-IYP48XgrskzX9ko5j2ZnSyhwx8H');
  });

  test('the identity names the resource and the claim, uid included (a recreated claim gets a new password)', () => {
    const identity = claimPasswordIdentity({ metadata: { uid: 'ruid' } }, { namespace: 'team', name: 'app', uid: 'cuid' });
    assert.equal(identity, 'ruid/team/app/cuid');
    assert.notEqual(claimPasswordIdentity({ metadata: { uid: 'ruid' } }, { namespace: 'team', name: 'app', uid: 'other' }), identity);
  });
});
