import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import type { RequestContext, UserInfo } from '../rest/context.js';
import { selfSubjectReview, selfSubjectReviewEndpoint } from './self-subject-review.js';

describe('selfSubjectReview', () => {
  const now = new Date('2030-01-01T00:00:00.123Z');
  const cases: Array<{ reason: string; user: UserInfo; want: Record<string, unknown> }> = [
    {
      reason: 'a user with uid and groups',
      user: { name: 'system:serviceaccount:a:b', uid: 'u1', groups: ['system:serviceaccounts', 'system:authenticated'] },
      want: { username: 'system:serviceaccount:a:b', uid: 'u1', groups: ['system:serviceaccounts', 'system:authenticated'] },
    },
    {
      reason: 'a certificate user has no uid',
      user: { name: 'alice', groups: ['devs', 'system:authenticated'] },
      want: { username: 'alice', groups: ['devs', 'system:authenticated'] },
    },
    { reason: 'no groups leaves groups out', user: { name: 'x', groups: [] }, want: { username: 'x' } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(selfSubjectReview(c.user, now), {
        kind: 'SelfSubjectReview',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { creationTimestamp: '2030-01-01T00:00:00Z' },
        status: { userInfo: c.want },
      });
    });
  }
});

describe('selfSubjectReviewEndpoint', () => {
  const endpoint = selfSubjectReviewEndpoint();
  const ctx: RequestContext = { user: { name: 'alice', groups: ['system:authenticated'] }, userAgent: 't', warnings: [] };

  test('answers 201 with the caller, whatever the authorizer would say', async () => {
    assert.equal(endpoint.authorize, false);
    const { code, object } = await endpoint.create(
      ctx,
      { namespace: undefined, name: undefined },
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: {} } },
      new URLSearchParams(),
    );
    assert.equal(code, 201);
    assert.deepEqual((object as { status: unknown }).status, { userInfo: { username: 'alice', groups: ['system:authenticated'] } });
  });

  test('a body of another kind is a 400', async () => {
    await assert.rejects(
      endpoint.create(ctx, { namespace: undefined, name: undefined }, { kind: 'TokenRequest' }, new URLSearchParams()),
      (err: unknown) => isApiError(err) && err.code === 400,
    );
  });

  test('what the client claims about itself in status is ignored', async () => {
    const { object } = await endpoint.create(
      ctx,
      { namespace: undefined, name: undefined },
      { status: { userInfo: { username: 'root', groups: ['system:masters'] } } },
      new URLSearchParams(),
    );
    assert.equal((object as { status: { userInfo: { username: string } } }).status.userInfo.username, 'alice');
  });
});
