/**
 * The running `gcp` provider: PubSubTopic, SpannerDatabase, CloudSQLInstance,
 * MemorystoreInstance and GCSBucket, whose connectors read the
 * Provider's credentials Secret and hand out an external client of the project, and `check`.
 * The Google SDKs (gRPC, protobufs: slow to load) are imported by the first connect or check,
 * not when the provider starts: a Conductor with no gcp Provider never loads them.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { checkGcp, specProject } from './check.js';
import { cloudSqlInstanceClaims, gcsBucketClaims, memorystoreInstanceClaims, pubSubTopicClaims, spannerDatabaseClaims } from './claims.js';
import { gcpCredentialsFrom } from './credentials.js';
import {
  cloudSqlInstanceKind,
  gcsBucketKind,
  memorystoreInstanceKind,
  pubSubTopicKind,
  spannerDatabaseKind,
  type CloudSQLInstance,
  type GCSBucket,
  type MemorystoreInstance,
  type PubSubTopic,
  type SpannerDatabase,
} from './kinds.js';

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

/** cloudSqlInstanceConcreteKind is the running CloudSQLInstance kind. */
export function cloudSqlInstanceConcreteKind(): ConcreteKind<CloudSQLInstance> {
  return {
    ...kindNames(cloudSqlInstanceKind),
    // The instance id follows from the resource (annotation, spec or its own name): recorded before create.
    deterministicExternalNames: true,
    implements: cloudSqlInstanceClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = gcpCredentialsFrom(context.credentials, specProject(context.provider));
        const { CloudSqlInstanceClient } = await import('./cloudsql-instance.js');
        context.signal?.throwIfAborted();
        return new CloudSqlInstanceClient(credentials, context.provider);
      },
    },
  };
}

/** memorystoreInstanceConcreteKind is the running MemorystoreInstance kind. */
export function memorystoreInstanceConcreteKind(): ConcreteKind<MemorystoreInstance> {
  return {
    ...kindNames(memorystoreInstanceKind),
    deterministicExternalNames: true,
    implements: memorystoreInstanceClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = gcpCredentialsFrom(context.credentials, specProject(context.provider));
        const { MemorystoreInstanceClient } = await import('./memorystore-instance.js');
        context.signal?.throwIfAborted();
        return new MemorystoreInstanceClient(credentials, context.provider);
      },
    },
  };
}

/** gcsBucketConcreteKind is the running GCSBucket kind. */
export function gcsBucketConcreteKind(): ConcreteKind<GCSBucket> {
  return {
    ...kindNames(gcsBucketKind),
    // The bucket's name follows from the resource and the project.
    deterministicExternalNames: true,
    implements: gcsBucketClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = gcpCredentialsFrom(context.credentials, specProject(context.provider));
        const { GcsBucketClient } = await import('./gcs-bucket.js');
        context.signal?.throwIfAborted();
        return new GcsBucketClient(credentials, context.provider);
      },
    },
  };
}

/** createGcpProvider returns the running provider. */
export function createGcpProvider(): GcpProvider {
  return {
    type: 'gcp',
    kinds: [
      pubSubTopicConcreteKind(),
      spannerDatabaseConcreteKind(),
      cloudSqlInstanceConcreteKind(),
      memorystoreInstanceConcreteKind(),
      gcsBucketConcreteKind(),
    ],
    // A class naming no Provider is placed on one of the gcp Providers (by region, cost, capacity).
    placedAcrossProviders: true,
    check: checkGcp,
  };
}
