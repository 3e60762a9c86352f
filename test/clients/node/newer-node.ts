/**
 * A Node.js binary of at least a given major version, for running a client that needs a newer
 * Node than the one running the tests (client-node 2.x needs Node 22+). Looked for, in order:
 * $CONDUCTOR_NODE_BINARY; the running node; the node packages scripts/test-on-node.sh unpacks
 * (/var/cache/conductor-node as root, $NODE_CACHE or ~/.cache/conductor-node otherwise). When
 * none fits, the newest node-<os>-<arch>@<major> package is fetched from the npm registry into
 * that same cache, as the script does (set CONDUCTOR_NO_NODE_FETCH=1 to forbid it). The
 * answer is a path, or the reason there is none (the test reports it as skipped).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type NodeBinary = { path: string; version: string } | { missing: string };

function cacheDir(): string {
  if (process.env.NODE_CACHE) return process.env.NODE_CACHE;
  if (process.getuid?.() === 0) return '/var/cache/conductor-node';
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'conductor-node');
}

function platformPackage(): string | undefined {
  const os = process.platform === 'linux' ? 'linux' : process.platform === 'darwin' ? 'darwin' : undefined;
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : undefined;
  return os && arch ? `node-${os}-${arch}` : undefined;
}

const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);
const byVersion = (a: string, b: string) => {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/** The node binaries already unpacked in the cache with at least `minMajor`, newest first. */
function cached(pkg: string, minMajor: number): { path: string; version: string }[] {
  const dir = cacheDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((e) => e.startsWith(`${pkg}-`))
    .map((e) => ({ version: e.slice(pkg.length + 1), path: join(dir, e, 'bin', 'node') }))
    .filter((n) => /^\d+\.\d+\.\d+$/.test(n.version) && major(n.version) >= minMajor && existsSync(n.path))
    .sort((a, b) => byVersion(b.version, a.version));
}

/** Fetches the newest `pkg@wantMajor` from the npm registry into the cache (the layout test-on-node.sh uses). */
async function fetchNode(pkg: string, wantMajor: number): Promise<{ path: string; version: string }> {
  const { stdout } = await run('npm', ['view', `${pkg}@${wantMajor}`, 'version', '--json'], { timeout: 60_000 });
  const versions = ([] as string[]).concat(JSON.parse(stdout) as string | string[]).sort(byVersion);
  const version = versions.at(-1);
  if (!version || major(version) !== wantMajor) throw new Error(`npm has no ${pkg}@${wantMajor}`);
  const dir = cacheDir();
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const tmp = mkdtempSync(join(dir, '.unpack.'));
  try {
    await run('npm', ['pack', '--silent', `${pkg}@${version}`], { cwd: tmp, timeout: 300_000 });
    await run('tar', ['xzf', `${pkg}-${version}.tgz`], { cwd: tmp, timeout: 120_000 });
    const target = join(dir, `${pkg}-${version}`);
    rmSync(target, { recursive: true, force: true });
    renameSync(join(tmp, 'package'), target);
    chmodSync(target, 0o755);
    return { path: join(target, 'bin', 'node'), version };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** newerNode finds (or fetches) a node binary of at least `minMajor`; fetching takes `fetchMajor`. */
export async function newerNode(minMajor: number, fetchMajor: number): Promise<NodeBinary> {
  const given = process.env.CONDUCTOR_NODE_BINARY;
  if (given) {
    const { stdout } = await run(given, ['--version']);
    const version = stdout.trim().replace(/^v/, '');
    if (major(version) < minMajor) return { missing: `CONDUCTOR_NODE_BINARY=${given} is Node ${version}, older than ${minMajor}` };
    return { path: given, version };
  }
  if (major(process.version) >= minMajor) return { path: process.execPath, version: process.version.slice(1) };
  const pkg = platformPackage();
  if (!pkg) return { missing: `no Node ≥ ${minMajor} here and npm has no node package for ${process.platform}/${process.arch}` };
  const found = cached(pkg, minMajor)[0];
  if (found) return found;
  if (process.env.CONDUCTOR_NO_NODE_FETCH === '1') {
    return {
      missing: `no Node ≥ ${minMajor} in ${cacheDir()} and CONDUCTOR_NO_NODE_FETCH=1 forbids fetching ${pkg}@${fetchMajor} (scripts/test-on-node.sh ${fetchMajor} fetches it)`,
    };
  }
  try {
    return await fetchNode(pkg, fetchMajor);
  } catch (e) {
    return { missing: `no Node ≥ ${minMajor} in ${cacheDir()}, and fetching ${pkg}@${fetchMajor} from npm failed: ${(e as Error).message}` };
  }
}
