/**
 * The external client of a PubSubTopic: a topic and its one subscription, by id, in the
 * project the Provider's credentials reach. Every call is bounded and honours
 * CallOptions.signal, and is idempotent: create finds a topic or subscription an earlier,
 * interrupted create made (ALREADY_EXISTS is done); delete of a gone one succeeds.
 */
import type { PubSub } from '@google-cloud/pubsub';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { pubSubOf } from './clients.js';
import { endpointText, type GcpCredentials } from './credentials.js';
import { bounded, gcpError, GRPC, grpcCodeOf } from './errors.js';
import type { PubSubTopic } from './kinds.js';
import { checkedGcpName } from './names.js';
import { PUBSUB_PRICES } from './price-table.js';
import { priceStatus, pubSubMonthlyPrice } from './prices.js';
import { externalOrNamed, forProviderOf, integerOr, regionOf, sizeOf } from './settings.js';

/** How long one Pub/Sub call may take before it counts as unanswered. */
const CALL_MS = 60_000;

interface TopicSettings {
  topic: string;
  subscription: string;
  retentionSeconds: number;
  ackDeadlineSeconds: number;
}

/** topicSettings reads the ids and the subscription's settings off a resource. */
export function topicSettings(resource: KObject): TopicSettings {
  const topic = externalOrNamed(resource, 'topic', 'topicId');
  const fp = forProviderOf(resource);
  const named = typeof fp.subscriptionId === 'string' && fp.subscriptionId !== '' ? fp.subscriptionId : `${topic}-sub`;
  return {
    topic,
    subscription: checkedGcpName('subscription', named),
    retentionSeconds: integerOr(fp.messageRetentionSeconds, 600, 604800, 604800),
    ackDeadlineSeconds: integerOr(fp.ackDeadlineSeconds, 10, 600, 10),
  };
}

const seconds = (d: unknown): number | undefined => {
  const s = typeof d === 'object' && d !== null ? (d as { seconds?: unknown }).seconds : undefined;
  return s === undefined || s === null ? undefined : Number(s);
};

/** A PubSubTopicClient is the ExternalClient of PubSubTopics of one project. */
export class PubSubTopicClient implements ExternalClient<PubSubTopic> {
  private readonly pubsub: PubSub;

  constructor(
    private readonly credentials: GcpCredentials,
    private readonly provider: KObject | undefined,
  ) {
    this.pubsub = pubSubOf(credentials);
  }

  /** connectionDetails are a claim's keys: where the topic and subscription are, and the application key if any. */
  connectionDetails(s: TopicSettings): ConnectionDetails {
    return {
      endpoint: endpointText(this.credentials.pubsub),
      queue: s.topic,
      projectId: this.credentials.projectId,
      topic: s.topic,
      subscription: s.subscription,
      emulated: String(this.credentials.pubsub.emulator),
      credentials: this.credentials.applicationCredentials ?? '',
    };
  }

  private async subscriptionMetadata(s: TopicSettings, signal?: AbortSignal) {
    try {
      const [metadata] = await bounded(this.pubsub.subscription(s.subscription).getMetadata(), CALL_MS, signal);
      return metadata;
    } catch (err) {
      if (grpcCodeOf(err) === GRPC.NOT_FOUND) return undefined;
      throw gcpError(err, `read subscription ${s.subscription}`);
    }
  }

  async observe(resource: PubSubTopic, options: CallOptions = {}): Promise<ExternalObservation> {
    const s = topicSettings(resource);
    try {
      await bounded(this.pubsub.topic(s.topic).getMetadata(), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) === GRPC.NOT_FOUND) return { exists: false, upToDate: false };
      throw gcpError(err, `read topic ${s.topic}`);
    }
    const sub = await this.subscriptionMetadata(s, options.signal);
    const region = regionOf(resource, this.provider);
    const atProvider = {
      topic: `projects/${this.credentials.projectId}/topics/${s.topic}`,
      subscription: `projects/${this.credentials.projectId}/subscriptions/${s.subscription}`,
      ...(region ? { region } : {}),
      ...priceStatus(pubSubMonthlyPrice(PUBSUB_PRICES, sizeOf(resource))),
    };
    const details = this.connectionDetails(s);
    if (!sub) return { exists: true, upToDate: false, drift: `subscription ${s.subscription} is missing`, atProvider, connectionDetails: details };
    const drift: string[] = [];
    if (sub.topic && !String(sub.topic).endsWith(`/topics/${s.topic}`)) drift.push(`subscription ${s.subscription} is attached to another topic`);
    if (sub.ackDeadlineSeconds !== undefined && sub.ackDeadlineSeconds !== null && sub.ackDeadlineSeconds !== s.ackDeadlineSeconds) {
      drift.push(`ackDeadlineSeconds is ${sub.ackDeadlineSeconds}, want ${s.ackDeadlineSeconds}`);
    }
    const retention = seconds(sub.messageRetentionDuration);
    if (retention !== undefined && retention !== s.retentionSeconds) drift.push(`message retention is ${retention} s, want ${s.retentionSeconds} s`);
    return {
      exists: true,
      upToDate: drift.length === 0,
      ...(drift.length > 0 ? { drift: drift.join('; ') } : {}),
      atProvider,
      connectionDetails: details,
    };
  }

  private async ensureSubscription(s: TopicSettings, signal?: AbortSignal): Promise<void> {
    try {
      await bounded(
        this.pubsub.topic(s.topic).createSubscription(s.subscription, {
          ackDeadlineSeconds: s.ackDeadlineSeconds,
          messageRetentionDuration: { seconds: s.retentionSeconds },
        }),
        CALL_MS,
        signal,
      );
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.ALREADY_EXISTS) throw gcpError(err, `create subscription ${s.subscription}`);
    }
  }

  async create(resource: PubSubTopic, options: CallOptions = {}): Promise<ExternalCreation> {
    const s = topicSettings(resource);
    try {
      await bounded(this.pubsub.createTopic(s.topic), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.ALREADY_EXISTS) throw gcpError(err, `create topic ${s.topic}`);
    }
    await this.ensureSubscription(s, options.signal);
    return { externalName: s.topic, connectionDetails: this.connectionDetails(s) };
  }

  async update(resource: PubSubTopic, options: CallOptions = {}): Promise<ExternalUpdate> {
    const s = topicSettings(resource);
    const sub = await this.subscriptionMetadata(s, options.signal);
    if (!sub) await this.ensureSubscription(s, options.signal);
    else {
      try {
        await bounded(
          this.pubsub.subscription(s.subscription).setMetadata({
            ackDeadlineSeconds: s.ackDeadlineSeconds,
            messageRetentionDuration: { seconds: s.retentionSeconds },
          }),
          CALL_MS,
          options.signal,
        );
      } catch (err) {
        throw gcpError(err, `update subscription ${s.subscription}`);
      }
    }
    return { connectionDetails: this.connectionDetails(s) };
  }

  async delete(resource: PubSubTopic, options: CallOptions = {}): Promise<void> {
    const s = topicSettings(resource);
    // The subscription first: deleting a topic leaves its subscriptions behind, detached.
    try {
      await bounded(this.pubsub.subscription(s.subscription).delete(), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.NOT_FOUND) throw gcpError(err, `delete subscription ${s.subscription}`);
    }
    try {
      await bounded(this.pubsub.topic(s.topic).delete(), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.NOT_FOUND) throw gcpError(err, `delete topic ${s.topic}`);
    }
  }

  async close(): Promise<void> {
    await this.pubsub.close().catch(() => undefined);
  }
}
