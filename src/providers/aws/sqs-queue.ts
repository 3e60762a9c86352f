/**
 * The external client of an SQSQueue: the queue, by name, in the account and region the
 * Provider's keys reach. observe is GetQueueUrl + GetQueueAttributes (a missing queue →
 * absent); create is CreateQueue, which SQS makes idempotent for the same name and attributes
 * (a queue an interrupted create made is found; one with other attributes is corrected by
 * update); update is SetQueueAttributes; delete is DeleteQueue (a gone queue is fine). A queue
 * deleted less than 60 seconds ago cannot be made again yet: create says so and is retried.
 */
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  SQSClient,
  type QueueAttributeName,
} from '@aws-sdk/client-sqs';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { claimDetails, claimKeys, clientConfig, queuePolicy } from './aws-clients.js';
import type { AwsCredentials } from './credentials.js';
import { AwsError, awsError, codeOf, isAbort } from './errors.js';
import type { SQSQueue } from './kinds.js';
import type { AwsRegion } from './price-table.js';
import { SQS_PRICE_NOTE } from './price-table.js';
import { externalNameOf, forProviderOf, regionOf } from './settings.js';

const MISSING = new Set(['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 'NonExistentQueue']);

/** sqsEndpointOf is the SQS endpoint a claim is given: the Secret's sqsEndpoint, else the region's. */
export function sqsEndpointOf(credentials: AwsCredentials, region: string): string {
  return credentials.endpoints.sqs ?? `https://sqs.${region}.amazonaws.com`;
}

interface Wanted {
  queue: string;
  region: AwsRegion;
  fifo: boolean;
  retention: number;
  visibility: number;
}

/** An SQSQueueClient is the ExternalClient of SQSQueues reached with one Provider's keys. */
export class SQSQueueClient implements ExternalClient<SQSQueue> {
  constructor(
    private readonly credentials: AwsCredentials,
    private readonly provider: KObject | undefined,
  ) {}

  private wanted(resource: SQSQueue): Wanted {
    const fp = forProviderOf(resource);
    const fifo = fp.fifo === true;
    const queue = externalNameOf(resource, 'queue', 'queueName', fifo);
    if (fifo !== queue.endsWith('.fifo')) {
      throw new AwsError(
        'InvalidParameter',
        fifo
          ? `queue name "${queue}" does not end in .fifo, and spec.forProvider.fifo is true`
          : `queue name "${queue}" ends in .fifo: set spec.forProvider.fifo`,
      );
    }
    return {
      queue,
      region: regionOf(resource, this.provider, `queue ${queue}`),
      fifo,
      retention: typeof fp.messageRetentionSeconds === 'number' ? fp.messageRetentionSeconds : 345_600,
      visibility: typeof fp.visibilityTimeoutSeconds === 'number' ? fp.visibilityTimeoutSeconds : 30,
    };
  }

  private client(region: string): SQSClient {
    return new SQSClient(clientConfig(this.credentials, region, 'sqs'));
  }

  private attributes(w: Wanted): Partial<Record<QueueAttributeName, string>> {
    return { MessageRetentionPeriod: String(w.retention), VisibilityTimeout: String(w.visibility) };
  }

  private async connectionDetails(w: Wanted, url: string, arn: string, signal?: AbortSignal): Promise<ConnectionDetails> {
    const keys = await claimKeys(this.credentials, w.region, { what: `queue ${w.queue}`, policy: queuePolicy(arn) }, signal);
    return {
      endpoint: sqsEndpointOf(this.credentials, w.region),
      queue: w.queue,
      queueUrl: url,
      queueArn: arn,
      region: w.region,
      accessKeyId: keys.accessKeyId,
      secretAccessKey: keys.secretAccessKey,
      sessionToken: keys.sessionToken,
      credentialsExpireAt: keys.expiresAt,
    };
  }

  async observe(resource: SQSQueue, options: CallOptions = {}): Promise<ExternalObservation> {
    const w = this.wanted(resource);
    const sqs = this.client(w.region);
    const abortSignal = options.signal;
    let url: string;
    try {
      url = (await sqs.send(new GetQueueUrlCommand({ QueueName: w.queue }), { abortSignal })).QueueUrl ?? '';
    } catch (err) {
      if (MISSING.has(codeOf(err) ?? '')) return { exists: false, upToDate: false };
      throw awsError(err, `read queue ${w.queue}`);
    }
    let attrs: Partial<Record<string, string>>;
    try {
      attrs = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }), { abortSignal })).Attributes ?? {};
    } catch (err) {
      if (MISSING.has(codeOf(err) ?? '')) return { exists: false, upToDate: false };
      throw awsError(err, `read the attributes of queue ${w.queue}`);
    }
    const differences: string[] = [];
    if (attrs.MessageRetentionPeriod !== String(w.retention))
      differences.push(`retention is ${attrs.MessageRetentionPeriod ?? 'unset'} s, spec wants ${w.retention}`);
    if (attrs.VisibilityTimeout !== String(w.visibility))
      differences.push(`visibility timeout is ${attrs.VisibilityTimeout ?? 'unset'} s, spec wants ${w.visibility}`);
    const arn = attrs.QueueArn ?? '';
    return {
      exists: true,
      upToDate: differences.length === 0,
      ...(differences.length > 0 ? { drift: differences.join('; ') } : {}),
      atProvider: {
        queueName: w.queue,
        queueUrl: url,
        queueArn: arn,
        region: w.region,
        fifo: attrs.FifoQueue === 'true',
        messageRetentionSeconds: Number(attrs.MessageRetentionPeriod ?? 0),
        approximateMessages: Number(attrs.ApproximateNumberOfMessages ?? 0),
        priceNote: SQS_PRICE_NOTE,
      },
      ...(await claimDetails(() => this.connectionDetails(w, url, arn, options.signal))),
    };
  }

  async create(resource: SQSQueue, options: CallOptions = {}): Promise<ExternalCreation> {
    const w = this.wanted(resource);
    try {
      await this.client(w.region).send(
        new CreateQueueCommand({ QueueName: w.queue, Attributes: { ...this.attributes(w), ...(w.fifo ? { FifoQueue: 'true' } : {}) } }),
        { abortSignal: options.signal },
      );
    } catch (err) {
      const code = codeOf(err);
      // A queue of that name with other attributes: found; observe reports the drift and update corrects it.
      if (code === 'QueueNameExists' || code === 'QueueAlreadyExists') return { externalName: w.queue };
      if (code === 'QueueDeletedRecently' || code === 'AWS.SimpleQueueService.QueueDeletedRecently') {
        throw awsError(err, `create queue ${w.queue} (SQS refuses a name deleted less than 60 seconds ago; retried)`);
      }
      throw awsError(err, `create queue ${w.queue}`);
    }
    return { externalName: w.queue };
  }

  async update(resource: SQSQueue, options: CallOptions = {}): Promise<ExternalUpdate> {
    const w = this.wanted(resource);
    const sqs = this.client(w.region);
    try {
      const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: w.queue }), { abortSignal: options.signal })).QueueUrl;
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: this.attributes(w) }), { abortSignal: options.signal });
    } catch (err) {
      throw awsError(err, `set the attributes of queue ${w.queue}`);
    }
    return {};
  }

  async delete(resource: SQSQueue, options: CallOptions = {}): Promise<void> {
    const w = this.wanted(resource);
    const sqs = this.client(w.region);
    try {
      const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: w.queue }), { abortSignal: options.signal })).QueueUrl;
      await sqs.send(new DeleteQueueCommand({ QueueUrl: url }), { abortSignal: options.signal });
    } catch (err) {
      if (isAbort(err)) throw err;
      if (MISSING.has(codeOf(err) ?? '')) return;
      throw awsError(err, `delete queue ${w.queue}`);
    }
  }
}
