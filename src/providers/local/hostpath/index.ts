export { hostPathPoolKind, hostPathRefs, volumeClaim, volumeSecretKeys, localServer, parseMode, type HostPathPool } from './kinds.js';
export { hostPathPoolConcreteKind, hostPathPoolConnector, HostPathPoolClient, claimDirectory } from './host-path-pool.js';
export { formatVolumeConnection, volumeDetails } from './connection.js';
export { matchHostPathPool, configureHostPathPool } from './matchers.js';
export { measureUsage, type Usage } from './usage.js';
