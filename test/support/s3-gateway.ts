/**
 * Test support: the project's own S3-compatible server (s3rver behind Conductor's SigV4
 * gateway, src/providers/local/s3) on 127.0.0.1, started without a Conductor, with its admin
 * key — what an `aws` Provider's Secret names when tests point S3 at it (s3Endpoint).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveS3rver, S3Servers, endpointFor } from '../../src/providers/local/s3/s3-servers.js';
import { parseS3Keys } from '../../src/providers/local/s3/s3-keys.js';

/** An S3Gateway is one running server and its admin key. */
export interface S3Gateway {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** stop ends the server and removes its files. */
  stop(): Promise<void>;
}

/** startS3Gateway starts a server in a directory of its own and waits until it answers. */
export async function startS3Gateway(): Promise<S3Gateway> {
  const root = await mkdtemp(join(tmpdir(), 'conductor-aws-s3-'));
  const servers = new S3Servers({ root, program: await resolveS3rver() });
  const dir = servers.dirFor('test', 'aws-s3');
  const { port } = await servers.ensureRunning(dir, { namespace: 'test', name: 'aws-s3' });
  const keys = parseS3Keys(await readFile(join(dir, 'keys.json'), 'utf8'));
  return {
    endpoint: endpointFor(port),
    accessKeyId: keys.admin.accessKeyId,
    secretAccessKey: keys.admin.secretAccessKey,
    async stop() {
      await servers.stopAll();
      await rm(root, { recursive: true, force: true });
    },
  };
}
