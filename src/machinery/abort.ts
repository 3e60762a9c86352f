/**
 * abortReason is why `signal` was aborted, as an Error: the reason given to `abort()` when it
 * is one (Conductor's deadlines give CallTimeoutError or CallCancelledError; AbortSignal.timeout
 * gives a DOMException, an Error too), else an Error naming the value.
 */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new Error(reason === undefined ? 'the operation was aborted' : `the operation was aborted: ${String(reason)}`);
}

/**
 * pauseUnlessAborted waits `ms`, or less when `signal` aborts meanwhile (or has already): it
 * never rejects, for loops that check the signal themselves after each pause.
 */
export function pauseUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
