import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sasWindow } from './sas.js';

const DAY = 86_400_000;

describe('sasWindow', () => {
  test('the same window all through a period, so observing again publishes the same token', () => {
    const a = sasWindow(new Date('2026-03-01T00:00:00Z'), 30);
    const b = sasWindow(new Date(a.startsOn.getTime() + 15 * 60_000 + 9 * DAY), 30);
    assert.deepEqual(a, b);
  });

  test('a token is good for at least two thirds of its validity, and starts 15 minutes early', () => {
    for (const days of [1, 7, 30, 365]) {
      for (const now of [new Date('2026-01-01T00:00:00Z'), new Date('2026-06-15T13:37:00Z'), new Date('2027-12-31T23:59:59Z')]) {
        const w = sasWindow(now, days);
        assert.ok(w.startsOn.getTime() <= now.getTime() - 15 * 60_000 + 1, 'started before now, with slack');
        assert.ok(w.expiresOn.getTime() - now.getTime() >= (2 * days * DAY) / 3 - 1000, `${days} days at ${now.toISOString()}`);
        assert.ok(w.expiresOn.getTime() - now.getTime() <= days * DAY);
      }
    }
  });

  test('the next period brings the next window', () => {
    const a = sasWindow(new Date('2026-03-01T00:00:00Z'), 30);
    const b = sasWindow(new Date(a.startsOn.getTime() + 15 * 60_000 + 10 * DAY), 30);
    assert.equal(b.startsOn.getTime() - a.startsOn.getTime(), 10 * DAY);
  });
});
