export {
  LOCAL_MESSAGING_GROUP,
  natsServerKind,
  natsRefs,
  messageQueueClaim,
  natsSecretKeys,
  natsBinEnv,
  messageQueueClaimSpec,
  type NATSServer,
  type MessageQueueClaimSpec,
} from './kinds.js';
export { natsServerConcreteKind, NatsServerClient, natsShare, type NatsShare } from './nats-server.js';
export { NatsServers, natsLogin, type NatsServerStatus, type NatsServersOptions } from './nats-servers.js';
export { renderNatsConfig, claimPermissions, adminAccount, adminUser, type NatsClaimAccount, type NatsServerState, type NatsSettings } from './config.js';
export { resolveNatsBinary, parseNatsVersion, type NatsBinary } from './binaries.js';
export { formatNatsConnection, natsEndpoint } from './connection.js';
export { natsMatcher, configureNatsServer } from './matchers.js';
export { createNatsKinds, natsServersDirEnv, type NatsKinds, type NatsKindsOptions } from './nats-kinds.js';
