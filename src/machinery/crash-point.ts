/**
 * Named crash points for the fault-injection tests and `npm run chaos`.
 *
 * A crash point is a place in the code where a crash is known to be dangerous (between two
 * writes that belong together, after a spawn and before its pid is recorded, in the middle of
 * removing a directory). `crashPoint(name)` does nothing unless the environment variable
 * `CONDUCTOR_CRASH_AT` lists that name (comma-separated); then the process kills itself with
 * SIGKILL on the spot, as a power cut would. A name may carry a count, `name@3`, to crash on
 * the third time the point is reached instead of the first.
 *
 * Production never sets the variable; the check is one Map lookup.
 */

const armed = parseCrashPoints(process.env.CONDUCTOR_CRASH_AT ?? '');
const reached = new Map<string, number>();

/** The armed points of a `CONDUCTOR_CRASH_AT` value: name → the visit that crashes (1-based). */
export function parseCrashPoints(value: string): Map<string, number> {
  const points = new Map<string, number>();
  for (const part of value.split(',')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const [name = '', countText] = trimmed.split('@');
    const count = countText === undefined ? 1 : Number(countText);
    if (!name || !Number.isInteger(count) || count < 1) {
      throw new Error(`CONDUCTOR_CRASH_AT: "${trimmed}" is not name or name@N with N ≥ 1`);
    }
    points.set(name, count);
  }
  return points;
}

/** Kills the process with SIGKILL if `name` is armed and this is the visit it is armed for. */
export function crashPoint(name: string): void {
  if (armed.size === 0) return;
  const at = armed.get(name);
  if (at === undefined) return;
  const visits = (reached.get(name) ?? 0) + 1;
  reached.set(name, visits);
  if (visits === at) {
    process.stderr.write(`crash point ${name} reached (visit ${visits}): SIGKILL\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}
