/**
 * The `gcp` provider's one value (`gcpProvider`): its kinds, defined in `kinds.ts`, and
 * `start`. Only the definitions load with this module; the Google SDKs load with the first use.
 */
import { defineProvider } from '../kind-definition.js';
import type { ProviderStartOptions } from '../spi.js';
import type { GcpProvider } from './gcp-provider.js';
import { cloudSqlInstanceKind, gcsBucketKind, memorystoreInstanceKind, pubSubTopicKind, spannerDatabaseKind } from './kinds.js';

/** The `gcp` provider: PubSubTopic, SpannerDatabase, CloudSQLInstance, MemorystoreInstance and GCSBucket, and `start` (createGcpProvider). */
export const gcpProvider = defineProvider({
  name: 'gcp',
  type: 'gcp',
  kinds: [pubSubTopicKind, spannerDatabaseKind, cloudSqlInstanceKind, memorystoreInstanceKind, gcsBucketKind],
  async start(_options: ProviderStartOptions): Promise<GcpProvider> {
    const { createGcpProvider } = await import('./gcp-provider.js');
    return createGcpProvider();
  },
});
