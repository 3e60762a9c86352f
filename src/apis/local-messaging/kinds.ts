/**
 * messaging.local.conductor.io/v1alpha1 — the `local` provider's NATS kind (DESIGN 3.2,
 * 3.7): NATSServer, a nats-server process Conductor runs on this machine and shares between
 * MessageQueue claims, each in an account of its own with its own user.
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineConcreteKind } from '../common/concrete.js';
import { V1ALPHA1 } from '../well-known.js';

export const LOCAL_MESSAGING_GROUP = 'messaging.local.conductor.io';

/** The claim kinds NATSServer implements (CRD annotation conductor.io/implements). */
export const NATS_CLAIM_KINDS = ['messagequeues.messaging.conductor.io'];

export const natsServerKind = defineConcreteKind({
  group: LOCAL_MESSAGING_GROUP,
  version: V1ALPHA1,
  kind: 'NATSServer',
  plural: 'natsservers',
  shortNames: ['natsserver'],
  description:
    'A NATSServer is a nats-server process Conductor runs on this machine (127.0.0.1) and shares between MessageQueue claims: each bound claim gets an account and user of its own, allowed only its own subject prefix.',
  implements: NATS_CLAIM_KINDS,
  sharingDefault: { mode: 'Shared' },
  fields: {
    port: s.integer({ minimum: 1, maximum: 65535 }).describe('The client port (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    maxPayload: s.integer({ minimum: 1024, maximum: 67108864 }).describe('The largest message the server accepts, in bytes; 1 MiB when absent.').optional(),
  },
});
export type NATSServer = ObjectOf<typeof natsServerKind>;

export const localMessagingKinds = [natsServerKind] as const;

export const localMessagingRefs = { natsservers: natsServerKind.ref } as const;
