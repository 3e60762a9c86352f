import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { boundClaims } from './bound-claims.js';

const resource = (spec: Record<string, unknown>, status?: Record<string, unknown>): KObject => ({
  apiVersion: 'v',
  kind: 'K',
  metadata: { name: 'r', namespace: 's' },
  spec,
  ...(status ? { status } : {}),
});

describe('boundClaims', () => {
  test('bindings and an exclusive claimRef are listed once each, with their uids', () => {
    const r = resource(
      { claimRef: { namespace: 'n', name: 'x', uid: '1' } },
      { bindings: [{ claimRef: { namespace: 'n', name: 'x', uid: '1' } }, { claimRef: { namespace: 'n', name: 'y', uid: '2' } }] },
    );
    assert.deepEqual(boundClaims(r), [
      { namespace: 'n', name: 'x', uid: '1' },
      { namespace: 'n', name: 'y', uid: '2' },
    ]);
  });

  test('an unbound resource has none; references without a namespace or name, or of the wrong shape, are skipped', () => {
    assert.deepEqual(boundClaims(resource({})), []);
    assert.deepEqual(
      boundClaims(resource({ claimRef: { name: 'x' } }, { bindings: [{ claimRef: { namespace: 'n' } }, {}, { claimRef: { namespace: 'n', name: 7 } }] })),
      [],
    );
    assert.deepEqual(boundClaims(resource({}, { bindings: 'not a list' })), []);
    assert.deepEqual(boundClaims(resource({ claimRef: { namespace: 'n', name: 'x' } })), [{ namespace: 'n', name: 'x' }], 'no uid recorded: none reported');
  });
});
