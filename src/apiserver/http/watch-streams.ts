/**
 * WatchStreams owns the open watch responses of the HTTP server: how many each user may hold
 * (a 429 past the limit), flow control of each response (a watch stops reading the store
 * while its socket is not drained), the clean drop of a watcher that fell too far behind,
 * and the clean end of every stream when the server stops (each gets its terminating chunk).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errors } from '../../machinery/errors.js';
import { endConnectionAfter, needsDrain, responseTransport } from './protocol.js';
import type { UserInfo } from '../rest/context.js';

export interface WatchStreamsOptions {
  /** Concurrent watches one user may hold over HTTP; 0 = unlimited. */
  maxPerUser: number;
  /** Members of these groups are not limited (default system:masters). */
  exemptGroups?: readonly string[];
  /**
   * How long a stream that was ended (dropped, timed out, server stopping) may take to hand
   * its last bytes to a client that does not read them, before its connection is cut.
   */
  lingerMs?: number;
}

export const DEFAULT_MAX_WATCHES_PER_USER = 200;
const DEFAULT_LINGER_MS = 30_000;

/** One open watch response. */
export class WatchResponse {
  private headerSent = false;
  private ended = false;
  private drainWaiters: (() => void)[] = [];
  private onEnd: (() => void)[] = [];

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly header: () => void,
    private readonly lingerMs: number,
  ) {
    const wake = () => this.wake();
    res.on('drain', wake);
    const closed = () => this.end();
    req.on('close', closed);
    res.on('close', closed);
  }

  /** Registers what to do once the stream has ended (stop the watch, release the slot). */
  whenEnded(fn: () => void): void {
    if (this.ended) fn();
    else this.onEnd.push(fn);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Sends the status line and headers if not yet sent. */
  ensureHeader(): void {
    if (this.headerSent || this.ended) return;
    this.headerSent = true;
    this.header();
  }

  write(line: string): void {
    if (this.ended) return;
    this.ensureHeader();
    this.res.write(line);
  }

  /** False while the response holds more than its high-water mark of unsent bytes. */
  flowing(): boolean {
    return this.ended || !needsDrain(this.res);
  }

  onDrain(cb: () => void): void {
    if (this.ended || !needsDrain(this.res)) {
      queueMicrotask(cb);
      return;
    }
    this.drainWaiters.push(cb);
  }

  /**
   * Ends the stream with its terminating chunk. A client that does not take the last bytes
   * within the linger time has its connection cut, so an ended stream holds no memory.
   */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const res = this.res;
    if (!res.writableEnded && !res.destroyed) {
      if (!this.headerSent) {
        this.headerSent = true;
        this.header();
      }
      res.end();
    }
    // What holds the unsent bytes: the connection (HTTP/1.1) or this response's stream (HTTP/2).
    const transport = responseTransport(res);
    if (transport && !transport.bytes.destroyed) {
      const bytes = transport.bytes;
      const linger = setTimeout(() => {
        if (bytes.writableLength > 0 || !res.writableFinished) transport.cut();
      }, this.lingerMs);
      linger.unref();
      const done = () => clearTimeout(linger);
      res.once('finish', () => {
        if (bytes.writableLength === 0) done();
        else bytes.once('drain', done);
      });
      bytes.once('close', done);
    }
    this.wake();
    const fns = this.onEnd;
    this.onEnd = [];
    for (const fn of fns) fn();
  }

  /**
   * The watch could not start: forget the stream, leaving a response with nothing sent yet
   * to the caller (which answers with a Status); one already started is ended.
   */
  abandon(): void {
    if (this.headerSent) {
      this.end();
      return;
    }
    this.ended = true;
    this.wake();
    const fns = this.onEnd;
    this.onEnd = [];
    for (const fn of fns) fn();
  }

  /** Resolves once the response's last bytes were handed to the socket (or it closed). */
  finished(): Promise<void> {
    const res = this.res;
    if (res.writableFinished || res.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      res.once('finish', () => resolve());
      res.once('close', () => resolve());
    });
  }

  /**
   * Closes the connection gracefully once the response went out (used when the server stops);
   * over HTTP/2 the listener's GOAWAY does it.
   */
  closeConnection(): void {
    endConnectionAfter(this.res);
  }

  private wake(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const cb of waiters) cb();
  }
}

export class WatchStreams {
  private readonly open = new Set<WatchResponse>();
  private readonly perUser = new Map<string, number>();
  private readonly exempt: ReadonlySet<string>;
  private stopping = false;

  constructor(private readonly o: WatchStreamsOptions) {
    if (!Number.isInteger(o.maxPerUser) || o.maxPerUser < 0) throw new Error(`the watch limit per user must be an integer ≥ 0 (got ${o.maxPerUser})`);
    this.exempt = new Set(o.exemptGroups ?? ['system:masters']);
  }

  /** Open watch responses. */
  get size(): number {
    return this.open.size;
  }

  /** Users holding at least one watch (entries are removed with their last watch). */
  get users(): number {
    return this.perUser.size;
  }

  /** True once the server is stopping: no new watch is started. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /**
   * Takes a watch slot for `user` and returns the response wrapper, or throws the 429 a
   * client should see when the user holds the most watches allowed.
   */
  start(user: UserInfo, req: IncomingMessage, res: ServerResponse, header: () => void): WatchResponse {
    if (this.stopping) throw new ApiError(503, 'ServiceUnavailable', 'the server is shutting down: watch again once it is back');
    const limited = this.o.maxPerUser > 0 && !user.groups.some((g) => this.exempt.has(g));
    const held = this.perUser.get(user.name) ?? 0;
    if (limited && held >= this.o.maxPerUser) {
      throw errors.tooManyRequests(
        `too many watches open for user "${user.name}": the limit is ${this.o.maxPerUser} concurrent watches per user (--max-watches-per-user); close some before opening more`,
        1,
      );
    }
    const stream = new WatchResponse(req, res, header, this.o.lingerMs ?? DEFAULT_LINGER_MS);
    this.open.add(stream);
    this.perUser.set(user.name, held + 1);
    stream.whenEnded(() => {
      this.open.delete(stream);
      const n = (this.perUser.get(user.name) ?? 1) - 1;
      if (n <= 0) this.perUser.delete(user.name);
      else this.perUser.set(user.name, n);
    });
    return stream;
  }

  /**
   * Ends every open watch with its terminating chunk (clients see a normal end of stream and
   * list again elsewhere or later) and refuses new ones; resolves when the last bytes went
   * out or after `graceMs`, then closes those connections gracefully.
   */
  async stop(graceMs = 5000): Promise<void> {
    this.stopping = true;
    const streams = [...this.open];
    for (const s of streams) s.end();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(streams.map((s) => s.finished())),
      new Promise<void>((r) => {
        timer = setTimeout(r, graceMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    for (const s of streams) s.closeConnection();
  }
}
