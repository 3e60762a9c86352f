/**
 * Finding the haproxy binary: `CONDUCTOR_HAPROXY_BIN` (or the option), else
 * /usr/sbin/haproxy; it must run and report its version.
 */
import { execFile } from 'node:child_process';

/** The environment variable naming the haproxy binary. */
export const haproxyBinEnv = 'CONDUCTOR_HAPROXY_BIN';

/** The binary used when nothing names another. */
export const defaultHAProxyBin = '/usr/sbin/haproxy';

/** An HAProxyBinary is a haproxy that runs here, with its version. */
export interface HAProxyBinary {
  path: string;
  version: string;
}

/** parseHAProxyVersion reads the version from `haproxy -v` output. */
export function parseHAProxyVersion(output: string): string | undefined {
  return /HA-?Proxy version ([0-9][^\s]*)/i.exec(output)?.[1];
}

/** resolveHAProxy finds and checks the haproxy binary; it throws saying why none is usable. */
export async function resolveHAProxy(options: { bin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<HAProxyBinary> {
  const env = options.env ?? process.env;
  const path = options.bin ?? env[haproxyBinEnv] ?? defaultHAProxyBin;
  const output = await new Promise<string>((resolve, reject) => {
    execFile(path, ['-v'], { timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`cannot run ${path} -v (set ${haproxyBinEnv} to a haproxy binary): ${err.message}`));
      else resolve(`${stdout}${stderr}`);
    });
  });
  const version = parseHAProxyVersion(output);
  if (!version) throw new Error(`${path} -v did not print an HAProxy version: ${output.trim().slice(0, 200)}`);
  return { path, version };
}
