/**
 * Test support: real etcd processes (Debian's etcd-server, /usr/bin/etcd) on 127.0.0.1 with
 * free ports and a temporary data directory each; never the system's etcd service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.js';

/** The etcd binary: ETCD_BIN, or Debian's. */
export const etcdBinary = process.env.ETCD_BIN ?? '/usr/bin/etcd';

/** etcdMissing says why etcd tests cannot run here (for `skip`), or false when they can. */
export function etcdMissing(): string | false {
  return existsSync(etcdBinary) ? false : `${etcdBinary} is missing (apt-get install etcd-server, or set ETCD_BIN)`;
}

/** An EtcdMember is one running etcd process. */
export interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly dataDir: string;
  /** The member's log (stdout and stderr), for failure messages. */
  log(): string;
  /** kill ends the process at once (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  /** stop ends the process (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
  /** restart starts a stopped or killed member again on its data directory, ports and flags. */
  restart(): void;
}

/** An EtcdCluster is one or more members forming one cluster. */
export interface EtcdCluster {
  readonly members: EtcdMember[];
  /** The client URLs of every member. */
  readonly endpoints: string[];
  /** stop ends every member (SIGKILL: the data is thrown away) and removes the data directories. */
  stop(): Promise<void>;
}

/** freePort asks the kernel for a port nobody listens on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface Planned {
  name: string;
  clientPort: number;
  peerPort: number;
}

type ClusterOptions = { extraArgs?: string[]; scheme?: 'http' | 'https'; healthy?: (m: EtcdMember) => Promise<boolean> };

/** A member could not listen: another process took a port between freePort and etcd's bind. */
class PortTaken extends Error {}

/**
 * startEtcdCluster starts `size` members (1 or 3 usually) and waits until the cluster
 * answers on every member's /health. Extra flags are passed to every member (TLS tests).
 * A port taken by another process in the meantime (tests run in parallel, and freePort's port
 * is free only when asked) starts the cluster again on new ports, up to three times.
 */
export async function startEtcdCluster(size = 1, options: ClusterOptions = {}): Promise<EtcdCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdClusterOnce(size, options);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= 3) throw err;
    }
  }
}

async function startEtcdClusterOnce(size: number, options: ClusterOptions): Promise<EtcdCluster> {
  const root = mkdtempSync(join(tmpdir(), 'conductor-etcd-test-'));
  const planned: Planned[] = [];
  for (let i = 0; i < size; i++) planned.push({ name: `m${i}`, clientPort: await freePort(), peerPort: await freePort() });
  const scheme = options.scheme ?? 'http';
  const initialCluster = planned.map((p) => `${p.name}=http://127.0.0.1:${p.peerPort}`).join(',');
  // Every member of one cluster must share the token (it seeds the cluster ID).
  const token = `conductor-test-${planned[0]?.peerPort ?? 0}`;
  const members = planned.map((p) => startMember(root, p, scheme, initialCluster, token, options.extraArgs ?? []));
  const cluster: EtcdCluster = {
    members,
    endpoints: members.map((m) => m.clientUrl),
    async stop() {
      await Promise.all(members.map((m) => m.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  const logs = () => members.map((m) => `--- ${m.name}\n${m.log().slice(-2000)}`).join('\n');
  const portTaken = () => members.some((m) => m.log().includes('bind: address already in use'));
  let outcomes: string[];
  try {
    const healthy = options.healthy ?? httpHealthy;
    const settled = async (m: EtcdMember) => (portTaken() ? 'port taken' : (await healthy(m)) && 'healthy');
    outcomes = await Promise.all(members.map((m) => eventually(() => settled(m), `etcd member ${m.name} at ${m.clientUrl} to be healthy`, 60_000, 100)));
  } catch (err) {
    const text = logs();
    await cluster.stop();
    throw new Error(`${(err as Error).message}\n${text}`, { cause: err });
  }
  if (outcomes.includes('port taken')) {
    const text = logs();
    await cluster.stop();
    throw new PortTaken(`an etcd member's port was taken by another process before it could listen\n${text}`);
  }
  return cluster;
}

async function httpHealthy(member: EtcdMember): Promise<boolean> {
  try {
    // A member without a leader may not answer /health at all: give up on the probe, not the wait.
    const res = await fetch(`${member.clientUrl}/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { health?: string };
    return res.ok && body.health === 'true';
  } catch {
    return false;
  }
}

function startMember(root: string, p: Planned, scheme: string, initialCluster: string, token: string, extraArgs: string[]): EtcdMember {
  const dataDir = join(root, p.name);
  const logPath = join(root, `${p.name}.log`);
  const clientUrl = `${scheme}://127.0.0.1:${p.clientPort}`;
  const peerUrl = `http://127.0.0.1:${p.peerPort}`;
  const args = [
    `--name=${p.name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=${initialCluster}`,
    '--initial-cluster-state=new',
    `--initial-cluster-token=${token}`,
    '--logger=zap',
    '--log-level=warn',
    ...extraArgs,
  ];
  let child: ChildProcess;
  let exited: Promise<void>;
  // A restart reuses the data directory: etcd then ignores the initial-cluster flags.
  const spawnMember = () => {
    const fd = openSync(logPath, 'a');
    child = spawn(etcdBinary, args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const started = child;
    exited = new Promise<void>((resolve) => {
      if (started.exitCode !== null || started.signalCode !== null) resolve();
      else started.once('exit', () => resolve());
    });
  };
  spawnMember();
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    await exited;
  };
  return {
    name: p.name,
    clientUrl,
    dataDir,
    log: () => {
      try {
        return readFileSync(logPath, 'utf8');
      } catch {
        return '';
      }
    },
    kill: () => signal('SIGKILL'),
    restart() {
      if (child.exitCode === null && child.signalCode === null) throw new Error(`etcd member ${p.name} is still running: stop or kill it first`);
      spawnMember();
    },
    async stop() {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await signal('SIGTERM');
      clearTimeout(timer);
    },
  };
}
