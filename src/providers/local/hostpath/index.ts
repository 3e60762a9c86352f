export {
  volumeClaim,
  volumeSecretKeys,
  localServer,
  parseMode,
  type HostPathPool,
  type HostPathPoolSpec,
} from './kinds.js';
export { hostPathPoolKind, hostPathPoolConnector, HostPathPoolClient, claimDirectory } from './host-path-pool.js';
export { formatVolumeConnection, volumeDetails } from './connection.js';
export { matchHostPathPool, configureHostPathPool } from './matchers.js';
export { measureUsage, type Usage } from './usage.js';
