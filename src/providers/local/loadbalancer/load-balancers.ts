/**
 * The local provider's load balancer kinds, assembled: a supervisor per engine under
 * `<dataDir>/providers/local/loadbalancer/`, and the two kinds built around them. A missing
 * haproxy leaves HAProxyLoadBalancer registered but reporting why it cannot work.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveServerRunAs, serverRootFor, type RunAs } from '../process/run-as.js';
import { silentProviderLogger, type ConcreteKind, type ProviderLogger } from '../../spi.js';
import { haproxyEngine, proxyEngine } from './engines.js';
import { resolveHAProxy, type HAProxyBinary } from './haproxy-binary.js';
import type { LocalListener } from './kinds.js';
import { listenerConcreteKind } from './listener-kind.js';
import { Listeners } from './listeners.js';

export interface LoadBalancerKindsOptions {
  /** Conductor's data directory; listeners live under `<dataDir>/providers/local/loadbalancer/`. */
  dataDir: string;
  /** The haproxy binary (or `CONDUCTOR_HAPROXY_BIN`); default /usr/sbin/haproxy. */
  haproxyBin?: string;
  env?: NodeJS.ProcessEnv;
  logger?: ProviderLogger;
  /** How long a listener start may take; default 15 s. */
  startTimeoutMs?: number;
}

/** LoadBalancerKinds are the two kinds and what runs them. */
export interface LoadBalancerKinds {
  readonly kinds: readonly ConcreteKind<LocalListener>[];
  readonly portForwarders: Listeners;
  readonly haproxy: Listeners | undefined;
  readonly haproxyBinary: HAProxyBinary | undefined;
  /** Why HAProxyLoadBalancer is unavailable, when it is. */
  readonly haproxyUnavailable: string | undefined;
  /** stopAll stops every listener process started or adopted (on shutdown). */
  stopAll(): Promise<void>;
}

/** createLoadBalancerKinds finds haproxy and builds both kinds. */
export async function createLoadBalancerKinds(options: LoadBalancerKindsOptions): Promise<LoadBalancerKinds> {
  const logger = options.logger ?? silentProviderLogger;
  const env = options.env ?? process.env;
  const proxyRunAs = await resolveServerRunAs('proxy', { env });
  const portForwarders = new Listeners({
    root: await listenerRoot('proxy', options.dataDir, proxyRunAs),
    engine: proxyEngine(),
    logger,
    startTimeoutMs: options.startTimeoutMs,
    runAs: proxyRunAs,
  });
  let haproxy: Listeners | undefined;
  let haproxyBinary: HAProxyBinary | undefined;
  let haproxyUnavailable: string | undefined;
  try {
    haproxyBinary = await resolveHAProxy({ bin: options.haproxyBin, env: options.env });
    const runAs = await resolveServerRunAs('haproxy', { env });
    haproxy = new Listeners({
      root: await listenerRoot('haproxy', options.dataDir, runAs),
      engine: haproxyEngine(haproxyBinary),
      logger,
      startTimeoutMs: options.startTimeoutMs,
      runAs,
    });
    logger.info({ haproxy: haproxyBinary.path, version: haproxyBinary.version }, 'HAProxy load balancers enabled');
  } catch (err) {
    haproxyUnavailable = (err as Error).message;
    logger.warn({ err: haproxyUnavailable }, 'HAProxy load balancers unavailable');
  }
  return {
    kinds: [
      listenerConcreteKind({ kind: 'LocalPortForwarder', listeners: portForwarders }),
      listenerConcreteKind({ kind: 'HAProxyLoadBalancer', listeners: haproxy, ...(haproxyUnavailable ? { unavailable: haproxyUnavailable } : {}) }),
    ],
    portForwarders,
    haproxy,
    haproxyBinary,
    haproxyUnavailable,
    async stopAll() {
      await Promise.all([portForwarders.stopAll(), haproxy?.stopAll()]);
    },
  };
}

/**
 * listenerRoot is where one kind's listener directories live: `<dataDir>/providers/local/
 * loadbalancer/<engine>`, or — when listeners run as another user, who cannot enter the
 * private data dir — `/var/tmp/conductor-<engine>-<hash of the data dir>` (`serverRootFor`).
 * Listeners an earlier version kept under the data dir stay there; starting them then says
 * how to let their user reach that directory.
 */
async function listenerRoot(engine: 'haproxy' | 'proxy', dataDir: string, runAs: RunAs | undefined): Promise<string> {
  const legacy = join(dataDir, 'providers', 'local', 'loadbalancer', engine);
  if (
    runAs &&
    (await readdir(legacy).then(
      (names) => names.length > 0,
      () => false,
    ))
  )
    return legacy;
  return runAs ? serverRootFor(engine, dataDir, runAs) : legacy;
}
