import type { ResourceType } from '../registry/resource-type.js';
import { selfSubjectReviewResourceType } from './self-subject-review.js';

/** authenticationResourceTypes returns the ResourceTypes of authentication.k8s.io for the registry (discovery, OpenAPI). */
export function authenticationResourceTypes(): ResourceType[] {
  return [selfSubjectReviewResourceType()];
}
