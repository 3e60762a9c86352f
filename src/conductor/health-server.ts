/**
 * The health endpoints of `conductor controllers`: `/healthz` and `/livez` answer `ok` while
 * the process runs; `/readyz` answers `ok` once Conductor's CRDs are installed and the process
 * takes part (leading, or standing by behind another replica). `?verbose` lists each check,
 * with who leads. `/metrics` (when given a registry) answers the controllers' series in
 * Prometheus' text format. Anything else is 404. Plain HTTP: it says nothing secret (counts,
 * durations and the names of kinds and controllers, no object's name or content).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClusterControllersState } from './cluster-controllers.js';

export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

function checks(state: ClusterControllersState): { name: string; ok: boolean; detail: string }[] {
  const role =
    state.role === 'leading'
      ? `leading (${state.identity})`
      : state.role === 'standing-by'
        ? `standing by; ${state.leader} leads`
        : state.role === 'running'
          ? 'running without leader election'
          : 'campaigning for the lease';
  return [
    { name: 'crds', ok: state.crdsInstalled, detail: state.crdsInstalled ? 'installed' : 'not installed yet' },
    { name: 'leader-election', ok: state.role !== 'starting', detail: role },
    { name: 'controllers', ok: true, detail: state.controllersRunning ? 'running here' : 'not running here' },
  ];
}

/** What `/metrics` renders: a MetricsRegistry (metrics/registry.ts) fits. */
export interface MetricsText {
  readonly contentType: string;
  text(): Promise<string>;
}

export async function startHealthServer(host: string, port: number, state: () => ClusterControllersState, metrics?: MetricsText): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://health');
    const verbose = url.searchParams.has('verbose');
    const send = (code: number, body: string) => res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(body);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    if (url.pathname === '/healthz' || url.pathname === '/livez') return send(200, 'ok');
    if (url.pathname === '/metrics' && metrics) {
      metrics.text().then(
        (body) => res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(body),
        (err: unknown) => send(500, `cannot render the metrics: ${err instanceof Error ? err.message : String(err)}\n`),
      );
      return;
    }
    if (url.pathname !== '/readyz') return send(404, 'not found\n');
    const list = checks(state());
    const ok = list.every((c) => c.ok);
    if (!verbose)
      return send(
        ok ? 200 : 503,
        ok
          ? 'ok'
          : `${list
              .filter((c) => !c.ok)
              .map((c) => `${c.name}: ${c.detail}`)
              .join('\n')}\n`,
      );
    const lines = list.map((c) => `[${c.ok ? '+' : '-'}]${c.name} ${c.ok ? 'ok' : 'failed'}: ${c.detail}`);
    return send(ok ? 200 : 503, `${lines.join('\n')}\nreadyz check ${ok ? 'passed' : 'failed'}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
