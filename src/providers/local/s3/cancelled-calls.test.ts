import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { eventually } from '../../../../test/support/eventually.js';
import type { SharedExternalClient } from '../../spi.js';
import { fixture } from '../../testing.js';
import { freePort, isAlive } from '../process/processes.js';
import { connectionsTo, processGone, startHungServer, type HungServer } from '../process/testing.js';
import type { S3Server } from './kinds.js';
import { S3Admin } from './s3-admin.js';
import { s3ServerConcreteKind } from './s3-server.js';
import { resolveS3rver, S3Servers } from './s3-servers.js';

const isAbort = (err: Error) => err.name === 'AbortError';

describe('S3Server: a start whose gateway never answers on its port', { timeout: 120_000 }, () => {
  let root: string;
  let servers: S3Servers | undefined;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-s3-abort-'));
  });
  after(async () => {
    await servers?.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test("is cancelled through the call's signal: create rejects with the abort reason and the gateway process is gone", async () => {
    const real = await resolveS3rver();
    // The real gateway, told to listen on another port than the one Conductor waits on.
    const elsewhere = join(root, 'gateway-elsewhere.mjs');
    await writeFile(
      elsewhere,
      `process.argv[process.argv.indexOf('--port') + 1] = '${await freePort()}';\nawait import(${JSON.stringify(pathToFileURL(real.script).href)});\n`,
    );
    servers = new S3Servers({ root: join(root, 'servers'), program: { ...real, script: elsewhere }, startTimeoutMs: 600_000 });
    const resource = fixture<S3Server>({
      apiVersion: 'storage.local.conductor.io/v1alpha1',
      kind: 'S3Server',
      metadata: { namespace: 'conductor-system', name: 'stuck' },
      spec: {},
    });
    const client = (await s3ServerConcreteKind(servers).connector.connect(resource, {})) as SharedExternalClient<S3Server>;
    const call = new AbortController();
    const creating = client.create(resource, { signal: call.signal });
    creating.catch(() => {}); // awaited below
    const pidFile = join(servers.dirFor('conductor-system', 'stuck'), 's3rver.pid');
    const pid = await eventually(async () => {
      const p = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
      return p > 0 && (await isAlive(p)) ? p : undefined;
    }, 'the gateway process running');
    call.abort();
    await assert.rejects(creating, isAbort);
    await eventually(() => processGone(pid), `gateway ${pid} gone after the abort`, 30_000);
    await assert.rejects(readFile(pidFile, 'utf8'), /ENOENT/, 'the pid file of the killed gateway is removed');
  });
});

describe('S3Admin: a request to a server that never answers', { timeout: 120_000 }, () => {
  let hung: HungServer;
  before(async () => {
    hung = await startHungServer();
  });
  after(async () => {
    await hung.close();
  });

  test("is cancelled through the call's signal: it rejects with the abort reason and its connection is closed", async () => {
    const call = new AbortController();
    const admin = new S3Admin({
      endpoint: `http://127.0.0.1:${hung.port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'conductor', secretAccessKey: 'secret' },
      timeoutMs: 600_000,
      signal: call.signal,
    });
    const listing = admin.listBuckets();
    listing.catch(() => {}); // awaited below
    await eventually(() => hung.accepted() === 1, 'the request reaching the server');
    call.abort();
    await assert.rejects(listing, isAbort);
    await eventually(async () => (await connectionsTo(hung.port)) === 0, 'no connection left open to the server');
    await eventually(() => hung.open() === 0, 'the server seeing its connection closed');
  });
});
