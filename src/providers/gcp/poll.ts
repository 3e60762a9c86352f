/**
 * pollWithBackoff asks `look` until it answers something other than undefined, waiting 250 ms
 * after the first look and twice as long after each next (at most 5 s), for at most `limitMs`
 * in all; then it returns undefined (the caller reports "still in progress" and the reconciler
 * looks again later). The signal cuts the wait short (rejecting with its reason).
 */
export async function pollWithBackoff<T>(look: () => Promise<T | undefined>, limitMs: number, signal?: AbortSignal): Promise<T | undefined> {
  const end = Date.now() + limitMs;
  let delay = 250;
  for (;;) {
    signal?.throwIfAborted();
    const got = await look();
    if (got !== undefined) return got;
    if (Date.now() + delay > end) return undefined;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError'));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, delay);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    delay = Math.min(delay * 2, 5000);
  }
}
