/**
 * Secret values never leave a controller in a message. Provider errors quote what they were
 * given — PostgreSQL says `password authentication failed for user "<username>"`, MariaDB
 * `Access denied for user '<username>'@…` — and those messages become conditions, Events and
 * log lines, which people who may not read the Secret can read (and which are stored
 * unencrypted). A Redactor knows the values of the Secrets a call was handed and replaces
 * them in messages; `redactingClient` puts one around every method of an external client.
 */
import type { ConnectionDetails, ExternalClient } from '../../providers/spi.js';
import type { KObject } from '../../machinery/object.js';

/** What stands in a message where a secret value was. */
export const REDACTED = '[redacted]';

/**
 * Values shorter than this are not redacted: replacing every "1" or "db" in a message would
 * make it unreadable, and such values are not secrets worth the name.
 */
export const MIN_REDACTED_LENGTH = 4;

/** Keys of connection details whose values are secret (the others — host, port, database — are not). */
const SECRET_KEY = /pass|secret|token|key|cred|uri|url|auth/i;

/** A Redactor replaces known secret values, in the forms they appear in messages, by REDACTED. */
export class Redactor {
  private readonly values = new Set<string>();

  constructor(values: Iterable<string> = []) {
    for (const v of values) this.add(v);
  }

  /** add registers a value (and its URL-encoded and base64 forms). */
  add(value: string): this {
    if (typeof value !== 'string' || value.length < MIN_REDACTED_LENGTH) return this;
    for (const form of [value, encodeURIComponent(value), Buffer.from(value, 'utf8').toString('base64')]) this.values.add(form);
    return this;
  }

  /** addDetails registers the secret values of connection details (passwords, keys, URIs). */
  addDetails(details: ConnectionDetails | undefined): this {
    for (const [k, v] of Object.entries(details ?? {})) if (SECRET_KEY.test(k)) this.add(v);
    return this;
  }

  /** merge registers every value `other` knows. */
  merge(other: Redactor): this {
    for (const v of other.values) this.values.add(v);
    return this;
  }

  get size(): number {
    return this.values.size;
  }

  /** redact returns `text` with every known value replaced (longest first, so no part of one survives). */
  redact(text: string): string {
    if (this.values.size === 0) return text;
    let out = text;
    for (const v of [...this.values].sort((a, b) => b.length - a.length)) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  }

  /**
   * redactError returns `err` when its message holds no known value; otherwise a new Error of
   * the same name with the message redacted and nothing else (no cause, no driver fields such as
   * `detail` or `sql`, which may quote the values too).
   */
  redactError(err: unknown): unknown {
    if (this.values.size === 0) return err;
    const message = err instanceof Error ? err.message : String(err);
    const redacted = this.redact(message);
    const extra = err instanceof Error ? driverFields(err) : '';
    if (redacted === message && this.redact(extra) === extra) return err;
    const out = new Error(redacted);
    if (err instanceof Error) out.name = err.name;
    return out;
  }
}

/** redactJson returns a copy of a JSON value with the known values replaced in every string. */
function redactJson(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (Array.isArray(value)) return value.map((v) => redactJson(v, redactor));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v, redactor)]));
  return value;
}

/**
 * redactObservation removes the known values from what an observation puts in status and
 * Events — `atProvider` (a shared server reports the admin user it logged in as) and `drift` —
 * leaving the connection details, which go to a Secret.
 */
function redactObservation(result: unknown, redactor: Redactor): unknown {
  if (redactor.size === 0 || result === null || typeof result !== 'object') return result;
  const o = result as { atProvider?: unknown; drift?: unknown };
  return {
    ...o,
    ...(o.atProvider !== undefined ? { atProvider: redactJson(o.atProvider, redactor) } : {}),
    ...(typeof o.drift === 'string' ? { drift: redactor.redact(o.drift) } : {}),
  };
}

/** The string fields a database driver adds to its errors (detail, hint, sql, sqlMessage, …), joined. */
function driverFields(err: Error): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(err)) if (k !== 'message' && typeof v === 'string') parts.push(v);
  return parts.join('\n');
}

/**
 * redactingClient wraps every method of an external client: a rejection (or throw) has the
 * values `redactor` knows removed from its message, and what `observe` reports for status
 * (`atProvider`, `drift`) has them removed too. The `previous` connection details given to
 * `bindClaim` are secrets of their claim and are added for that call.
 */
export function redactingClient<R extends KObject>(client: ExternalClient<R>, redactor: Redactor): ExternalClient<R> {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const forCall =
          prop === 'bindClaim' && args[2] && typeof args[2] === 'object' ? new Redactor().merge(redactor).addDetails(args[2] as ConnectionDetails) : redactor;
        try {
          const result = fn.apply(target, args);
          if (!(result instanceof Promise)) return result;
          const settled = result.catch((err: unknown) => Promise.reject(forCall.redactError(err)));
          return prop === 'observe' ? settled.then((r: unknown) => redactObservation(r, forCall)) : settled;
        } catch (err) {
          throw forCall.redactError(err);
        }
      };
    },
  });
}
