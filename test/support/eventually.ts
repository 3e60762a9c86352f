/**
 * Test support: waits for something a controller does asynchronously.
 */

/**
 * Calls `probe` every `intervalMs` until it returns something other than `undefined` or
 * `false` (and returns that), or fails after `timeoutMs` naming `what` and the last error the
 * probe threw (a probe may throw while the thing it looks for does not exist yet).
 */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 90_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `; last error: ${String(last)}` : ''}`);
}
