/**
 * Checking values before they go into a nats-server config. The config is written as JSON
 * (which nats-server reads), so strings are escaped by JSON.stringify; what JSON cannot
 * guard is meaning: a subject with `*`, `>` or `.` would widen a tenant's permissions, and
 * nats-server treats a value starting with `$` as a variable reference. So names that end
 * up in accounts, users and subject permissions must be plain tokens.
 */

/** A token nats-server reads as plain text in every position: letters, digits, `_` and `-`, not starting with `$`. */
const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;

/** natsToken checks an account name, user name or subject prefix; it throws when it is not a plain token. */
export function natsToken(value: unknown, what: string): string {
  if (typeof value !== 'string' || !TOKEN.test(value)) {
    throw new Error(`nats config: ${what} ${JSON.stringify(value)} is not a plain token (letters, digits, _ and -)`);
  }
  return value;
}

/**
 * natsSecret checks a password: 1-200 printable ASCII characters (JSON.stringify escapes
 * quotes and backslashes, and nats-server reads those escapes — tested against the real
 * server), no control characters, and no `$`, which nats-server may take for a variable.
 */
export function natsSecret(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^[\x20-\x7e]{1,200}$/.test(value) || value.includes('$')) {
    throw new Error(`nats config: ${what} is not 1-200 printable ASCII characters without $`);
  }
  return value;
}

/** natsInteger checks an integer in a range. */
export function natsInteger(value: unknown, min: number, max: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`nats config: ${what} ${JSON.stringify(value)} is not an integer from ${min} to ${max}`);
  }
  return value;
}
