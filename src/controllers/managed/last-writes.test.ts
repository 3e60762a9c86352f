/** LastWrites: when a reconcile may start from the informer's cached copy of a resource. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { LastWrites } from './last-writes.js';

const at = (name: string, resourceVersion: string): KObject => ({ apiVersion: 'v1', kind: 'X', metadata: { namespace: 'ns', name, resourceVersion } });

describe('LastWrites', () => {
  test('a copy older than the own latest write is not usable until the cache shows that write', () => {
    const last = new LastWrites();
    assert.equal(last.usable(at('a', '3')), true, 'nothing written: the cache will do');
    last.wrote(at('a', '5'));
    assert.equal(last.usable(at('a', '3')), false, 'the cache is behind the write');
    assert.equal(last.usable(at('b', '3')), true, 'another resource is not concerned');
    last.seen(at('a', '4'));
    assert.equal(last.usable(at('a', '4')), false, 'an earlier version arriving settles nothing');
    last.seen(at('a', '5'));
    assert.equal(last.size, 0, 'the write’s event settles it');
    assert.equal(last.usable(at('a', '5')), true);
  });

  test('a cached copy that is the write itself is usable; the API’s answer matching the cache settles a write whose event came first', () => {
    const last = new LastWrites();
    last.wrote(at('a', '7'));
    assert.equal(last.usable(at('a', '7')), true);
    assert.equal(last.size, 0);
    // The write's event came before its answer, then someone else wrote version 9.
    last.wrote(at('a', '8'));
    assert.equal(last.usable(at('a', '9')), false, 'not the write: the API is read');
    last.caughtUp(at('a', '9'), at('a', '9'));
    assert.equal(last.usable(at('a', '9')), true, 'the API answered what the cache holds: it has caught up');
  });

  test('a deleted resource is forgotten', () => {
    const last = new LastWrites();
    last.wrote(at('a', '5'));
    last.forget(at('a', '5'));
    assert.equal(last.size, 0);
  });
});
