/**
 * messaging.local.conductor.io/v1alpha1 — the `local` provider's NATS kind (docs/design.md 3.2,
 * 3.7), defined once: CRD, ResourceRef and TypeScript type. NATSServer is a nats-server process
 * Conductor runs on this machine and shares between MessageQueue claims, each in an account of
 * its own with its own user.
 */
import type { KObject } from '../../../machinery/object.js';
import { s } from '../../../apis/schema/builder.js';
import type { ObjectOf } from '../../../apis/schema/kind.js';
import { MESSAGE_QUEUE_CONNECTION_KEYS, messageQueueKind, type MessageQueue } from '../../../apis/messaging/kinds.js';
import { V1ALPHA1 } from '../../../apis/well-known.js';
import type { GroupKind } from '../../spi.js';
import { defineProviderKind } from '../../kind-definition.js';

export const LOCAL_MESSAGING_GROUP = 'messaging.local.conductor.io';

/** The claim kind NATSServer implements. */
export const messageQueueClaim: GroupKind = { group: messageQueueKind.group, kind: messageQueueKind.kind };

/**
 * The connection secret keys of a MessageQueue claim on a NATSServer: the claim kind's
 * `endpoint queue` plus the credentials `username password`. `endpoint` is a `nats://host:port`
 * URL without credentials; `queue` is the claim's subject prefix.
 */
export const natsSecretKeys = ['endpoint', 'queue', 'username', 'password'] as const;

export const natsServerKind = defineProviderKind({
  group: LOCAL_MESSAGING_GROUP,
  version: V1ALPHA1,
  kind: 'NATSServer',
  plural: 'natsservers',
  shortNames: ['natsserver'],
  description:
    'A NATSServer is a nats-server process Conductor runs on this machine (127.0.0.1) and shares between MessageQueue claims: each bound claim gets an account and user of its own, allowed only its own subject prefix.',
  sharing: 'Shared',
  lifecycle: 'Managed',
  implements: [{ claim: messageQueueKind, portableKeys: MESSAGE_QUEUE_CONNECTION_KEYS, connectionSecretKeys: natsSecretKeys }],
  fields: {
    port: s.integer({ minimum: 1, maximum: 65535 }).describe('The client port (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    maxPayload: s.integer({ minimum: 1024, maximum: 67108864 }).describe('The largest message the server accepts, in bytes; 1 MiB when absent.').optional(),
  },
});
export type NATSServer = ObjectOf<typeof natsServerKind>;

/** The NATS kind's ResourceRef, by plural. */
export const natsRefs = { natsservers: natsServerKind.ref } as const;

/** The environment variable naming the nats-server program. */
export const natsBinEnv = 'CONDUCTOR_NATS_BIN';

/** The portable fields of a MessageQueue claim (an absent spec reads as empty). */
export type MessageQueueClaimSpec = Partial<MessageQueue['spec']>;

/** messageQueueClaimSpec reads a claim's spec as a MessageQueue spec (an absent spec is empty). */
export function messageQueueClaimSpec(claim: KObject): MessageQueueClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? spec : {};
}
