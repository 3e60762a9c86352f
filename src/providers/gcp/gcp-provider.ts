/**
 * The running `gcp` provider: PubSubTopic and SpannerDatabase, whose connectors read the
 * Provider's credentials Secret and hand out an external client of the project, and `check`.
 * The Google SDKs (gRPC, protobufs: slow to load) are imported by the first connect or check,
 * not when the provider starts: a Conductor with no gcp Provider never loads them.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { checkGcp, specProject } from './check.js';
import { pubSubTopicClaims, spannerDatabaseClaims } from './claims.js';
import { gcpCredentialsFrom } from './credentials.js';
import { pubSubTopicKind, spannerDatabaseKind, type PubSubTopic, type SpannerDatabase } from './kinds.js';

/** A GcpProvider is the module the controllers use. */
export interface GcpProvider extends ProviderModule {
  readonly type: 'gcp';
}

/** pubSubTopicConcreteKind is the running PubSubTopic kind. */
export function pubSubTopicConcreteKind(): ConcreteKind<PubSubTopic> {
  return {
    ...kindNames(pubSubTopicKind),
    // The topic's id follows from the resource (annotation, spec or its own name).
    deterministicExternalNames: true,
    implements: pubSubTopicClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = gcpCredentialsFrom(context.credentials, specProject(context.provider));
        const { PubSubTopicClient } = await import('./pubsub-topic.js');
        context.signal?.throwIfAborted();
        return new PubSubTopicClient(credentials, context.provider);
      },
    },
  };
}

/** spannerDatabaseConcreteKind is the running SpannerDatabase kind. */
export function spannerDatabaseConcreteKind(): ConcreteKind<SpannerDatabase> {
  return {
    ...kindNames(spannerDatabaseKind),
    deterministicExternalNames: true,
    implements: spannerDatabaseClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = gcpCredentialsFrom(context.credentials, specProject(context.provider));
        const { SpannerDatabaseClient } = await import('./spanner-database.js');
        context.signal?.throwIfAborted();
        return new SpannerDatabaseClient(credentials, context.provider);
      },
    },
  };
}

/** createGcpProvider returns the running provider. */
export function createGcpProvider(): GcpProvider {
  return {
    type: 'gcp',
    kinds: [pubSubTopicConcreteKind(), spannerDatabaseConcreteKind()],
    // A class naming no Provider is placed on one of the gcp Providers (by region, cost, capacity).
    placedAcrossProviders: true,
    check: checkGcp,
  };
}
