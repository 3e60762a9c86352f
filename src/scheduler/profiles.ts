/**
 * Profile matching (docs/design.md 3.5, ProfileMatch): a claim naming a profile matches only
 * resources and classes of that profile; a claim naming none matches resources with no
 * profile and the default classes of its kind. The filter and the index share these.
 */
import type { ClaimInfo, ClassCandidate, ResourceCandidate } from './types.js';

/** The profile a claim asks for; '' when it names none. */
export function claimProfile(claim: ClaimInfo): string {
  return claim.resourceClass ?? '';
}

/** The profile a resource belongs to; '' when it has none. */
export function resourceProfile(c: ResourceCandidate): string {
  return c.profile ?? '';
}

/** The explanation text for resources outside the claim's profile. */
export function resourceProfileMismatch(claim: ClaimInfo): string {
  const p = claimProfile(claim);
  return p === '' ? 'in a profile (the claim names none)' : `not in profile ${JSON.stringify(p)}`;
}

/** classProfileMismatch is why a class does not match the claim's profile, or undefined when it does. */
export function classProfileMismatch(claim: ClaimInfo, c: ClassCandidate): string | undefined {
  const p = claimProfile(claim);
  if (p === '') return c.isDefault ? undefined : 'not a default class (the claim names no profile)';
  return c.profile === p ? undefined : `not in profile ${JSON.stringify(p)}`;
}
