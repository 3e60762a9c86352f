import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Expectations } from './expectations.js';

describe('Expectations', () => {
  const probe = (created: string[], deleted: string[]) => ({ created: (n: string) => created.includes(n), deleted: (u: string) => deleted.includes(u) });

  test('nothing expected: no wait', () => {
    assert.equal(new Expectations(1000).waitMs('k', probe([], [])), 0);
  });

  test('waits until the cache shows every create and delete, then forgets', () => {
    let now = 0;
    const e = new Expectations(1000, () => now);
    e.expect('k', { creates: ['a', 'b'], deletes: ['u1'] });
    now = 100;
    assert.equal(e.waitMs('k', probe(['a'], [])), 900);
    assert.equal(e.waitMs('k', probe(['b'], [])), 900, 'a was seen before and stays seen');
    assert.equal(e.waitMs('k', probe([], ['u1'])), 0);
    assert.equal(e.waitMs('k', probe([], [])), 0, 'forgotten once satisfied');
  });

  test('gives up after the timeout', () => {
    let now = 0;
    const e = new Expectations(1000, () => now);
    e.expect('k', { creates: ['a'] });
    now = 1000;
    assert.equal(e.waitMs('k', probe([], [])), 0);
  });

  test('keys are independent, and forget drops one', () => {
    const e = new Expectations(1000, () => 0);
    e.expect('k1', { creates: ['a'] });
    e.expect('k2', { creates: ['a'] });
    e.forget('k1');
    assert.equal(e.waitMs('k1', probe([], [])), 0);
    assert.equal(e.waitMs('k2', probe([], [])), 1000);
  });

  test('expecting nothing records nothing', () => {
    const e = new Expectations(1000, () => 0);
    e.expect('k', { creates: [], deletes: [] });
    assert.equal(e.waitMs('k', probe([], [])), 0);
  });
});
