/**
 * The portable fields of SQL database claims (MySQLInstance, PostgreSQLInstance) that
 * providers read, shared by every provider of SQL databases.
 */
import type { KObject } from '../machinery/object.js';

/** The portable fields of a MySQLInstance or PostgreSQLInstance claim a provider reads. */
export interface SqlClaimSpec {
  version?: string;
  masterUsername?: string;
  databaseName?: string;
  requirements?: {
    capacity?: Record<string, string | number>;
    region?: string;
    cost?: string;
    performance?: string;
  };
  [field: string]: unknown;
}

/** sqlClaimSpec reads a claim's spec as a SQL claim spec (an absent spec is empty). */
export function sqlClaimSpec(claim: KObject): SqlClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as SqlClaimSpec) : {};
}
