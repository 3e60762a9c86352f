/** OwnWrites: which watch events are the reconciler's own writes (and so start no reconcile). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { OwnWrites } from './own-writes.js';

const at = (name: string, resourceVersion: string): KObject => ({ apiVersion: 'v1', kind: 'X', metadata: { namespace: 'ns', name, resourceVersion } });

describe('OwnWrites', () => {
  test('an event of a recorded version is own once; other versions and other resources are not', () => {
    const own = new OwnWrites();
    own.record(at('a', '5'));
    assert.equal(own.consume(at('a', '4')), false, 'a version written by someone else');
    assert.equal(own.consume(at('b', '5')), false, 'the same version of another resource');
    assert.equal(own.consume(at('a', '5')), true);
    assert.equal(own.consume(at('a', '5')), false, 'each write is one event');
    assert.equal(own.size, 0, 'nothing is kept once its event came');
  });

  test('the event of a later own write drops the earlier ones still waiting; a deleted resource is forgotten', () => {
    const own = new OwnWrites();
    own.record(at('a', '5'));
    own.record(at('a', '7'));
    own.record(at('a', '9'));
    assert.equal(own.consume(at('a', '7')), true);
    assert.equal(own.consume(at('a', '5')), false, 'behind a consumed one');
    assert.equal(own.consume(at('a', '9')), true);
    own.record(at('b', '11'));
    own.forget(at('b', '11'));
    assert.equal(own.consume(at('b', '11')), false);
    assert.equal(own.size, 0);
  });

  test("during a reconcile, events are judged at its end: its own writes' events (answered after them) start nothing, another's does", () => {
    const own = new OwnWrites();
    assert.equal(own.defer(at('a', '5')), false, 'not being reconciled: judged at once');
    own.begin('ns/a');
    // The store fans the event out before the write's answer reaches the reconcile.
    assert.equal(own.consume(at('a', '5')), false);
    assert.equal(own.defer(at('a', '5')), true);
    own.record(at('a', '5'));
    assert.equal(own.defer(at('b', '6')), false, 'another resource');
    assert.equal(own.end('ns/a'), false, 'only its own write came');
    assert.equal(own.size, 0);

    own.begin('ns/a');
    assert.equal(own.defer(at('a', '7')), true, "someone else's write");
    assert.equal(own.defer(at('a', '8')), true);
    own.record(at('a', '8'));
    assert.equal(own.end('ns/a'), true, 'look again: version 7 was not its own');
    assert.equal(own.defer(at('a', '9')), false, 'the reconcile is over');
    assert.equal(own.size, 0);
  });

  test('at most a few versions per resource are kept', () => {
    const own = new OwnWrites();
    for (let rv = 1; rv <= 10; rv++) own.record(at('a', String(rv)));
    assert.equal(own.consume(at('a', '1')), false, 'the oldest went');
    assert.equal(own.consume(at('a', '10')), true);
    assert.equal(own.size, 0);
  });
});
