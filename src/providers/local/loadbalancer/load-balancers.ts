/**
 * The local provider's load balancer kinds, assembled: a supervisor per engine under
 * `<dataDir>/providers/local/loadbalancer/`, and the two kinds built around them. A missing
 * haproxy leaves HAProxyLoadBalancer registered but reporting why it cannot work.
 */
import { join } from 'node:path';
import { silentProviderLogger, type ConcreteKind, type ProviderLogger } from '../../spi.js';
import { haproxyEngine, proxyEngine } from './engines.js';
import { resolveHAProxy, type HAProxyBinary } from './haproxy-binary.js';
import type { LocalListener } from './kinds.js';
import { listenerKind } from './listener-kind.js';
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
  const root = join(options.dataDir, 'providers', 'local', 'loadbalancer');
  const portForwarders = new Listeners({ root: join(root, 'proxy'), engine: proxyEngine(), logger, startTimeoutMs: options.startTimeoutMs });
  let haproxy: Listeners | undefined;
  let haproxyBinary: HAProxyBinary | undefined;
  let haproxyUnavailable: string | undefined;
  try {
    haproxyBinary = await resolveHAProxy({ bin: options.haproxyBin, env: options.env });
    haproxy = new Listeners({ root: join(root, 'haproxy'), engine: haproxyEngine(haproxyBinary), logger, startTimeoutMs: options.startTimeoutMs });
    logger.info({ haproxy: haproxyBinary.path, version: haproxyBinary.version }, 'HAProxy load balancers enabled');
  } catch (err) {
    haproxyUnavailable = (err as Error).message;
    logger.warn({ err: haproxyUnavailable }, 'HAProxy load balancers unavailable');
  }
  return {
    kinds: [
      listenerKind({ kind: 'LocalPortForwarder', listeners: portForwarders }),
      listenerKind({ kind: 'HAProxyLoadBalancer', listeners: haproxy, ...(haproxyUnavailable ? { unavailable: haproxyUnavailable } : {}) }),
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
