/**
 * exactConnectionKeys is a ClaimImplementation's `formatConnection` for a kind that publishes
 * the claim kind's keys under their own names: it keeps exactly `keys` of the details and
 * throws, naming the kind and the key, when one is missing.
 */
import type { ConnectionDetails } from './spi.js';

export function exactConnectionKeys(kind: string, keys: readonly string[], details: ConnectionDetails): ConnectionDetails {
  const out: ConnectionDetails = {};
  for (const key of keys) {
    const value = details[key];
    if (value === undefined) throw new Error(`${kind} published no ${key}: cannot write the claim's Secret`);
    out[key] = value;
  }
  return out;
}
