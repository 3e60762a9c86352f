/**
 * messaging.conductor.io/v1alpha1 — MessageQueue (docs/design.md 3.1).
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineClaimKind } from '../common/claim.js';
import { V1ALPHA1 } from '../well-known.js';

export const MESSAGING_GROUP = 'messaging.conductor.io';

/** The keys every MessageQueue connection Secret has; providers add their credentials' keys. */
export const MESSAGE_QUEUE_CONNECTION_KEYS = ['endpoint', 'queue'] as const;

export const messageQueueKind = defineClaimKind({
  group: MESSAGING_GROUP,
  version: V1ALPHA1,
  kind: 'MessageQueue',
  plural: 'messagequeues',
  shortNames: ['mq'],
  description: 'A MessageQueue claims a message queue. Its connection Secret has the keys endpoint and queue, plus credentials.',
  connectionKeys: MESSAGE_QUEUE_CONNECTION_KEYS,
  portable: {
    fifo: s.boolean().describe('Deliver messages in the order they were sent, exactly once.').optional(),
    retentionSeconds: s.integer({ minimum: 0, format: 'int64' }).describe('How long undelivered messages are kept.').optional(),
  },
});
export type MessageQueue = ObjectOf<typeof messageQueueKind>;

export const messagingKinds = [messageQueueKind] as const;

export const messagingRefs = { messagequeues: messageQueueKind.ref } as const;
