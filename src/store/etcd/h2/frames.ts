/**
 * HTTP/2 framing (RFC 9113, section 4 and 6): frame types, flags, settings and error codes,
 * writing one frame, and `FrameReader`, which cuts a byte stream into frames.
 */

export const FrameType = {
  data: 0x0,
  headers: 0x1,
  priority: 0x2,
  rstStream: 0x3,
  settings: 0x4,
  pushPromise: 0x5,
  ping: 0x6,
  goaway: 0x7,
  windowUpdate: 0x8,
  continuation: 0x9,
} as const;

export const Flag = {
  endStream: 0x1,
  ack: 0x1,
  endHeaders: 0x4,
  padded: 0x8,
  priority: 0x20,
} as const;

export const Setting = {
  headerTableSize: 0x1,
  enablePush: 0x2,
  maxConcurrentStreams: 0x3,
  initialWindowSize: 0x4,
  maxFrameSize: 0x5,
  maxHeaderListSize: 0x6,
} as const;

export const ErrorCode = {
  noError: 0x0,
  protocolError: 0x1,
  internalError: 0x2,
  flowControlError: 0x3,
  settingsTimeout: 0x4,
  streamClosed: 0x5,
  frameSizeError: 0x6,
  refusedStream: 0x7,
  cancel: 0x8,
  compressionError: 0x9,
} as const;

/** The client connection preface (RFC 9113, 3.4). */
export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export const FRAME_HEADER_BYTES = 9;
/** The largest frame payload a peer may send before it is told otherwise, and the one we accept. */
export const DEFAULT_MAX_FRAME_SIZE = 16_384;
export const DEFAULT_WINDOW = 65_535;
export const MAX_WINDOW = 2 ** 31 - 1;

/** One frame as read: its payload is a view of the bytes read (valid until the next read). */
export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/** writeFrameHeader writes the 9-byte header of a frame at `offset` of `out`. */
export function writeFrameHeader(out: Buffer, offset: number, length: number, type: number, flags: number, streamId: number): void {
  out[offset] = (length >>> 16) & 0xff;
  out[offset + 1] = (length >>> 8) & 0xff;
  out[offset + 2] = length & 0xff;
  out[offset + 3] = type;
  out[offset + 4] = flags;
  out.writeUInt32BE(streamId & 0x7fffffff, offset + 5);
}

/** frame returns one whole frame. */
export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  writeFrameHeader(out, 0, payload.length, type, flags, streamId);
  payload.copy(out, FRAME_HEADER_BYTES);
  return out;
}

/** settingsFrame is a SETTINGS frame with the given [id, value] pairs. */
export function settingsFrame(settings: ReadonlyArray<readonly [number, number]>): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(FrameType.settings, 0, 0, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment & 0x7fffffff, 0);
  return frame(FrameType.windowUpdate, 0, streamId, payload);
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return frame(FrameType.rstStream, 0, streamId, payload);
}

export function goawayFrame(lastStreamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(8);
  payload.writeUInt32BE(lastStreamId & 0x7fffffff, 0);
  payload.writeUInt32BE(code, 4);
  return frame(FrameType.goaway, 0, 0, payload);
}

/** A FrameError is a violation of HTTP/2 by the peer: the connection ends with its code. */
export class FrameError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * FrameReader cuts the bytes read from a connection into frames. `push` returns the frames
 * complete so far; a partial frame waits for the next bytes. A frame longer than `maxFrameSize`
 * is a FRAME_SIZE_ERROR.
 */
export class FrameReader {
  private pending: Buffer | undefined;

  constructor(private readonly maxFrameSize = DEFAULT_MAX_FRAME_SIZE) {}

  push(chunk: Buffer): Frame[] {
    let bytes = chunk;
    if (this.pending) {
      bytes = Buffer.concat([this.pending, chunk]);
      this.pending = undefined;
    }
    const frames: Frame[] = [];
    let pos = 0;
    while (bytes.length - pos >= FRAME_HEADER_BYTES) {
      const length = (bytes[pos] << 16) | (bytes[pos + 1] << 8) | bytes[pos + 2];
      if (length > this.maxFrameSize) {
        throw new FrameError(ErrorCode.frameSizeError, `a frame of ${length} bytes, above the ${this.maxFrameSize} allowed`);
      }
      if (bytes.length - pos < FRAME_HEADER_BYTES + length) break;
      frames.push({
        type: bytes[pos + 3],
        flags: bytes[pos + 4],
        streamId: bytes.readUInt32BE(pos + 5) & 0x7fffffff,
        payload: bytes.subarray(pos + FRAME_HEADER_BYTES, pos + FRAME_HEADER_BYTES + length),
      });
      pos += FRAME_HEADER_BYTES + length;
    }
    if (pos < bytes.length) this.pending = Buffer.from(bytes.subarray(pos));
    return frames;
  }
}
