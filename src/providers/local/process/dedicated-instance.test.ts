import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { discoverServers, type InstanceStateBase } from './dedicated-instance.js';

describe('discoverServers', () => {
  const servers = {
    list: async () => [
      {
        dir: '/data/servers/team_db',
        state: { namespace: 'team', name: 'db', port: 5433, accounts: { a: 1, b: 2 } } as InstanceStateBase & { accounts: Record<string, number> },
      },
    ],
  };

  test('each directory becomes a resource named from its state, the directory its external name', async () => {
    assert.deepEqual(await discoverServers(servers), [
      { externalName: 'team_db', namespace: 'team', name: 'db', spec: { port: 5433 }, atProvider: { directory: '/data/servers/team_db' } },
    ]);
  });

  test('a kind may report more of its state in atProvider', async () => {
    const [found] = await discoverServers(servers, (dir, state) => ({ directory: dir, accounts: Object.keys(state.accounts).length }));
    assert.deepEqual(found?.atProvider, { directory: '/data/servers/team_db', accounts: 2 });
  });

  test('no directories, nothing discovered', async () => {
    assert.deepEqual(await discoverServers({ list: async () => [] }), []);
  });
});
