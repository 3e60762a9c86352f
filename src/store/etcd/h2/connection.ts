/**
 * H2Connection: one HTTP/2 client connection (h2c, or TLS with ALPN "h2") for unary requests:
 * each request is one HEADERS frame and its body, the answer headers, data and trailers handed
 * to the request's `StreamHandler`. It keeps to RFC 9113 for what a client of etcd meets:
 * SETTINGS (applied and acknowledged), PING (answered), GOAWAY (no new streams, those above
 * the peer's last stream fail as refused), WINDOW_UPDATE and both directions' flow control,
 * RST_STREAM, CONTINUATION, padding, the peer's concurrent-stream limit. Header blocks are
 * decoded with one HPACK table for the connection (`hpack.ts`).
 *
 * It exists because node:http2's per-request layers (an AsyncResource bound per request with
 * its deprecation wrappers, header validation and copying, stream objects with their event
 * emitters) were most of what a unary call to etcd cost the server (src/store/etcd/README.md).
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { HpackDecoder, HpackError, type HeaderField } from './hpack.js';
import {
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_WINDOW,
  ErrorCode,
  Flag,
  FRAME_HEADER_BYTES,
  FrameError,
  FrameReader,
  FrameType,
  MAX_WINDOW,
  PREFACE,
  Setting,
  goawayFrame,
  rstStreamFrame,
  settingsFrame,
  windowUpdateFrame,
  writeFrameHeader,
  type Frame,
} from './frames.js';

/** What happens to one request's stream. Exactly one of end, reset and failed ends it. */
export interface StreamHandler {
  /** A header block (the answer's headers, or its trailers when `endStream`). */
  headers(fields: HeaderField[], endStream: boolean): void;
  data(chunk: Buffer): void;
  /** The peer ended the stream after the last headers or data. */
  end(): void;
  /** The peer reset the stream with an HTTP/2 error code. */
  reset(code: number): void;
  /**
   * The connection failed before the stream ended: `connected` says whether it had been
   * established (a request on it may have been sent).
   */
  failed(err: Error, connected: boolean): void;
}

/** TLS material for an https:// peer. */
export interface ConnectionTls {
  ca?: Buffer | null;
  cert?: Buffer | null;
  key?: Buffer | null;
}

/** How long a PING's acknowledgement waits for a request to go out with (`answerPing`). */
const PING_ACK_DELAY_MS = 10;

/**
 * The largest header block (HEADERS and its CONTINUATIONs) taken from the peer: etcd's are a
 * few hundred bytes (a gRPC error's message in the trailers at most a few KB). A block past it
 * is a connection error, so a broken peer's endless CONTINUATIONs cannot grow our memory.
 */
export const MAX_HEADER_BLOCK_BYTES = 1024 * 1024;

/** Our receive windows: answers (a list's page) can be megabytes. */
const STREAM_WINDOW = 8 * 1024 * 1024;
const CONNECTION_WINDOW = 16 * 1024 * 1024;

interface Stream {
  id: number;
  handler: StreamHandler;
  /** The request's frames not sent yet for lack of window: its body from `offset`. */
  body: Buffer;
  offset: number;
  sendWindow: number;
  /** Bytes received and not yet given back with a WINDOW_UPDATE. */
  unacked: number;
  ended: boolean;
}

/** A request not started: the peer's concurrent-stream limit was reached. */
interface Waiting {
  headerBlock: Buffer;
  body: Buffer;
  handler: StreamHandler;
  handle: RequestHandle;
}

/** What request() returns: cancel resets the stream (or drops the request when it waits). */
export interface RequestHandle {
  cancel(): void;
}

export class H2Connection {
  private readonly socket: net.Socket;
  private readonly reader = new FrameReader(DEFAULT_MAX_FRAME_SIZE);
  private readonly decoder = new HpackDecoder();
  private readonly streams = new Map<number, Stream>();
  private readonly waiting: Waiting[] = [];
  /** Streams whose bodies wait for window, in the order they asked. */
  private readonly blocked = new Set<Stream>();
  private nextStreamId = 1;
  private connected = false;
  /** No new streams (GOAWAY received or sent, ids exhausted, closed). */
  private draining = false;
  private ended = false;
  // The peer's settings and our send windows.
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrameSize = DEFAULT_MAX_FRAME_SIZE;
  private peerMaxStreams = Infinity;
  private sendWindow = DEFAULT_WINDOW;
  /** Connection-level bytes received and not yet given back. */
  private unacked = 0;
  /** A header block being continued (CONTINUATION frames): its stream, flags and pieces. */
  private continuing: { streamId: number; endStream: boolean; pieces: Buffer[]; bytes: number } | undefined;
  /** Output gathered during one turn, written at once (`flush`). */
  private corked = false;
  private flushScheduled = false;
  /** PING acknowledgements waiting for the next request's write (`answerPing`). */
  private readonly pingAcks: Buffer[] = [];
  private pingAckTimer: NodeJS.Timeout | undefined;

