/**
 * Test support: a raw HTTPS client for the API server, authenticated with the admin token
 * from the generated kubeconfig, for tests that check exact status codes and bodies.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse } from 'yaml';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

export interface ApiHandle {
  url: string;
  token: string;
  ca: string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RawResponse>;
  /** Opens a watch and collects its events until `stop()`. */
  watch(path: string): WatchStream;
  close(): void;
}

export interface WatchStream {
  events: { type: string; object: any }[];
  /** Resolves when `predicate` holds for the collected events (rejects after timeoutMs). */
  until(predicate: (events: { type: string; object: any }[]) => boolean, timeoutMs?: number): Promise<void>;
  ended: Promise<void>;
  status: Promise<number>;
  stop(): void;
}

export function apiFromKubeconfig(kubeconfigPath: string): ApiHandle {
  const kc = parse(readFileSync(kubeconfigPath, 'utf8'));
  const ctxName = kc['current-context'];
  const ctx = kc.contexts.find((c: any) => c.name === ctxName).context;
  const cluster = kc.clusters.find((c: any) => c.name === ctx.cluster).cluster;
  const user = kc.users.find((u: any) => u.name === ctx.user).user;
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString();
  const url: string = cluster.server;
  const token: string = user.token;
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca });

  const doRequest = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      const req = request(
        url + path,
        {
          method,
          agent,
          headers: {
            Authorization: `Bearer ${token}`,
            Accept: 'application/json',
            ...(payload !== undefined ? { 'Content-Type': 'application/json' } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
          });
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });

  const watch = (path: string): WatchStream => {
    const events: { type: string; object: any }[] = [];
    const waiters: (() => void)[] = [];
    let resolveEnded!: () => void;
    let resolveStatus!: (s: number) => void;
    const ended = new Promise<void>((r) => (resolveEnded = r));
    const status = new Promise<number>((r) => (resolveStatus = r));
    let buf = '';
    const req = request(url + path, { method: 'GET', headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' }, ca }, (res) => {
      resolveStatus(res.statusCode ?? 0);
      res.on('data', (d: Buffer) => {
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
        for (const w of waiters.splice(0)) w();
      });
      res.on('end', () => {
        if (buf.trim()) {
          try {
            events.push(JSON.parse(buf));
          } catch {
            // a non-JSON tail (an error body) is ignored here
          }
        }
        resolveEnded();
        for (const w of waiters.splice(0)) w();
      });
      res.on('error', () => resolveEnded());
    });
    req.on('error', () => {
      resolveStatus(0);
      resolveEnded();
    });
    req.end();
    return {
      events,
      ended,
      status,
      stop: () => req.destroy(),
      until(predicate, timeoutMs = 10_000) {
        return new Promise((resolve, reject) => {
          const timer = setTimeout(
            () =>
              reject(new Error(`watch condition not met in ${timeoutMs} ms; events: ${JSON.stringify(events.map((e) => [e.type, e.object?.metadata?.name]))}`)),
            timeoutMs,
          );
          const check = () => {
            if (predicate(events)) {
              clearTimeout(timer);
              resolve();
            } else waiters.push(check);
          };
          check();
        });
      },
    };
  };

  return { url, token, ca, request: doRequest, watch, close: () => agent.destroy() };
}
