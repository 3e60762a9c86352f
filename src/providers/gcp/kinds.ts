/**
 * The `gcp` provider's kinds, each defined once (CRD, ResourceRef, TypeScript type):
 * - PubSubTopic (messaging.gcp.conductor.io): a Pub/Sub topic and its one subscription;
 *   implements MessageQueue claims;
 * - SpannerDatabase (database.gcp.conductor.io): a Spanner database in the PostgreSQL dialect,
 *   in an instance (an existing one, or one made for it); implements PostgreSQLInstance claims.
 * Claims get the project, the ids and the endpoint — and the Provider's application key when
 * its Secret has one — never the key Conductor manages with.
 */
import { s } from '../../apis/schema/builder.js';
import type { ObjectOf } from '../../apis/schema/kind.js';
import { postgresqlInstanceKind, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { MESSAGE_QUEUE_CONNECTION_KEYS, messageQueueKind } from '../../apis/messaging/kinds.js';
import { V1ALPHA1 } from '../../apis/well-known.js';
import type { GroupKind } from '../spi.js';
import { defineProviderKind } from '../kind-definition.js';
import { GCP_NAME_PATTERNS } from './names.js';
import { GCP_REGIONS } from './price-table.js';

export const GCP_MESSAGING_GROUP = 'messaging.gcp.conductor.io';
export const GCP_DATABASE_GROUP = 'database.gcp.conductor.io';

export const messageQueueClaimKind: GroupKind = { group: messageQueueKind.group, kind: messageQueueKind.kind };
export const postgresqlClaimKind: GroupKind = { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind };

/** What a MessageQueue claim's Secret holds from a PubSubTopic: the claim kind's keys, then Google's own. */
export const pubSubTopicSecretKeys = [...MESSAGE_QUEUE_CONNECTION_KEYS, 'projectId', 'topic', 'subscription', 'emulated', 'credentials'] as const;
/** What a PostgreSQLInstance claim's Secret holds from a SpannerDatabase. */
export const spannerDatabaseSecretKeys = [...SQL_CONNECTION_KEYS, 'projectId', 'instanceId', 'databaseId', 'emulated', 'credentials'] as const;

const id = (kind: keyof typeof GCP_NAME_PATTERNS, what: string, rule: string) =>
  s
    .string({ pattern: GCP_NAME_PATTERNS[kind] })
    .describe(
      `The ${what}: ${rule}. Default: the resource's name when Google accepts it, else one derived from its namespace and name (provisioned resources: from the claim's).`,
    )
    .optional();

const region = s
  .enumOf(GCP_REGIONS)
  .describe(
    "The Google Cloud region (e.g. europe-west1): the resource's capabilities.region and the region its price is looked up for. Default: the Provider's spec.region.",
  )
  .optional();

export const pubSubTopicKind = defineProviderKind({
  group: GCP_MESSAGING_GROUP,
  version: V1ALPHA1,
  kind: 'PubSubTopic',
  plural: 'pubsubtopics',
  shortNames: ['gcptopic'],
  description:
    'A PubSubTopic is a Google Cloud Pub/Sub topic with one subscription, in the project its Provider (type gcp) reaches. ' +
    'Both are created and deleted by id, so a create repeated after a crash finds them. ' +
    'For a MessageQueue claim, endpoint is the Pub/Sub endpoint (host:port), queue and topic the topic to publish to, subscription the subscription to receive from; ' +
    "credentials is the Provider's application key when its Secret has one (else empty: the application uses its own credentials, or the emulator needs none), never the key Conductor manages with.",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: messageQueueKind, portableKeys: MESSAGE_QUEUE_CONNECTION_KEYS, connectionSecretKeys: pubSubTopicSecretKeys }],
  fields: {
    forProvider: s
      .object({
        topicId: id('topic', 'topic id', '3 to 255 letters, digits and -_.~+%, beginning with a letter, not with goog'),
        subscriptionId: id(
          'subscription',
          "subscription id (default: the topic id and '-sub')",
          '3 to 255 letters, digits and -_.~+%, beginning with a letter, not with goog',
        ),
        messageRetentionSeconds: s
          .integer({ minimum: 600, maximum: 604800 })
          .withDefault(604800)
          .describe("How long the subscription keeps unacknowledged messages (10 minutes to 7 days); a MessageQueue claim's retentionSeconds sets it."),
        ackDeadlineSeconds: s
          .integer({ minimum: 10, maximum: 600 })
          .withDefault(10)
          .describe('How long a receiver has to acknowledge a message before it is delivered again.'),
        region,
      })
      .describe('The topic and subscription in Google Cloud.')
      .optional(),
  },
});
export type PubSubTopic = ObjectOf<typeof pubSubTopicKind>;

export const spannerDatabaseKind = defineProviderKind({
  group: GCP_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'SpannerDatabase',
  plural: 'spannerdatabases',
  shortNames: ['spanner'],
  description:
    'A SpannerDatabase is a Cloud Spanner database in the PostgreSQL dialect, in the project its Provider (type gcp) reaches, ' +
    'inside spec.forProvider.instanceId — an existing instance, or one Conductor creates (and deletes with the database under Delete, when no other database is left in it). ' +
    'Created and deleted by id; long-running operations are polled with backoff. ' +
    'For a PostgreSQLInstance claim, host and port are the Spanner endpoint, database the database id, username the application service account (empty without one), password empty (Spanner authenticates with tokens, not passwords), ' +
    "uri cloudspanner://host:port/projects/…/instances/…/databases/… (with ?autoConfigEmulator=true for an emulator), and credentials the Provider's application key when its Secret has one. Use a Spanner client, or PGAdapter for PostgreSQL drivers.",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: spannerDatabaseSecretKeys }],
  fields: {
    forProvider: s
      .object({
        instanceId: id('instance', 'Spanner instance id', '2 to 64 lower-case letters, digits and hyphens, beginning with a letter'),
        databaseId: id('database', 'database id', '2 to 30 lower-case letters, digits, _ and -, beginning with a letter'),
        instanceConfig: s
          .string({ pattern: '^[a-z][a-z0-9-]{1,62}$' })
          .describe(
            'The instance configuration of an instance Conductor creates (default regional-<region>; the emulator has emulator-config). Ignored for an existing instance.',
          )
          .optional(),
        processingUnits: s
          .integer({ minimum: 100, maximum: 100000 })
          .withDefault(100)
          .describe(
            'The compute capacity of an instance Conductor creates (100 to 1000 in hundreds, then in thousands; 1000 = 1 node), and what its price is worked out for.',
          ),
        region,
      })
      .describe('The database (and its instance) in Google Cloud.')
      .optional(),
  },
});
export type SpannerDatabase = ObjectOf<typeof spannerDatabaseKind>;

/** The gcp provider's ResourceRefs, by plural. */
export const gcpRefs = {
  pubsubtopics: pubSubTopicKind.ref,
  spannerdatabases: spannerDatabaseKind.ref,
} as const;
