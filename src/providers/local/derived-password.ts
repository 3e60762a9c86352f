/**
 * Claim passwords a shared server's provider can compute again instead of storing: the
 * same admin secret and claim identity always give the same password, so a user removed
 * by hand is recreated with the password the claim's Secret already holds.
 */
import { createHash, createHmac } from 'node:crypto';

/** The engines that derive claim passwords; each has its own key, so the same claim differs per engine. */
export type PasswordEngine = 'redis' | 'mysql';

/**
 * derivePassword computes a claim's password (32 URL-safe characters) from a secret (the
 * admin password) and the claim's identity (resource uid, claim namespace, name and uid).
 */
export function derivePassword(engine: PasswordEngine, secret: string, identity: string): string {
  const key = createHash('sha256').update(`conductor ${engine} claim password\0${secret}`).digest();
  return createHmac('sha256', key).update(identity).digest('base64url').slice(0, 32);
}

/** claimPasswordIdentity is the identity a shared server's claim password is derived from. */
export function claimPasswordIdentity(resource: { metadata: { uid?: string } }, claim: { namespace: string; name: string; uid?: string }): string {
  return `${resource.metadata.uid ?? ''}/${claim.namespace}/${claim.name}/${claim.uid ?? ''}`;
}
