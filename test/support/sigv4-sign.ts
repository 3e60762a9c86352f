import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/** An S3RequestToSign is what a test sends to an S3 endpoint and wants signed as an SDK would. */
export interface S3RequestToSign {
  method: string;
  /** The path, not yet percent-encoded (e.g. `/my-bucket/a key.txt`). */
  path: string;
  query?: Record<string, string>;
  /** Must include `host`. */
  headers: Record<string, string>;
}

/**
 * signS3Request signs a request with the AWS SDK's SigV4 signer (@smithy/signature-v4, S3
 * flavour: paths encoded once, the payload hash sent as x-amz-content-sha256) and returns the
 * headers to send: the request's own plus x-amz-date, x-amz-content-sha256 and authorization.
 * Tests use it to build requests the S3 gateway's verifier must accept or refuse.
 */
export async function signS3Request(
  request: S3RequestToSign,
  scope: { credentials: { accessKeyId: string; secretAccessKey: string }; region: string; now: Date },
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    credentials: scope.credentials,
    region: scope.region,
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: true,
  });
  const host = request.headers.host;
  if (host === undefined) throw new Error('cannot sign a request without a host header: want the header the request is sent with');
  const [hostname, port] = host.split(':') as [string, string | undefined];
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname,
      ...(port ? { port: Number(port) } : {}),
      // The SDK's S3 client encodes each path segment once before signing; so does this.
      path: request.path.split('/').map(encodeSegment).join('/'),
      query: { ...request.query },
      headers: { 'x-amz-content-sha256': sha256Hex(''), ...request.headers },
    },
    { signingDate: scope.now },
  );
  return signed.headers;
}

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(data: string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Sha256 is the hash constructor @smithy/signature-v4 wants, over node:crypto. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    const key =
      secret === undefined
        ? undefined
        : typeof secret === 'string'
          ? secret
          : Buffer.from(secret instanceof ArrayBuffer ? secret : secret.buffer.slice(secret.byteOffset, secret.byteOffset + secret.byteLength));
    this.hash = key === undefined ? createHash('sha256') : createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(
      typeof data === 'string' ? data : Buffer.from(data instanceof ArrayBuffer ? data : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)),
    );
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}
