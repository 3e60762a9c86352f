/**
 * Test support: a real Azurite (the Azure Storage emulator from npm, a devDependency) on
 * 127.0.0.1 with ports the kernel picks, data in memory, and one storage account of the
 * test's own (`AZURITE_ACCOUNTS`), whose key is random — not the well-known development key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.js';

/** An Azurite is one running emulator with one account. */
export interface Azurite {
  readonly accountName: string;
  /** The account's base64 key. */
  readonly accountKey: string;
  /** `http://127.0.0.1:<port>/<account>`. */
  readonly blobEndpoint: string;
  readonly queueEndpoint: string;
  /** Everything it printed, for failure messages. */
  log(): string;
  /** stop ends the process (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** The emulator's entry point (blob, queue and table services in one process). */
export function azuriteScript(): string {
  return join(require.resolve('azurite/package.json'), '..', 'dist', 'src', 'azurite.js');
}

/** startAzurite starts Azurite with one account (`accountName`, a random key) and waits until both services listen. */
export async function startAzurite(accountName = 'conductortest'): Promise<Azurite> {
  const accountKey = randomBytes(64).toString('base64');
  // Azurite writes a debug log and an extent folder relative to its working directory even in memory.
  const cwd = mkdtempSync(join(tmpdir(), 'conductor-azurite-'));
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [
      azuriteScript(),
      '--inMemoryPersistence',
      '--skipApiVersionCheck',
      '--disableTelemetry',
      '--loose',
      // Megabytes of blob data kept in memory (default: half the machine's memory).
      '--extentMemoryLimit',
      '256',
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      '0',
      '--queueHost',
      '127.0.0.1',
      '--queuePort',
      '0',
      '--tableHost',
      '127.0.0.1',
      '--tablePort',
      '0',
    ],
    { cwd, env: { ...process.env, AZURITE_ACCOUNTS: `${accountName}:${accountKey}` }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(cwd, { recursive: true, force: true });
  };
  const portOf = (service: string) => new RegExp(`${service} service is successfully listening at http://127\\.0\\.0\\.1:(\\d+)`).exec(output)?.[1];
  try {
    const [blobPort, queuePort] = await eventually(
      () => {
        if (child.exitCode !== null) throw new Error(`azurite exited with ${child.exitCode}`);
        const b = portOf('Blob');
        const q = portOf('Queue');
        return b && q ? [b, q] : undefined;
      },
      'azurite to listen',
      60_000,
      50,
    );
    return {
      accountName,
      accountKey,
      blobEndpoint: `http://127.0.0.1:${blobPort}/${accountName}`,
      queueEndpoint: `http://127.0.0.1:${queuePort}/${accountName}`,
      log: () => output,
      stop,
    };
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${output.slice(-2000)}`, { cause: err });
  }
}
