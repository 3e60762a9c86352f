/**
 * The portable fields of SQL database claims (MySQLInstance, PostgreSQLInstance) that
 * providers read, shared by every provider of SQL databases. The shapes are the claim kinds'
 * own (apis/storage); a claim's spec is read as them.
 */
import type { KObject } from '../machinery/object.js';
import type { PostgreSQLInstance } from '../apis/storage/kinds.js';

/** The portable fields of a MySQLInstance or PostgreSQLInstance claim (an absent spec reads as empty). */
export type SqlClaimSpec = Partial<PostgreSQLInstance['spec']>;

/** sqlClaimSpec reads a claim's spec as a SQL claim spec (an absent spec is empty). */
export function sqlClaimSpec(claim: KObject): SqlClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? spec : {};
}
