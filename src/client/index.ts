/**
 * The client: how everything outside the API server reaches the API — the Client
 * interface and its HTTP implementation, kubeconfig loading, informers with indexed
 * caches, rate-limited work queues and Lease-based leader election.
 */
export * from './types.js';
export { HttpClient, reasonForCode } from './http-client.js';
export type { ApiResource, HttpClientOptions } from './http-client.js';
export {
  KubeconfigError,
  inClusterConfig,
  kubeconfigFromEnv,
  kubeconfigPathFromEnv,
  loadKubeconfig,
  parseKubeconfig,
  resolveKubeconfig,
  serviceAccountDir,
} from './kubeconfig.js';
export type { ClientConfig, Kubeconfig, KubeconfigCluster, KubeconfigContext, KubeconfigUser, ResolveOptions } from './kubeconfig.js';
export {
  collectionPath,
  deleteOptionsBody,
  groupVersionPath,
  listQuery,
  objectPath,
  patchQuery,
  watchQuery,
  withQuery,
  writeQuery,
} from './request-builder.js';
export type { DeleteOptionsBody } from './request-builder.js';
export { WatchDecodeError, WatchDecoder, decodeWatchLine } from './watch-decoder.js';
export { ObjectCache, keyOf, namespaceIndex, objectKey, splitKey } from './object-cache.js';
export type { IndexFunc } from './object-cache.js';
export { Informer } from './informer.js';
export { SharedInformers, cacheInformer } from './shared-informers.js';
export { dropUnreadFields, LAST_APPLIED_ANNOTATION } from './unread-fields.js';
export type { CacheInformer, SharedInformerScope, SharedInformersOptions } from './shared-informers.js';
export type { InformerHandlers, InformerOptions } from './informer.js';
export { ItemExponentialBackoff, MaxOfRateLimiter, TokenBucket, controllerRateLimiter } from './rate-limiter.js';
export type { ControllerRateLimiterOptions, RateLimiter } from './rate-limiter.js';
export { WorkQueue } from './work-queue.js';
export type { ReconcileResult, RunWorkersOptions, WorkHandler, WorkQueueMetrics, WorkQueueOptions, WorkQueueSeries, WorkResult } from './work-queue.js';
export { LeaderElector, leaseIsFree, microTime } from './leader-election.js';
export type { LeaderElectionOptions, Lease, LeaseSpec } from './leader-election.js';
export { errorMessage, silentLogger } from './logger.js';
export type { Logger } from './logger.js';
export { clientVersion, defaultUserAgent } from './version.js';
export { FakeClient } from './testing/index.js';
export type { FakeAction, FakeClientOptions } from './testing/index.js';
