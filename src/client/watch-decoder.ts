/**
 * Decoding of a watch response body: one JSON `{"type": ..., "object": ...}` event per
 * line, arriving in chunks that may split a line (or a character) anywhere.
 */
import type { KObject } from '../machinery/object.js';
import { isPlainObject } from '../machinery/object.js';
import type { WatchEvent, WatchEventType } from './types.js';

const eventTypes: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** A WatchDecodeError says which line of a watch stream was not a watch event. */
export class WatchDecodeError extends Error {
  /** Events of the same chunk that preceded the bad line (WatchDecoder fills it in). */
  decoded: WatchEvent[] = [];
  constructor(message: string) {
    super(message);
    this.name = 'WatchDecodeError';
  }
}

/** Decodes one line of a watch stream into an event; throws WatchDecodeError when it is not one. */
export function decodeWatchLine(line: string): WatchEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw new WatchDecodeError(`cannot decode watch event: ${(err as Error).message} in ${preview(line)}`);
  }
  if (!isPlainObject(parsed)) throw new WatchDecodeError(`cannot decode watch event: expected a JSON object, got ${preview(line)}`);
  const { type, object } = parsed;
  if (typeof type !== 'string' || !eventTypes.has(type)) {
    throw new WatchDecodeError(`cannot decode watch event: expected type ADDED, MODIFIED, DELETED, BOOKMARK or ERROR, got ${JSON.stringify(type)}`);
  }
  if (!isPlainObject(object)) throw new WatchDecodeError(`cannot decode watch event: ${type} event has no object`);
  return { type: type as WatchEventType, object: object as unknown as KObject };
}

function preview(line: string): string {
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
}

/**
 * A WatchDecoder turns the text chunks of a watch stream into events. Only the pending
 * partial line is kept between chunks, so a large object arriving in many chunks is joined
 * once. Blank lines are ignored; a trailing `\r` is dropped.
 */
export class WatchDecoder {
  private pending: string[] = [];

  /**
   * Feeds the next chunk; returns the events whose lines it completed. A bad line throws a
   * WatchDecodeError whose `decoded` holds the chunk's events before it.
   */
  push(chunk: string): WatchEvent[] {
    const events: WatchEvent[] = [];
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, nl);
      const line = this.pending.length ? this.pending.join('') + piece : piece;
      this.pending = [];
      start = nl + 1;
      this.decodeInto(line, events);
    }
    if (start < chunk.length) this.pending.push(chunk.slice(start));
    return events;
  }

  /** Ends the stream: a final line without a newline is decoded too. */
  end(): WatchEvent[] {
    const line = this.pending.join('');
    this.pending = [];
    const events: WatchEvent[] = [];
    this.decodeInto(line, events);
    return events;
  }

  private decodeInto(raw: string, events: WatchEvent[]): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    try {
      events.push(decodeWatchLine(line));
    } catch (err) {
      if (err instanceof WatchDecodeError) err.decoded = events;
      throw err;
    }
  }
}
