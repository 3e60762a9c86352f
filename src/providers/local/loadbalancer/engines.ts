/**
 * The two listener engines: the port forwarder's own proxy process (proxy-main.js, run by
 * this Node) and haproxy in master-worker mode.
 */
import { execFile } from 'node:child_process';
import { open, readFile, stat } from 'node:fs/promises';
import { abortReason } from '../../../machinery/abort.js';
import { distFile } from '../../../machinery/package-files.js';
import { abortableSleep } from '../process/daemons.js';
import { isAlive } from '../process/processes.js';
import { renderHAProxyConfig } from './haproxy-config.js';
import type { HAProxyBinary } from './haproxy-binary.js';
import type { ListenerEngine, ListenerFiles } from './listeners.js';
import { loadedFileFor, renderProxyConfig } from './proxy-config.js';

/** The proxy script the build writes beside this module's compiled form (dist/src/…/proxy-main.js). */
export function proxyScriptPath(): string {
  return distFile('src/providers/local/loadbalancer/proxy-main.js');
}

const reloadTimeoutMs = 10_000;

/** proxyEngine runs proxy-main.js with this Node; SIGHUP reloads, and the script reports the hash it loaded. */
export function proxyEngine(script = proxyScriptPath(), node = process.execPath): ListenerEngine {
  return {
    server: 'port forwarder proxy',
    configFileName: 'proxy.json',
    render: (desired, address, port) =>
      renderProxyConfig({ listen: { host: address, port }, backends: desired.backends, ...(desired.allowLinkLocal ? { allowLinkLocal: true } : {}) }),
    command: (files) => ({ program: node, args: [script, files.config] }),
    writes: (files) => [loadedFileFor(files.config)],
    stopSignal: 'SIGTERM',
    async reload(pid, files, hash, signal) {
      signal?.throwIfAborted();
      process.kill(pid, 'SIGHUP');
      const deadline = Date.now() + reloadTimeoutMs;
      for (;;) {
        const loaded = (await readFile(loadedFileFor(files.config), 'utf8').catch(() => '')).trim();
        if (loaded === hash) return;
        if (!(await isAlive(pid))) throw new Error(`the proxy process ${pid} exited while reloading ${files.config}`);
        if (Date.now() >= deadline)
          throw new Error(`the proxy process ${pid} did not load ${files.config} within ${reloadTimeoutMs} ms (it serves ${loaded || 'nothing known'})`);
        await abortableSleep(50, signal);
      }
    },
  };
}

/** run runs a program to its end; an abort of `signal` kills it and rejects with the signal's reason. */
function run(program: string, args: string[], signal?: AbortSignal): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: 15_000, killSignal: 'SIGKILL', ...(signal ? { signal } : {}) }, (err, stdout, stderr) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim() });
    });
  });
}

async function sizeOf(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

async function readFrom(path: string, offset: number): Promise<string> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return '';
  try {
    const size = (await handle.stat()).size;
    if (size <= offset) return '';
    const buffer = Buffer.alloc(size - offset);
    await handle.read(buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * haproxyEngine runs `haproxy -W -db -f <cfg> -p <pid>`: a master that stays in the
 * foreground of its detached process and a worker. SIGUSR2 makes the master reload the
 * config (it logs "Loading success" or "Loading failure"); SIGTERM stops both.
 */
export function haproxyEngine(binary: HAProxyBinary, owner: (files: ListenerFiles) => string = (f) => f.dir): ListenerEngine {
  return {
    server: 'haproxy',
    configFileName: 'haproxy.cfg',
    render: (desired, address, port) =>
      renderHAProxyConfig({ owner: `${desired.namespace}/${desired.name}`, address, port, protocol: desired.protocol, backends: desired.backends }),
    command: (files) => ({ program: binary.path, args: ['-W', '-db', '-f', files.config, '-p', `${files.dir}/haproxy.pid`] }),
    writes: (files) => [`${files.dir}/haproxy.pid`],
    stopSignal: 'SIGTERM',
    async check(files, signal) {
      const { code, output } = await run(binary.path, ['-c', '-q', '-f', files.config], signal);
      if (code !== 0) throw new Error(`haproxy rejects the config written for ${owner(files)}: ${output.split('\n').slice(-5).join(' | ')}`);
    },
    async reload(pid, files, _hash, signal) {
      signal?.throwIfAborted();
      const from = await sizeOf(files.log);
      process.kill(pid, 'SIGUSR2');
      const deadline = Date.now() + reloadTimeoutMs;
      for (;;) {
        const text = await readFrom(files.log, from);
        if (/Loading success/.test(text)) return;
        if (/Loading failure/.test(text))
          throw new Error(`haproxy (pid ${pid}) could not reload ${files.config}: ${text.trim().split('\n').slice(-3).join(' | ')}`);
        if (!(await isAlive(pid))) throw new Error(`haproxy (pid ${pid}) exited while reloading ${files.config}`);
        if (Date.now() >= deadline) throw new Error(`haproxy (pid ${pid}) did not report reloading ${files.config} within ${reloadTimeoutMs} ms`);
        await abortableSleep(50, signal);
      }
    },
  };
}
