/**
 * The shapes of the local provider's NATS kind, as far as this provider reads them. The CRD
 * itself (and its full schema) lives in src/apis/local-messaging.
 */
import type { KObject } from '../../../machinery/object.js';
import type { GroupKind } from '../../spi.js';

export const localMessagingGroup = 'messaging.local.conductor.io';
export const localMessagingVersion = 'v1alpha1';

/** The claim kind NATSServer implements. */
export const messageQueueClaim: GroupKind = { group: 'messaging.conductor.io', kind: 'MessageQueue' };

/**
 * The connection secret keys of a MessageQueue claim on a NATSServer: the documented
 * `endpoint queue` (DESIGN.md 3.1) plus the credentials `username password`. `endpoint` is
 * a `nats://host:port` URL without credentials; `queue` is the claim's subject prefix.
 */
export const natsSecretKeys = ['endpoint', 'queue', 'username', 'password'] as const;

/** The environment variable naming the nats-server program. */
export const natsBinEnv = 'CONDUCTOR_NATS_BIN';

/** A NATSServerSpec asks for a nats-server process on this machine. */
export interface NATSServerSpec {
  port?: number;
  maxPayload?: number;
  [field: string]: unknown;
}

export interface NATSServer extends KObject {
  spec: NATSServerSpec;
  status?: { atProvider?: { version?: string; [field: string]: unknown }; [field: string]: unknown };
}

/** The portable fields of a MessageQueue claim this provider reads. */
export interface MessageQueueClaimSpec {
  fifo?: boolean;
  retentionSeconds?: number;
  requirements?: { capacity?: Record<string, string | number>; region?: string; cost?: string; performance?: string };
  [field: string]: unknown;
}

/** messageQueueClaimSpec reads a claim's spec as a MessageQueue spec (an absent spec is empty). */
export function messageQueueClaimSpec(claim: KObject): MessageQueueClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as MessageQueueClaimSpec) : {};
}
