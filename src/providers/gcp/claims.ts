/**
 * How PubSubTopic implements MessageQueue claims and SpannerDatabase implements
 * PostgreSQLInstance claims: matchers (what Google can offer of the claim's portable fields),
 * configurators (a class template plus the claim → a new resource's spec, its ids derived from
 * the claim) and connection formatters (the details → exactly the keys the kind publishes).
 */
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { exactConnectionKeys } from '../connection-keys.js';
import { pricedByConfiguring } from '../prices.js';
import { capabilitiesWithRequirements } from '../requirements.js';
import { pubSubTopicPrice, spannerDatabasePrice } from './claim-prices.js';
import { sqlClaimSpec } from '../sql-claim.js';
import { doesNotFit, fits, type ClaimImplementation, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../spi.js';
import {
  messageQueueClaimKind,
  postgresqlClaimKind,
  pubSubTopicSecretKeys,
  spannerDatabaseSecretKeys,
  type PubSubTopic,
  type SpannerDatabase,
} from './kinds.js';
import { claimGcpName } from './names.js';
import { isGcpRegion } from './price-table.js';

const claimSpec = (claim: KObject): JsonObject => (isPlainObject(claim.spec) ? (claim.spec as JsonObject) : {});
const MAX_RETENTION = 604800;
const MIN_RETENTION = 600;

/** matchPubSubTopic: Pub/Sub orders messages per ordering key only and may deliver twice, so fifo does not fit; retention is at most 7 days. */
export function matchPubSubTopic(claim: KObject, candidate: MatchCandidate<PubSubTopic>): MatchResult {
  const spec = claimSpec(claim);
  if (spec.fifo === true) return doesNotFit('Pub/Sub does not deliver first-in-first-out across a topic, nor exactly once by default (claim asks fifo)');
  const retention = spec.retentionSeconds;
  if (typeof retention === 'number' && retention > MAX_RETENTION)
    return doesNotFit(`Pub/Sub keeps messages at most ${MAX_RETENTION} s (claim asks ${retention} s)`);
  if (candidate.type === 'resource' && typeof retention === 'number') {
    const kept = candidate.resource.spec.forProvider?.messageRetentionSeconds ?? MAX_RETENTION;
    if (kept < retention) return doesNotFit(`subscription keeps messages ${kept} s, claim asks ${retention} s`);
  }
  return fits;
}

/**
 * matchSpannerDatabase: Spanner's PostgreSQL interface has no server version and no users,
 * so a claim asking a version or a masterUsername does not fit. databaseName is not used (the
 * database id is derived from the claim: ids are per instance, and an instance may be shared).
 */
export function matchSpannerDatabase(claim: KObject, _candidate: MatchCandidate<SpannerDatabase>): MatchResult {
  const spec = sqlClaimSpec(claim);
  if (spec.version !== undefined) return doesNotFit(`Spanner's PostgreSQL interface has no PostgreSQL server version (claim asks ${spec.version})`);
  if (spec.masterUsername !== undefined) return doesNotFit('Spanner has no database users: it authenticates service accounts (claim asks masterUsername)');
  return fits;
}

/** configured is the template's spec (a copy) with the claim's requirements and the region, written as capabilities.region too. */
function configured(claim: KObject, template: ResourceTemplate): { spec: JsonObject; forProvider: JsonObject } {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const forProvider: JsonObject = isPlainObject(spec.forProvider) ? deepCopy(spec.forProvider) : {};
  const templateRegion = isPlainObject(spec.capabilities) ? spec.capabilities.region : undefined;
  if (!isGcpRegion(forProvider.region) && isGcpRegion(templateRegion)) forProvider.region = templateRegion;
  const requirements = claimSpec(claim).requirements;
  const capabilities = capabilitiesWithRequirements(spec.capabilities, isPlainObject(requirements) ? requirements : undefined);
  if (isGcpRegion(forProvider.region)) capabilities.region = forProvider.region;
  spec.capabilities = capabilities;
  spec.forProvider = forProvider;
  return { spec, forProvider };
}

/** configurePubSubTopic: the topic (and so its subscription) named after the claim; the claim's retentionSeconds, at least 10 minutes. */
export function configurePubSubTopic(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template);
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  forProvider.topicId = claimGcpName('topic', ns, name);
  delete forProvider.subscriptionId;
  const retention = claimSpec(claim).retentionSeconds;
  if (typeof retention === 'number') forProvider.messageRetentionSeconds = Math.min(MAX_RETENTION, Math.max(MIN_RETENTION, retention));
  return spec;
}

/** configureSpannerDatabase: the database named after the claim, in the template's instance (else an instance named after the claim). */
export function configureSpannerDatabase(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template);
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  forProvider.databaseId = claimGcpName('database', ns, name);
  if (typeof forProvider.instanceId !== 'string' || forProvider.instanceId === '') forProvider.instanceId = claimGcpName('instance', ns, name);
  return spec;
}

export const pubSubTopicClaims: ClaimImplementation<PubSubTopic>[] = [
  {
    claimKind: messageQueueClaimKind,
    connectionSecretKeys: pubSubTopicSecretKeys,
    match: matchPubSubTopic,
    configure: configurePubSubTopic,
    price: pricedByConfiguring(configurePubSubTopic, pubSubTopicPrice),
    formatConnection: (details) => exactConnectionKeys('PubSubTopic', pubSubTopicSecretKeys, details),
  },
];

export const spannerDatabaseClaims: ClaimImplementation<SpannerDatabase>[] = [
  {
    claimKind: postgresqlClaimKind,
    connectionSecretKeys: spannerDatabaseSecretKeys,
    match: matchSpannerDatabase,
    configure: configureSpannerDatabase,
    price: pricedByConfiguring(configureSpannerDatabase, spannerDatabasePrice),
    formatConnection: (details) => exactConnectionKeys('SpannerDatabase', spannerDatabaseSecretKeys, details),
  },
];
