/**
 * setupAuthentication builds what the API server needs to authenticate requests and to serve
 * this API: the ServiceAccount signing key (created on first start), an Authenticator for client
 * certificates, static tokens and ServiceAccount tokens, and the computed endpoints.
 */
import { isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { adminUser, Authenticator, ensureServiceAccountKey, ServiceAccountTokens, type ObjectLookup } from '../auth/index.js';
import type { CreateEndpoint } from '../http/dispatcher.js';
import type { ResourceRegistry } from '../registry/registry.js';
import type { ResourceType } from '../registry/resource-type.js';
import type { RestHandlers } from '../rest/handlers.js';
import { authenticationResourceTypes } from './resource-types.js';
import { selfSubjectReviewEndpoint } from './self-subject-review.js';
import { tokenRequestEndpoint } from './token-request.js';

/** AuthenticationSetupOptions are the inputs of setupAuthentication. */
export interface AuthenticationSetupOptions {
  dataDir: string;
  registry: ResourceRegistry;
  rest: RestHandlers;
  /** The admin bearer token (pki/admin.token). */
  adminToken: string;
  /** A static token file (--token-file). */
  tokenFile?: string;
  /** The ServiceAccount token issuer; DEFAULT_SERVICE_ACCOUNT_ISSUER when missing. */
  issuer?: string;
}

/** AuthenticationSetup is what the server wires in: an authenticator, endpoints and resource types. */
export interface AuthenticationSetup {
  authenticator: Authenticator;
  serviceAccountTokens: ServiceAccountTokens;
  endpoints: CreateEndpoint[];
  resourceTypes: ResourceType[];
}

/** setupAuthentication loads (or creates) the signing key and assembles authentication. */
export async function setupAuthentication(opts: AuthenticationSetupOptions): Promise<AuthenticationSetup> {
  const key = await ensureServiceAccountKey(opts.dataDir);
  const get = async (resource: 'serviceaccounts' | 'secrets', namespace: string, name: string): Promise<KObject> => {
    const rt = opts.registry.get('', 'v1', resource);
    if (!rt) throw new Error(`cannot look up ${resource}: the core/v1 ${resource} resource is not registered`);
    return (await opts.rest.get(rt, namespace, name)).obj();
  };
  // A deleted object, or one being deleted, no longer vouches for a token.
  const lookup: ObjectLookup = async (kind, namespace, name) => {
    try {
      const obj = await get(kind === 'ServiceAccount' ? 'serviceaccounts' : 'secrets', namespace, name);
      return obj.metadata.deletionTimestamp ? undefined : obj.metadata.uid;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const serviceAccountTokens = new ServiceAccountTokens({ key, lookup, ...(opts.issuer ? { issuer: opts.issuer } : {}) });
  const authenticator = new Authenticator({
    tokens: new Map([[opts.adminToken, adminUser()]]),
    tokenFile: opts.tokenFile,
    serviceAccountTokens,
  });
  return {
    authenticator,
    serviceAccountTokens,
    endpoints: [selfSubjectReviewEndpoint(), tokenRequestEndpoint({ tokens: serviceAccountTokens, get })],
    resourceTypes: authenticationResourceTypes(),
  };
}
