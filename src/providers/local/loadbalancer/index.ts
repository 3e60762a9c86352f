export {
  listenAddress,
  loadBalancerClaim,
  loadBalancerSecretKeys,
  LOCAL_NETWORK_GROUP,
  LOCAL_LISTENER_PROTOCOLS,
  localPortForwarderKind,
  haproxyLoadBalancerKind,
  loadBalancerRefs,
  type ListenerProtocol,
  type ListenerSpec,
  type ListenerTarget,
  type LocalListener,
} from './kinds.js';
export { createLoadBalancerKinds, type LoadBalancerKinds, type LoadBalancerKindsOptions } from './load-balancers.js';
export { listenerConcreteKind, ListenerClient, isBound, type ListenerKindName, type ListenerKindOptions } from './listener-kind.js';
export {
  Listeners,
  accepts,
  type DesiredListener,
  type ListenerEngine,
  type ListenerFiles,
  type ListenerState,
  type ListenerStatus,
  type ListenersOptions,
} from './listeners.js';
export { haproxyEngine, proxyEngine, proxyScriptPath } from './engines.js';
export { resolveHAProxy, haproxyBinEnv, defaultHAProxyBin, parseHAProxyVersion, type HAProxyBinary } from './haproxy-binary.js';
export { renderHAProxyConfig, type HAProxyConfig } from './haproxy-config.js';
export { parseProxyConfig, renderProxyConfig, configHash, type ProxyConfig } from './proxy-config.js';
export { parseAddress, formatBackend, resolveTargets, targetKey, describeTarget, type Backend, type ResolvedTargets } from './targets.js';
export { listenerMatcher, configureListener, loadBalancerClaimSpec, type LoadBalancerClaimSpec } from './matchers.js';
export { formatLoadBalancerConnection, listenerDetails } from './connection.js';
