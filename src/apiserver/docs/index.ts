/**
 * The discovery, version and OpenAPI documents of the API server: pure builders over the
 * served ResourceTypes, cached until the served set changes. The HTTP layer maps routes to
 * these bodies and content types.
 */
export { ApiDocuments, type ApiDocumentsOptions, type OpenApiV2Protobuf, type OpenApiV3Answer, type OpenApiV3Index, type Serialized } from './api-documents.js';
export type {
  APIGroup,
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIGroupList,
  APIResource,
  APIResourceDiscovery,
  APIResourceList,
  APIVersionDiscovery,
  APIVersions,
} from './discovery.js';
export { storageVersionHash } from './discovery.js';
export {
  acceptsJson,
  discoveryContentType,
  DISCOVERY_V2_CONTENT_TYPE,
  etagMatches,
  DISCOVERY_V2BETA1_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  negotiateDiscovery,
  negotiateOpenApiV2,
  OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
  parseAccept,
  type DiscoveryFormat,
  type MediaRange,
  type OpenApiV2Format,
} from './negotiate.js';
export { PATCH_TYPES } from './operations.js';
export { schemaName } from './names.js';
export type { SchemaObject } from './meta-schemas.js';
export { compareVersionPriority } from './version-priority.js';
export { conductorGitVersion, KUBERNETES_COMPAT_VERSION, type VersionInfo } from './version-info.js';
