/**
 * Events for humans (`kubectl describe`, `kubectl get events`): what a controller did to an
 * object, or why it could not. Repeats of one event (same object, type, reason and message)
 * are folded into one Event object whose `count` and `lastTimestamp` grow, so a controller
 * retrying a failure every few seconds does not flood the namespace.
 */
import { createHash } from 'node:crypto';
import { builtinRefs, type Client } from '../client/types.js';
import { errorMessage, silentLogger, type Logger } from '../client/logger.js';
import { isAlreadyExists, isConflict, isNotFound } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';

/** An EventType is the severity of an Event: routine, or worth a human's attention. */
export type EventType = 'Normal' | 'Warning';

/** RecordEventOptions tune one recordEvent call; every field is optional. */
export interface RecordEventOptions {
  /** The reporting component (`source.component`); default `conductor`. */
  component?: string;
  /** Where a failure to record is logged (recording never throws). */
  logger?: Logger;
  /** The clock; default the system's. */
  now?: () => Date;
}

/** The longest message an Event may carry (the API server rejects longer ones). */
export const EVENT_MESSAGE_LIMIT = 1024;
/** The longest reason an Event may carry. */
export const EVENT_REASON_LIMIT = 128;

const NAME_LIMIT = 253;
const HASH_LENGTH = 16;
const WRITE_ATTEMPTS = 5;

/** An EventKey is what makes two events repeats of each other. */
interface EventKey {
  namespace: string;
  name: string;
}

/**
 * eventName names the Event object that aggregates one (object, type, reason, message):
 * `<object name>.<16 hex digits of a hash>`, so every process that records the same event
 * finds the same object.
 */
export function eventName(obj: KObject, type: EventType, reason: string, message: string): string {
  const hash = createHash('sha256')
    .update([obj.apiVersion, obj.kind, obj.metadata.namespace ?? '', obj.metadata.name ?? '', obj.metadata.uid ?? '', type, reason, message].join('\u0000'))
    .digest('hex')
    .slice(0, HASH_LENGTH);
  const base = (obj.metadata.name ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, NAME_LIMIT - HASH_LENGTH - 1)
    .replace(/^[.-]+|[.-]+$/g, '');
  return `${base || 'object'}.${hash}`;
}

/** truncate shortens text to `limit` characters, marking the cut with an ellipsis. */
function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** timestamp formats a metav1.Time (RFC 3339, whole seconds). */
function timestamp(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

function eventKey(obj: KObject, name: string): EventKey {
  return { namespace: obj.metadata.namespace || 'default', name };
}

/**
 * recordEvent records a v1 Event about `obj` in its namespace (`default` for cluster-scoped
 * objects): a new Event with count 1, or, when the same event was recorded before, the
 * existing one with its count raised and lastTimestamp moved to now. It never throws: an
 * event that cannot be written is logged and dropped, because events are informational and
 * must not fail the work they describe.
 */
export async function recordEvent(
  client: Client,
  obj: KObject,
  type: EventType,
  reason: string,
  message: string,
  options: RecordEventOptions = {},
): Promise<void> {
  const log = options.logger ?? silentLogger;
  const now = timestamp((options.now ?? (() => new Date()))());
  const shortReason = truncate(reason, EVENT_REASON_LIMIT);
  const shortMessage = truncate(message, EVENT_MESSAGE_LIMIT);
  const key = eventKey(obj, eventName(obj, type, shortReason, shortMessage));
  const ref = builtinRefs.events;

  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    try {
      // Most events are new: create first, and read the existing one only when that fails.
      let existing: KObject | undefined;
      if (attempt > 1) {
        try {
          existing = await client.get<KObject>(ref, key.name, key.namespace);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      if (!existing) {
        await client.create(ref, {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: key.name, namespace: key.namespace },
          involvedObject: {
            apiVersion: obj.apiVersion,
            kind: obj.kind,
            ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
            name: obj.metadata.name ?? '',
            ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}),
          },
          type,
          reason: shortReason,
          message: shortMessage,
          source: { component: options.component ?? 'conductor' },
          count: 1,
          firstTimestamp: now,
          lastTimestamp: now,
        });
        return;
      }
      const count = typeof existing.count === 'number' && existing.count > 0 ? existing.count : 1;
      await client.update(ref, { ...existing, count: count + 1, lastTimestamp: now });
      return;
    } catch (err) {
      // Someone else wrote the same event meanwhile: read it again and add to it.
      if ((isAlreadyExists(err) || isConflict(err)) && attempt < WRITE_ATTEMPTS) continue;
      log.warn({ namespace: key.namespace, event: key.name, kind: obj.kind, name: obj.metadata.name, reason, err: errorMessage(err) }, 'cannot record event');
      return;
    }
  }
}
