/**
 * Test support: Google's Pub/Sub and Spanner emulators, as the Google Cloud CLI installs them
 * (`/usr/lib/google-cloud-sdk`, or CONDUCTOR_GCLOUD_SDK), on 127.0.0.1 ports picked free,
 * each started with a bounded wait for it to listen and stopped (SIGTERM, then SIGKILL) by
 * `stop`. The Pub/Sub emulator is a Java program (the CLI's `gcloud beta emulators pubsub
 * start` runs the same script); the Spanner emulator is the CLI's `emulator_main` binary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { eventually } from './eventually.js';

/** The Google Cloud CLI's root. */
export const gcloudSdk = process.env.CONDUCTOR_GCLOUD_SDK ?? '/usr/lib/google-cloud-sdk';
export const pubsubEmulatorBin = join(gcloudSdk, 'platform', 'pubsub-emulator', 'bin', 'cloud-pubsub-emulator');
export const spannerEmulatorBin = join(gcloudSdk, 'bin', 'cloud_spanner_emulator', 'emulator_main');

/** An Emulator is one running emulator. */
export interface Emulator {
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>`: how a gcp Provider's Secret names it. */
  readonly endpoint: string;
  /** Everything it printed, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

/** freePort asks the kernel for a port free now on 127.0.0.1 (the emulators take a port, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function startEmulator(what: string, bin: string, args: (port: number) => string[], env: Record<string, string> = {}): Promise<Emulator> {
  if (!existsSync(bin))
    throw new Error(`${what} emulator not found at ${bin}: install the Google Cloud CLI's emulator components (or set CONDUCTOR_GCLOUD_SDK)`);
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(bin, args(port), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`${what} emulator exited with ${child.exitCode}`);
        return await accepts(port);
      },
      `the ${what} emulator to listen on 127.0.0.1:${port}`,
      60_000,
      100,
    );
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${output.slice(-2000)}`, { cause: err });
  }
  return { host: '127.0.0.1', port, endpoint: `http://127.0.0.1:${port}`, log: () => output, stop };
}

/** startPubSubEmulator starts the Pub/Sub emulator (in memory) and waits until it listens. */
export function startPubSubEmulator(): Promise<Emulator> {
  return startEmulator('Pub/Sub', pubsubEmulatorBin, (port) => ['--host=127.0.0.1', `--port=${port}`], { JAVA_OPTS: '-Xmx256m' });
}

/** startSpannerEmulator starts the Spanner emulator (gRPC, in memory) and waits until it listens. */
export function startSpannerEmulator(): Promise<Emulator> {
  return startEmulator('Spanner', spannerEmulatorBin, (port) => [`--host_port=127.0.0.1:${port}`]);
}
