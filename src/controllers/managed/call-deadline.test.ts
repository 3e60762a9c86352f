import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KObject } from '../../machinery/object.js';
import { CallCancelledError, CallTimeoutError, withDeadline, type CallResult, type DeadlineOptions, type ProviderCall } from './call-deadline.js';

const call = (name: string, op = 'observe'): ProviderCall => ({ op, kind: 'MemoryDatabase', resource: { metadata: { namespace: 'ns', name } } as KObject });

/** A provider call that waits until its signal aborts, then rejects with the signal's reason. */
function blocking(signals: AbortSignal[]): (signal: AbortSignal) => Promise<never> {
  return (signal) => {
    signals.push(signal);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  };
}

describe('withDeadline', () => {
  test('a call that answers in time returns its value and is reported a success', async () => {
    const reported: [string, CallResult][] = [];
    const options: DeadlineOptions = { timeoutMs: 1000, report: (c, r) => reported.push([c.resource.metadata.name!, r]) };
    assert.equal(await withDeadline(call('a'), options, async () => 42), 42);
    await assert.rejects(
      withDeadline(call('b'), options, async () => {
        throw new Error('quota exceeded');
      }),
      /quota exceeded/,
    );
    assert.deepEqual(reported, [
      ['a', 'success'],
      ['b', 'error'],
    ]);
  });

  test('calls started together share one signal; each is cancelled at its deadline with an error naming it', async () => {
    const signals: AbortSignal[] = [];
    const reported: CallResult[] = [];
    const options: DeadlineOptions = { timeoutMs: 100, report: (_c, r) => reported.push(r) };
    const started = performance.now();
    const a = withDeadline(call('a'), options, blocking(signals));
    const b = withDeadline(call('b', 'create'), options, blocking(signals));
    await assert.rejects(
      a,
      (err: unknown) =>
        err instanceof CallTimeoutError && /provider call observe on MemoryDatabase\/ns\/a did not finish in 100ms; cancelled/.test(err.message),
    );
    await assert.rejects(
      b,
      (err: unknown) => err instanceof CallTimeoutError && /provider call create on MemoryDatabase\/ns\/b did not finish/.test(err.message),
    );
    assert.ok(performance.now() - started >= 100, 'not cancelled before its timeout');
    assert.equal(signals.length, 2);
    assert.equal(signals[0], signals[1], 'one signal for both');
    assert.equal(signals[0].aborted, true);
    assert.match(String((signals[0].reason as Error).message), /provider calls did not finish in 100ms; cancelled/);
    assert.deepEqual(reported, ['timeout', 'timeout']);
  });

  test('many calls listening to their shared signal raise no listener warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const signals: AbortSignal[] = [];
      const options: DeadlineOptions = { timeoutMs: 50 };
      const calls = Array.from({ length: 20 }, (_, i) => withDeadline(call(`c${i}`), options, blocking(signals)));
      for (const c of calls) await assert.rejects(c, CallTimeoutError);
      assert.equal(new Set(signals).size, 1);
      await sleep(10); // warnings are emitted on the next tick
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('a call started after the slot gets a signal of its own; the earlier calls having ended changes nothing for it', async () => {
    const signals: AbortSignal[] = [];
    const options: DeadlineOptions = { timeoutMs: 200 }; // slots of 2 ms
    await withDeadline(call('a'), options, async (signal) => signals.push(signal));
    await sleep(10);
    await withDeadline(call('b'), options, async (signal) => signals.push(signal));
    assert.notEqual(signals[0], signals[1]);
    assert.equal(signals[0].aborted, false, 'a slot whose calls ended is not aborted');
  });

  test('a call that ignores its signal is no longer waited for at the deadline', async () => {
    const options: DeadlineOptions = { timeoutMs: 50 };
    await assert.rejects(
      withDeadline(call('deaf'), options, () => new Promise(() => {})),
      CallTimeoutError,
    );
  });

  test('shutdown cancels every running call with an error naming it, and calls started after it at once', async () => {
    const shutdown = new AbortController();
    const reported: CallResult[] = [];
    const options: DeadlineOptions = { timeoutMs: 600_000, shutdown: shutdown.signal, report: (_c, r) => reported.push(r) };
    const signals: AbortSignal[] = [];
    const a = withDeadline(call('a'), options, blocking(signals));
    await sleep(10); // the same slot: 600 s / 100 is capped at 1 s
    const b = withDeadline(call('b'), options, blocking(signals));
    await sleep(1100);
    const c = withDeadline(call('c'), options, blocking(signals));
    shutdown.abort();
    for (const [p, name] of [
      [a, 'a'],
      [b, 'b'],
      [c, 'c'],
    ] as const) {
      await assert.rejects(
        p,
        (err: unknown) =>
          err instanceof CallCancelledError && new RegExp(`MemoryDatabase/ns/${name} was cancelled: the controller is stopping`).test(err.message),
      );
    }
    assert.equal(signals[0], signals[1], 'a and b share the slot they started in');
    assert.notEqual(signals[1], signals[2], 'c started in a later slot');
    assert.ok(signals.every((s) => s.aborted));
    await assert.rejects(
      withDeadline(call('d'), options, async () => 1),
      CallCancelledError,
    );
    assert.deepEqual(reported, ['cancelled', 'cancelled', 'cancelled', 'cancelled']);
  });

  test('a shutdown while no call runs cancels the next call at once, on the slot that was idle', { timeout: 10_000 }, async () => {
    const shutdown = new AbortController();
    const options: DeadlineOptions = { timeoutMs: 600_000, shutdown: shutdown.signal };
    const signals: AbortSignal[] = [];
    await withDeadline(call('a'), options, async (signal) => signals.push(signal));
    shutdown.abort();
    assert.equal(signals[0].aborted, false, 'nobody was running on it');
    await assert.rejects(
      withDeadline(call('b'), options, blocking(signals)),
      (err: unknown) => err instanceof CallCancelledError && /ns\/b was cancelled/.test(err.message),
    );
    assert.equal(signals[0].aborted, true, 'the idle slot ended at its next use');
  });

  test('once its calls ended, a slot keeps no timer that holds the process and no shutdown listener', async () => {
    const shutdown = new AbortController();
    const options: DeadlineOptions = { timeoutMs: 600_000, shutdown: shutdown.signal };
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    let during = 0;
    let listening = 0;
    await withDeadline(call('a'), options, async () => {
      during = timers();
      listening = getEventListeners(shutdown.signal, 'abort').length;
    });
    assert.equal(during, before + 1, 'a running call holds one timer');
    assert.equal(listening, 1, 'its slot listens for shutdown');
    assert.equal(timers(), before, 'the idle current slot no longer holds the process');
    await sleep(1100); // the slot's time is over
    await withDeadline(call('b'), options, async () => 1);
    assert.equal(timers(), before);
    assert.equal(getEventListeners(shutdown.signal, 'abort').length, 0, 'an idle slot does not listen for shutdown');
  });
});
