/**
 * The matcher and configurator of S3Server for Bucket claims: whether a server (or a class
 * that would start one) can honour a claim's portable fields, and how a class template
 * becomes an S3Server spec.
 */
import { deepCopy, isPlainObject, type JsonObject } from '../../../machinery/object.js';
import type { KObject } from '../../../machinery/object.js';
import { doesNotFit, fits, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../../spi.js';
import { bucketClaimSpec, type S3Server } from './kinds.js';

/**
 * matchS3Server judges a Bucket claim against an S3Server or a class. s3rver keeps no object
 * versions, so a claim asking for versioning does not fit. It enforces no access control at
 * all (anonymous requests are served), so `publicRead` — true or false — is not honoured
 * beyond what s3rver does; the server is reachable only on 127.0.0.1.
 */
export function matchS3Server(claim: KObject, _candidate: MatchCandidate<S3Server>): MatchResult {
  const wanted = bucketClaimSpec(claim);
  if (wanted.versioning === true) return doesNotFit('s3rver does not keep object versions; versioning cannot be honoured');
  return fits;
}

/**
 * configureS3Server builds an S3Server spec from a class template: the template's spec with
 * the claim's capacity requests as capabilities.capacity and its region and tiers filling in
 * what the template leaves open.
 */
export function configureS3Server(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const requirements = bucketClaimSpec(claim).requirements;
  if (!requirements) return spec;
  const capabilities: JsonObject = isPlainObject(spec.capabilities) ? spec.capabilities : {};
  if (isPlainObject(requirements.capacity)) {
    const capacity: JsonObject = isPlainObject(capabilities.capacity) ? capabilities.capacity : {};
    for (const [resource, quantity] of Object.entries(requirements.capacity)) {
      if (typeof quantity === 'string' || typeof quantity === 'number') capacity[resource] = quantity;
    }
    capabilities.capacity = capacity;
  }
  for (const field of ['region', 'cost', 'performance'] as const) {
    const value = requirements[field];
    if (capabilities[field] === undefined && typeof value === 'string') capabilities[field] = value;
  }
  spec.capabilities = capabilities;
  return spec;
}
