/**
 * The haproxy.cfg of an HAProxyLoadBalancer: one frontend on the listener's address and
 * port, one round-robin backend with a server per target; mode http for HTTP (requests are
 * balanced), mode tcp for TCP (connections are).
 */
import type { ListenerProtocol } from './kinds.js';
import { haproxyAddress, haproxyComment } from '../config-formats/index.js';
import type { Backend } from './targets.js';

/** An HAProxyConfig is what one haproxy process serves. */
export interface HAProxyConfig {
  /** Who the config is for, written as a comment. */
  owner: string;
  address: string;
  port: number;
  protocol: ListenerProtocol;
  backends: Backend[];
}

/**
 * renderHAProxyConfig writes the haproxy.cfg for a config. Every value is checked by type and
 * written through config-formats/haproxy (it throws rather than write a value HAProxy could
 * read as more than one word, a comment or a variable).
 */
export function renderHAProxyConfig(config: HAProxyConfig): string {
  const mode = config.protocol === 'HTTP' ? 'http' : 'tcp';
  const bind = haproxyAddress(config.address, config.port);
  const lines = [
    `# Written by Conductor for ${haproxyComment(config.owner)}; rewritten on every change.`,
    'global',
    '    maxconn 4096',
    '',
    'defaults',
    `    mode ${mode}`,
    '    timeout connect 5s',
    '    timeout client 1m',
    '    timeout server 1m',
    ...(mode === 'http' ? ['    option http-server-close'] : []),
    '',
    'frontend listener',
    `    bind ${bind}`,
    '    default_backend targets',
    '',
    'backend targets',
    '    balance roundrobin',
    ...config.backends.map((b, i) => `    server target${i + 1} ${haproxyAddress(b.host, b.port)} check inter 2s`),
  ];
  return `${lines.join('\n')}\n`;
}