  constructor(
    /** `http://host:port` or `https://host:port`. */
    origin: string,
    tlsOptions: ConnectionTls | undefined,
    /** Told once when the connection can take no new requests (it ended, or the peer is going away). */
    private readonly onUnusable: (err: Error | undefined) => void,
  ) {
    const { hostname, port } = new URL(origin);
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    this.socket = tlsOptions
      ? tls.connect({
          host,
          port: Number(port),
          ...(net.isIP(host) ? {} : { servername: host }),
          ALPNProtocols: ['h2'],
          ca: tlsOptions.ca ?? undefined,
          cert: tlsOptions.cert ?? undefined,
          key: tlsOptions.key ?? undefined,
        })
      : net.connect({ host, port: Number(port) });
    // Small writes must not wait for the ACK of the one before (Nagle against delayed ACKs).
    this.socket.setNoDelay(true);
    this.socket.once(tlsOptions ? 'secureConnect' : 'connect', () => {
      if (tlsOptions && (this.socket as tls.TLSSocket).alpnProtocol !== 'h2') {
        this.fail(new Error(`${origin} did not agree to HTTP/2 in the TLS handshake (ALPN "h2")`));
        return;
      }
      this.connected = true;
    });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('the connection closed')));
    // An idle connection does not keep the process alive (callers' timers do while they wait).
    this.socket.unref();
    this.write(PREFACE);
    this.write(
      settingsFrame([
        [Setting.enablePush, 0],
        [Setting.initialWindowSize, STREAM_WINDOW],
      ]),
    );
    this.write(windowUpdateFrame(0, CONNECTION_WINDOW - DEFAULT_WINDOW));
  }

  /** usable is false once the connection takes no new requests. */
  get usable(): boolean {
    return !this.draining && !this.ended;
  }

  /** wasConnected says whether the connection was ever established. */
  get wasConnected(): boolean {
    return this.connected;
  }

  /**
   * request starts a stream: `headerBlock` (HPACK-encoded request headers), then `body` with
   * END_STREAM. The handler hears what comes back.
   */
  request(headerBlock: Buffer, body: Buffer, handler: StreamHandler): RequestHandle {
    if (!this.usable) {
      const err = new Error(this.ended ? 'the connection ended' : 'the connection is going away');
      queueMicrotask(() => handler.failed(err, this.connected));
      return { cancel: () => undefined };
    }
    if (this.streams.size >= this.peerMaxStreams) {
      const waiting: Waiting = { headerBlock, body, handler, handle: { cancel: () => undefined } };
      waiting.handle.cancel = () => {
        const i = this.waiting.indexOf(waiting);
        if (i >= 0) this.waiting.splice(i, 1);
      };
      this.waiting.push(waiting);
      return waiting.handle;
    }
    return this.start(headerBlock, body, handler);
  }

  /** close ends the connection; streams on their way fail. */
  close(): void {
    this.fail(new Error('the client closed the connection'));
  }

  private start(headerBlock: Buffer, body: Buffer, handler: StreamHandler): RequestHandle {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    if (this.nextStreamId > MAX_WINDOW) this.goingAway();
    const stream: Stream = { id, handler, body, offset: 0, sendWindow: this.peerInitialWindow, unacked: 0, ended: false };
    this.streams.set(id, stream);
    if (this.pingAcks.length > 0) this.writePingAcks();
    this.writeHeaders(id, headerBlock, body.length === 0);
    if (body.length > 0) this.sendBody(stream);
    return {
      cancel: () => {
        if (this.streams.get(id) !== stream) return;
        this.forget(stream);
        if (!this.ended) this.write(rstStreamFrame(id, ErrorCode.cancel));
      },
    };
  }

  /** writeHeaders sends a header block, in CONTINUATION frames beyond the peer's frame size. */
  private writeHeaders(id: number, block: Buffer, endStream: boolean): void {
    const max = this.peerMaxFrameSize;
    let offset = 0;
    let first = true;
    do {
      const size = Math.min(max, block.length - offset);
      const last = offset + size >= block.length;
      const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + size);
      const flags = (last ? Flag.endHeaders : 0) | (first && endStream ? Flag.endStream : 0);
      writeFrameHeader(out, 0, size, first ? FrameType.headers : FrameType.continuation, flags, id);
      block.copy(out, FRAME_HEADER_BYTES, offset, offset + size);
      this.write(out);
      offset += size;
      first = false;
    } while (offset < block.length);
  }

  /** sendBody sends what the windows allow of a stream's body; the rest waits for WINDOW_UPDATE. */
  private sendBody(stream: Stream): void {
    while (stream.offset < stream.body.length) {
      const size = Math.min(stream.body.length - stream.offset, stream.sendWindow, this.sendWindow, this.peerMaxFrameSize);
      if (size <= 0) {
        this.blocked.add(stream);
        return;
      }
      const last = stream.offset + size === stream.body.length;
      const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + size);
      writeFrameHeader(out, 0, size, FrameType.data, last ? Flag.endStream : 0, stream.id);
      stream.body.copy(out, FRAME_HEADER_BYTES, stream.offset, stream.offset + size);
      this.write(out);
      stream.offset += size;
      stream.sendWindow -= size;
      this.sendWindow -= size;
    }
    this.blocked.delete(stream);
    stream.body = EMPTY;
    stream.offset = 0;
  }

  /**
   * flush writes what was written so far in this turn of the event loop now, instead of at
   * its end: for a call made once the turn's I/O is over (in a setImmediate), whose bytes would
   * otherwise wait for the next turn.
   */
  flush(): void {
    if (!this.corked) return;
    this.corked = false;
    this.socket.uncork();
  }

  private write(bytes: Buffer): void {
    if (this.ended) return;
    // Everything written in one turn of the event loop goes out in one write (at its end, in
    // setImmediate): the calls made by all the requests read in one poll, with their frames.
    // Each write wakes etcd's reader; node:http2 also writes once per turn.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flushTurn);
      }
    }
    this.socket.write(bytes);
  }

  private readonly flushTurn = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  // ---- reading ----

  private read(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
      for (const f of frames) this.frame(f);
    } catch (err) {
      const code = err instanceof FrameError ? err.code : err instanceof HpackError ? ErrorCode.compressionError : ErrorCode.protocolError;
      this.protocolError(code, err as Error);
    }
  }

  private frame(f: Frame): void {
    if (this.continuing && f.type !== FrameType.continuation) {
      throw new FrameError(ErrorCode.protocolError, `a ${f.type} frame in the middle of a header block`);
    }
    switch (f.type) {
      case FrameType.data:
        return this.onData(f);
      case FrameType.headers:
        return this.onHeaders(f);
      case FrameType.continuation:
        return this.onContinuation(f);
      case FrameType.rstStream:
        return this.onReset(f);
      case FrameType.settings:
        return this.onSettings(f);
      case FrameType.ping:
        if (f.streamId !== 0 || f.payload.length !== 8) throw new FrameError(ErrorCode.protocolError, 'a malformed PING');
        if ((f.flags & Flag.ack) === 0) this.answerPing(f.payload);
        return;
      case FrameType.goaway:
        return this.onGoaway(f);
      case FrameType.windowUpdate:
        return this.onWindowUpdate(f);
      case FrameType.pushPromise:
        throw new FrameError(ErrorCode.protocolError, 'a PUSH_PROMISE, though push was disabled');
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113, 4.1 and 5.3.2).
        return;
    }
  }

  /**
   * answerPing acknowledges a PING with the next request's bytes, or after PING_ACK_DELAY_MS
   * when no request comes first. etcd (grpc-go's bandwidth estimator) pings after every answer
   * that follows an acknowledgement — once per round of calls — and an acknowledgement written
   * alone is one more write here and one more wake-up and read for etcd per round. RFC 9113
   * asks that PING be answered with priority (SHOULD); a few milliseconds are well within what
   * etcd's keepalive allows (20 s by default).
   */
  private answerPing(payload: Buffer): void {
    const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 8);
    writeFrameHeader(out, 0, 8, FrameType.ping, Flag.ack, 0);
    payload.copy(out, FRAME_HEADER_BYTES);
    this.pingAcks.push(out);
    if (!this.pingAckTimer) {
      this.pingAckTimer = setTimeout(this.writePingAcks, PING_ACK_DELAY_MS);
      this.pingAckTimer.unref();
    }
  }

  private readonly writePingAcks = (): void => {
    if (this.pingAckTimer) {
      clearTimeout(this.pingAckTimer);
      this.pingAckTimer = undefined;
    }
    const acks = this.pingAcks.splice(0);
    for (const ack of acks) this.write(ack);
  };

  private onData(f: Frame): void {
    if (f.streamId === 0) throw new FrameError(ErrorCode.protocolError, 'a DATA frame on stream 0');
    // Flow control counts the whole payload, padding included, even for a stream we let go.
    this.unacked += f.payload.length;
    if (this.unacked >= CONNECTION_WINDOW / 2) {
      this.write(windowUpdateFrame(0, this.unacked));
      this.unacked = 0;
    }
    const stream = this.streams.get(f.streamId);
    if (!stream) return;
    const data = unpad(f);
    stream.unacked += f.payload.length;
    const endStream = (f.flags & Flag.endStream) !== 0;
    if (!endStream && stream.unacked >= STREAM_WINDOW / 2) {
      this.write(windowUpdateFrame(stream.id, stream.unacked));
      stream.unacked = 0;
    }
    if (data.length > 0) stream.handler.data(data);
    if (endStream) this.endStream(stream);
  }

  private onHeaders(f: Frame): void {
    if (f.streamId === 0) throw new FrameError(ErrorCode.protocolError, 'a HEADERS frame on stream 0');
    let block = unpad(f);
    if (f.flags & Flag.priority) {
      if (block.length < 5) throw new FrameError(ErrorCode.frameSizeError, 'a HEADERS frame too short for its priority');
      block = block.subarray(5);
    }
    const endStream = (f.flags & Flag.endStream) !== 0;
    if (f.flags & Flag.endHeaders) this.headerBlock(f.streamId, block, endStream);
    else this.continuing = { streamId: f.streamId, endStream, pieces: [Buffer.from(block)], bytes: block.length };
  }

  private onContinuation(f: Frame): void {
    const c = this.continuing;
    if (!c || c.streamId !== f.streamId) throw new FrameError(ErrorCode.protocolError, 'a CONTINUATION frame that continues no header block');
    c.bytes += f.payload.length;
    if (c.bytes > MAX_HEADER_BLOCK_BYTES) throw new FrameError(ErrorCode.protocolError, `a header block of over ${MAX_HEADER_BLOCK_BYTES} bytes`);
    c.pieces.push(Buffer.from(f.payload));
    if (f.flags & Flag.endHeaders) {
      this.continuing = undefined;
      this.headerBlock(c.streamId, Buffer.concat(c.pieces), c.endStream);
    }
  }

  /** headerBlock decodes a whole header block (always: the table must follow) and hands it over. */
  private headerBlock(streamId: number, block: Buffer, endStream: boolean): void {
    const fields = this.decoder.decode(block);
    const stream = this.streams.get(streamId);
    if (!stream) return;
    stream.handler.headers(fields, endStream);
    // The handler may have cancelled the stream.
    if (endStream && this.streams.get(streamId) === stream) this.endStream(stream);
  }

  private endStream(stream: Stream): void {
    if (stream.ended) return;
    stream.ended = true;
    this.forget(stream);
    stream.handler.end();
  }

  private onReset(f: Frame): void {
    if (f.streamId === 0 || f.payload.length !== 4) throw new FrameError(ErrorCode.protocolError, 'a malformed RST_STREAM');
    const stream = this.streams.get(f.streamId);
    if (!stream) return;
    this.forget(stream);
    stream.handler.reset(f.payload.readUInt32BE(0));
  }

  private onSettings(f: Frame): void {
    if (f.streamId !== 0) throw new FrameError(ErrorCode.protocolError, 'a SETTINGS frame on a stream');
    if (f.flags & Flag.ack) return;
    if (f.payload.length % 6 !== 0) throw new FrameError(ErrorCode.frameSizeError, 'a SETTINGS frame whose length is not a multiple of 6');
    for (let i = 0; i < f.payload.length; i += 6) {
      const id = f.payload.readUInt16BE(i);
      const value = f.payload.readUInt32BE(i + 2);
      if (id === Setting.initialWindowSize) {
        if (value > MAX_WINDOW) throw new FrameError(ErrorCode.flowControlError, `an initial window of ${value}`);
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      } else if (id === Setting.maxFrameSize) {
        if (value < DEFAULT_MAX_FRAME_SIZE || value > 16_777_215) throw new FrameError(ErrorCode.protocolError, `a maximum frame size of ${value}`);
        this.peerMaxFrameSize = value;
      } else if (id === Setting.maxConcurrentStreams) {
        this.peerMaxStreams = value;
      }
      // The header table size limits the peer's decoder, which our encoder never adds to.
    }
    this.write(settingsFrame([]).fill(Flag.ack, 4, 5));
    this.unblock();
    this.startWaiting();
  }

  private onWindowUpdate(f: Frame): void {
    if (f.payload.length !== 4) throw new FrameError(ErrorCode.frameSizeError, 'a WINDOW_UPDATE frame of the wrong size');
    const increment = f.payload.readUInt32BE(0) & 0x7fffffff;
    if (f.streamId === 0) {
      if (increment === 0) throw new FrameError(ErrorCode.protocolError, 'a connection WINDOW_UPDATE of 0');
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW) throw new FrameError(ErrorCode.flowControlError, 'the connection window grew past 2^31-1');
    } else {
      const stream = this.streams.get(f.streamId);
      if (!stream) return;
      stream.sendWindow += increment;
    }
    this.unblock();
  }

  private onGoaway(f: Frame): void {
    if (f.payload.length < 8) throw new FrameError(ErrorCode.frameSizeError, 'a GOAWAY frame too short');
    const lastStreamId = f.payload.readUInt32BE(0) & 0x7fffffff;
    const code = f.payload.readUInt32BE(4);
    this.goingAway();
    // The streams the peer never processed fail as refused; the others may still finish.
    for (const stream of [...this.streams.values()]) {
      if (stream.id > lastStreamId) {
        this.forget(stream);
        stream.handler.reset(ErrorCode.refusedStream);
      }
    }
    for (const w of this.waiting.splice(0)) w.handler.reset(ErrorCode.refusedStream);
    if (code !== ErrorCode.noError && this.streams.size > 0) {
      // An error GOAWAY: the streams left end with the connection.
      this.fail(new Error(`the peer ended the connection (HTTP/2 code ${code})`));
    }
    this.closeIfIdle();
  }

  private unblock(): void {
    for (const stream of [...this.blocked]) {
      if (this.sendWindow <= 0) return;
      if (stream.sendWindow > 0) this.sendBody(stream);
    }
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxStreams && this.usable) {
      const w = this.waiting.shift()!;
      const started = this.start(w.headerBlock, w.body, w.handler);
      w.handle.cancel = () => started.cancel();
    }
  }

  private forget(stream: Stream): void {
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    this.startWaiting();
    this.closeIfIdle();
  }

  /** goingAway takes no new streams and tells the owner. */
  private goingAway(): void {
    if (this.draining) return;
    this.draining = true;
    this.onUnusable(undefined);
  }

  private closeIfIdle(): void {
    if (this.draining && !this.ended && this.streams.size === 0 && this.waiting.length === 0) {
      this.ended = true;
      this.socket.end();
    }
  }

  /** protocolError ends the connection for a violation by the peer. */
  private protocolError(code: number, err: Error): void {
    if (!this.ended) {
      this.socket.write(goawayFrame(0, code));
      this.socket.uncork();
    }
    this.fail(new Error(`etcd broke the HTTP/2 protocol: ${err.message}`));
  }

  /** fail ends the connection: every stream on it and every request waiting fails. */
  private fail(err: Error): void {
    const streams = [...this.streams.values()];
    const waiting = this.waiting.splice(0);
    this.streams.clear();
    this.blocked.clear();
    const wasEnded = this.ended;
    this.ended = true;
    clearTimeout(this.pingAckTimer);
    this.pingAckTimer = undefined;
    this.pingAcks.length = 0;
    this.draining = true;
    if (!wasEnded) {
      this.socket.destroy();
      this.onUnusable(err);
    }
    for (const stream of streams) stream.handler.failed(err, this.connected);
    for (const w of waiting) w.handler.failed(err, this.connected);
  }
}

const EMPTY = Buffer.alloc(0);

/** unpad returns a DATA or HEADERS frame's payload without its padding. */
function unpad(f: Frame): Buffer {
  if ((f.flags & Flag.padded) === 0) return f.payload;
  if (f.payload.length < 1) throw new FrameError(ErrorCode.frameSizeError, 'a padded frame without its pad length');
  const pad = f.payload[0];
  if (pad >= f.payload.length) throw new FrameError(ErrorCode.protocolError, 'padding longer than the frame');
  return f.payload.subarray(1, f.payload.length - pad);
}
