/**
 * The connection details of a Bucket claim: `endpoint bucket region accessKeyId
 * secretAccessKey` (docs/design.md 3.1).
 */
import type { ConnectionDetails } from '../../spi.js';
import { bucketSecretKeys } from './kinds.js';

/** A BucketEndpoint is everything a client needs to use one bucket. */
export interface BucketEndpoint {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** bucketDetails renders a bucket endpoint as the claim kind's connection details. */
export function bucketDetails(endpoint: BucketEndpoint): ConnectionDetails {
  return { ...endpoint };
}

/**
 * formatBucketConnection is the Bucket claim kind's connection formatter: it keeps exactly
 * the documented keys and throws when one is missing or the endpoint is not an http(s) URL.
 */
export function formatBucketConnection(details: ConnectionDetails): ConnectionDetails {
  const missing = bucketSecretKeys.filter((k) => !details[k]);
  if (missing.length > 0) {
    throw new Error(`Bucket connection details lack ${missing.join(', ')}: want ${bucketSecretKeys.join(', ')}`);
  }
  let url: URL;
  try {
    url = new URL(details.endpoint);
  } catch {
    throw new Error(`Bucket connection details have endpoint "${details.endpoint}": want an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Bucket connection details have endpoint "${details.endpoint}": want an http or https URL`);
  }
  return Object.fromEntries(bucketSecretKeys.map((k) => [k, details[k]]));
}
