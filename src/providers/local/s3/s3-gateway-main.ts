/**
 * The S3 gateway: `node s3-gateway-main.js --directory <data> --address <ip> --port <n>
 * --keys <keys.json>`. One process per S3Server: it runs s3rver's request handler in
 * process (s3rver listens on no socket of its own, so nothing can reach it around the
 * gateway) behind an HTTP server that accepts only requests signed with AWS Signature V4 by
 * a key in keys.json, and lets a claim's key touch only its own bucket (sigv4-verify.ts).
 * Anonymous, presigned and SigV2 requests get 403. keys.json is read again when it changes.
 * SIGTERM/SIGINT stop it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { stat, readFile } from 'node:fs/promises';
import { parseS3Keys, type S3Keys } from './s3-keys.js';
import { authorize, verifySigV4, type Grant } from './sigv4-verify.js';

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (!value) {
    process.stderr.write(`usage: s3-gateway-main.js --directory <dir> --address <ip> --port <n> --keys <keys.json>; missing --${name}\n`);
    process.exit(2);
  }
  return value;
}

const directory = arg('directory');
const address = arg('address');
const port = Number(arg('port'));
const keysPath = arg('keys');

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { callback(): (req: IncomingMessage, res: ServerResponse) => void };
const handler = new S3rver({ directory, silent: true, vhostBuckets: false, configureBuckets: [] }).callback();

let keys: S3Keys | undefined;
let keysVersion = '';

/** currentKeys reads keys.json when it changed since the last read (size and mtime). */
async function currentKeys(): Promise<S3Keys> {
  const s = await stat(keysPath);
  const version = `${s.size}:${s.mtimeMs}`;
  if (!keys || version !== keysVersion) {
    keys = parseS3Keys(await readFile(keysPath, 'utf8'));
    keysVersion = version;
  }
  return keys;
}

function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function refuse(res: ServerResponse, code: string, message: string): void {
  res.writeHead(403, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlText(message)}</Message></Error>`);
}

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
}

const server = createServer((req, res) => {
  currentKeys().then(
    (k) => {
      const grants = new Map<string, { secret: string; grant: Grant }>([[k.admin.accessKeyId, { secret: k.admin.secretAccessKey, grant: { all: true } }]]);
      for (const [id, key] of Object.entries(k.claims)) grants.set(id, { secret: key.secretAccessKey, grant: { bucket: key.bucket } });
      const incoming = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
      const verdict = verifySigV4(incoming, (id) => grants.get(id)?.secret);
      if (!verdict.ok) return refuse(res, verdict.code, verdict.message);
      const allowed = authorize(incoming, grants.get(verdict.accessKeyId)!.grant);
      if (!allowed.ok) return refuse(res, 'AccessDenied', allowed.message);
      // s3rver knows one key (S3RVER) and checks no SigV4 signature: the gateway did.
      req.headers.authorization = req.headers.authorization!.replace(/Credential=[^/]+\//, 'Credential=S3RVER/');
      handler(req, res);
    },
    (err: Error) => {
      log(`cannot read ${keysPath}: ${err.message}`);
      refuse(res, 'AccessDenied', 'the server has no keys yet');
    },
  );
});
server.on('error', (err) => {
  log(`cannot listen on ${address}:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, address, () => log(`S3 gateway listening on ${address}:${port} for ${directory}`));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}
