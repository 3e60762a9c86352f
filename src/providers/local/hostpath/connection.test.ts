import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConnectionDetails } from '../../spi.js';
import { formatVolumeConnection, volumeDetails } from './connection.js';

describe('formatVolumeConnection', () => {
  const cases: { reason: string; input: ConnectionDetails; want: ConnectionDetails | RegExp }[] = [
    { reason: 'a local directory', input: volumeDetails('/srv/vols/a_b'), want: { path: '/srv/vols/a_b', server: 'localhost', export: '/srv/vols/a_b' } },
    { reason: 'path alone fills server and export', input: { path: '/x' }, want: { path: '/x', server: 'localhost', export: '/x' } },
    { reason: 'a remote export without a path', input: { server: 'nfs1', export: '/exports/a' }, want: { server: 'nfs1', export: '/exports/a' } },
    { reason: 'extra keys are dropped', input: { path: '/x', usedBytes: '3' }, want: { path: '/x', server: 'localhost', export: '/x' } },
    { reason: 'nothing usable is an error', input: { server: 'nfs1' }, want: /want path, or both server and export/ },
    { reason: 'a relative path is an error', input: { path: 'x/y' }, want: /want an absolute path/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.want instanceof RegExp) assert.throws(() => formatVolumeConnection(c.input), c.want);
      else assert.deepEqual(formatVolumeConnection(c.input), c.want);
    });
  }
});
