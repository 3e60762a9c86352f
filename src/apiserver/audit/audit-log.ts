/**
 * An AuditLog appends one JSON line per entry to a file, asynchronously: entries wait in a
 * bounded buffer and one write at a time drains it. Recording never blocks or fails a
 * request; when the buffer is full (a slow or stuck disk) entries are dropped and counted,
 * and the count is logged. close() flushes what is buffered.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';

/** An AuditEntry is what is recorded about one request — never its body. */
export interface AuditEntry {
  time: string;
  requestId: string;
  user: string;
  groups: string[];
  verb: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The request path without its query. */
  path: string;
  method: string;
  /** The response status code (200 for a watch that started; 0 when the client left first). */
  code: number;
  latencyMs: number;
  sourceIP: string;
  userAgent: string;
}

/** A sink takes text to append; it resolves when the text is written. */
export type AuditSink = (text: string) => Promise<void>;

export interface AuditLogOptions {
  /** The most bytes buffered before entries are dropped (default 8 MiB). */
  maxBufferedBytes?: number;
  logger?: Logger;
}

export const DEFAULT_AUDIT_BUFFER_BYTES = 8 * 1024 * 1024;

export class AuditLog {
  private pending: string[] = [];
  private pendingBytes = 0;
  private writing: Promise<void> | undefined;
  private droppedTotal = 0;
  private droppedUnreported = 0;
  private closed = false;
  private readonly max: number;
  private readonly log: Logger | undefined;

  constructor(
    private readonly sink: AuditSink,
    opts: AuditLogOptions = {},
    private readonly closeSink: () => Promise<void> = async () => undefined,
  ) {
    this.max = opts.maxBufferedBytes ?? DEFAULT_AUDIT_BUFFER_BYTES;
    this.log = opts.logger;
  }

  /** Opens (creating, mode 0600) the file at `path` for appending. */
  static async toFile(path: string, opts: AuditLogOptions = {}): Promise<AuditLog> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    let fh: FileHandle;
    try {
      fh = await open(path, 'a', 0o600);
      // An existing log keeps its mode: make it private too (entries name users and resources).
      if (((await fh.stat()).mode & 0o077) !== 0) await fh.chmod(0o600);
    } catch (err) {
      throw new Error(`cannot open the audit log ${path}: ${(err as Error).message}`, { cause: err });
    }
    return new AuditLog(
      async (text) => {
        await fh.appendFile(text, 'utf8');
      },
      opts,
      () => fh.close(),
    );
  }

  /** Entries dropped because the buffer was full or a write failed. */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** Queues one entry; never throws, never waits. */
  record(entry: AuditEntry): void {
    if (this.closed) return;
    const line = `${JSON.stringify(entry)}\n`;
    if (this.pendingBytes + line.length > this.max) {
      this.droppedTotal++;
      this.droppedUnreported++;
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    this.writing ??= this.drain();
  }

  /** Writes everything buffered, then closes the file; later entries are ignored. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.writing) await this.writing;
    this.report();
    await this.closeSink();
  }

  private async drain(): Promise<void> {
    // Let the entries of this turn of the event loop gather into one write.
    await new Promise((r) => setImmediate(r));
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        const bytes = this.pendingBytes;
        this.pending = [];
        this.pendingBytes = 0;
        try {
          await this.sink(batch.join(''));
        } catch (err) {
          this.droppedTotal += batch.length;
          this.droppedUnreported += batch.length;
          this.log?.error({ err, entries: batch.length, bytes }, 'cannot write to the audit log');
        }
        this.report();
      }
    } finally {
      this.writing = undefined;
    }
  }

  private report(): void {
    if (this.droppedUnreported === 0) return;
    this.log?.warn({ dropped: this.droppedUnreported, droppedTotal: this.droppedTotal }, 'audit entries were dropped: the audit log cannot keep up');
    this.droppedUnreported = 0;
  }
}
