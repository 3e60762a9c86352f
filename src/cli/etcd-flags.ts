/**
 * The etcd flags shared by `conductor server` and `conductor migrate`: which members, the TLS
 * files, the key prefix; checked here so a mistake is a usage error naming the flag.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { EtcdBackendOptions } from '../apiserver/server.js';

/** The key prefix used when none is given: Conductor's keys sit under `/conductor/registry/…`. */
export const DEFAULT_ETCD_PREFIX = '/conductor';

export interface EtcdFlags {
  etcdServers?: string[];
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  etcdPrefix: string;
}

/** etcdServerList parses `URL,URL,…`: each http(s)://host:port, nothing else. */
export function etcdServerList(value: string): string[] {
  const urls = value
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  if (urls.length === 0) throw new InvalidArgumentError('expected one or more etcd client URLs, comma-separated (http://127.0.0.1:2379)');
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidArgumentError(`${JSON.stringify(url)} is not a URL: expected http://host:port or https://host:port`);
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.port || (parsed.pathname !== '/' && parsed.pathname !== '')) {
      throw new InvalidArgumentError(`${JSON.stringify(url)}: expected http://host:port or https://host:port, with a port and no path`);
    }
    if (parsed.username || parsed.password || parsed.search || parsed.hash) {
      throw new InvalidArgumentError(`${JSON.stringify(url)}: expected only http://host:port or https://host:port (no user, query or fragment)`);
    }
  }
  return urls;
}

/** etcdPrefix checks a key prefix: empty, or `/segment/segment…` of letters, digits, `.`, `_`, `-`. */
export function etcdPrefix(value: string): string {
  if (!/^(\/[A-Za-z0-9._-]+)*$/.test(value)) {
    throw new InvalidArgumentError('expected "" or a path like /conductor or /team-a/conductor (letters, digits, ".", "_", "-"; no trailing slash)');
  }
  return value;
}

/** addEtcdOptions adds the etcd flags (with environment fallbacks) to `command`. */
export function addEtcdOptions(command: Command, serversHelp: string): Command {
  const env = process.env;
  return command
    .option(
      '--etcd-servers <urls>',
      `${serversHelp} (env CONDUCTOR_ETCD_SERVERS)`,
      etcdServerList,
      env.CONDUCTOR_ETCD_SERVERS ? etcdServerList(env.CONDUCTOR_ETCD_SERVERS) : undefined,
    )
    .option('--etcd-cafile <path>', 'PEM CA bundle that signed the etcd members (https:// endpoints) (env CONDUCTOR_ETCD_CAFILE)', env.CONDUCTOR_ETCD_CAFILE)
    .option('--etcd-certfile <path>', 'PEM client certificate for etcd, with --etcd-keyfile (env CONDUCTOR_ETCD_CERTFILE)', env.CONDUCTOR_ETCD_CERTFILE)
    .option('--etcd-keyfile <path>', 'PEM private key of --etcd-certfile (env CONDUCTOR_ETCD_KEYFILE)', env.CONDUCTOR_ETCD_KEYFILE)
    .option(
      '--etcd-prefix <prefix>',
      'prefix of every key Conductor writes in etcd; every server of one Conductor uses the same (env CONDUCTOR_ETCD_PREFIX)',
      etcdPrefix,
      env.CONDUCTOR_ETCD_PREFIX !== undefined ? etcdPrefix(env.CONDUCTOR_ETCD_PREFIX) : DEFAULT_ETCD_PREFIX,
    );
}

/**
 * etcdBackend turns the flags into the store's options, reading the TLS files; undefined
 * without --etcd-servers. Throws an Error naming the flag when something does not fit.
 */
export function etcdBackend(o: EtcdFlags): EtcdBackendOptions | undefined {
  if (!o.etcdServers) {
    if (o.etcdCafile || o.etcdCertfile || o.etcdKeyfile) throw new Error('--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers');
    return undefined;
  }
  if (Boolean(o.etcdCertfile) !== Boolean(o.etcdKeyfile)) throw new Error('--etcd-certfile and --etcd-keyfile go together: give both or neither');
  const tlsGiven = Boolean(o.etcdCafile || o.etcdCertfile);
  if (tlsGiven && o.etcdServers.some((u) => u.startsWith('http://'))) {
    throw new Error('--etcd-cafile/--etcd-certfile need https:// endpoints in --etcd-servers (found http://)');
  }
  const read = (flag: string, path: string | undefined): Buffer | undefined => {
    if (!path) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${flag} ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
    }
  };
  const tls = tlsGiven
    ? { ca: read('--etcd-cafile', o.etcdCafile), cert: read('--etcd-certfile', o.etcdCertfile), key: read('--etcd-keyfile', o.etcdKeyfile) }
    : undefined;
  return { endpoints: o.etcdServers, tls, keyPrefix: o.etcdPrefix };
}
