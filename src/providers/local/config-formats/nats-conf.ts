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

/** natsSecret checks a password: printable ASCII without quotes, backslashes or `$`, so no reader of the file can take it for anything else. */
export function natsSecret(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^[!#%-[\]-~]{8,200}$/.test(value) || value.includes('$')) {
    throw new Error(`nats config: ${what} is not 8-200 printable characters without quotes, backslashes or $`);
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
