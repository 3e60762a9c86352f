/**
 * Finding nats-server: `CONDUCTOR_NATS_BIN` (or the option) names it, else PATH and the
 * usual system directories; its version comes from `nats-server --version`.
 */
import { findExecutable, programOutput } from '../process/executable-lookup.js';
import { natsBinEnv } from './kinds.js';

/** A NatsBinary is the nats-server program NATSServer resources run, and its version. */
export interface NatsBinary {
  path: string;
  version: string;
}

/** parseNatsVersion reads the version out of `nats-server --version` ("nats-server: v2.9.10"). */
export function parseNatsVersion(output: string): string | undefined {
  return /\bv?(\d+\.\d+\.\d+)\b/.exec(output)?.[1];
}

/** resolveNatsBinary finds nats-server and asks it its version. */
export async function resolveNatsBinary(options: { path?: string; env?: NodeJS.ProcessEnv } = {}): Promise<NatsBinary> {
  const path = await findExecutable({ name: 'nats-server', explicit: options.path, envVar: natsBinEnv, env: options.env });
  const output = await programOutput(path, ['--version']);
  const version = parseNatsVersion(output);
  if (!version) throw new Error(`cannot read the version of ${path} from "${output.trim()}": want "nats-server: v<version>"`);
  return { path, version };
}
