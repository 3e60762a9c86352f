/**
 * The `log` subresource of concrete kinds (`GET …/<plural>/<name>/log[?follow=true&tailLines=N]`,
 * authorized as `get` on `<plural>/log`, as kube authorizes `pods/log`): the log of the server
 * or proxy Conductor runs for the resource, as plain text. The file is the one the provider's
 * observation recorded in `status.atProvider.logFile` — written by the controllers only — and
 * is served only when it lies under the directory the kind declares (`ConcreteKind.logRoot`).
 * A tenant never names a path.
 */
import type { ServerResponse } from 'node:http';
import { errors } from '../machinery/errors.js';
import { isPlainObject } from '../machinery/object.js';
import type { ReadSubresource } from '../apiserver/http/dispatcher.js';
import type { ResourceType } from '../apiserver/registry/resource-type.js';
import type { ObjectStore } from '../apiserver/storage/object-store.js';
import type { ConcreteKind, ProviderModule } from '../providers/index.js';
import { containedLogFile, streamLog } from './log-file.js';

/** The kinds with logs, known once the providers have started in this process. */
export interface LogSubresource {
  readonly subresource: ReadSubresource;
  /** The providers started: their kinds with a `logRoot` serve logs. */
  providersStarted(modules: readonly ProviderModule[]): void;
  /** The providers stopped (or run elsewhere): logs are not served. */
  providersStopped(): void;
  /** Ends every followed log (the server is stopping). */
  stop(): void;
}

export interface LogSubresourceOptions {
  objects: ObjectStore;
  /** Whether group/resource is a concrete kind (the catalog's, or an installed one). */
  isConcrete(group: string, resource: string): boolean;
  /** How often a followed file is looked at (default 250 ms). */
  pollMs?: number;
}

const key = (group: string, resource: string) => `${resource}.${group}`;

/** parseLogQuery reads `follow` and `tailLines`, refusing what is not a boolean or a whole number. */
export function parseLogQuery(q: URLSearchParams): { follow: boolean; tailLines?: number } {
  const follow = q.get('follow');
  if (follow !== null && !['true', 'false', '1', '0', ''].includes(follow)) {
    throw errors.badRequest(`invalid value for query parameter "follow": ${JSON.stringify(follow.slice(0, 20))} (expected true or false)`);
  }
  const tail = q.get('tailLines');
  if (tail !== null && (!/^\d{1,9}$/.test(tail) || Number(tail) < 0)) {
    throw errors.badRequest(`invalid value for query parameter "tailLines": ${JSON.stringify(tail.slice(0, 20))} (expected a whole number ≥ 0)`);
  }
  return { follow: follow === 'true' || follow === '1', ...(tail !== null ? { tailLines: Number(tail) } : {}) };
}

export function logSubresource(o: LogSubresourceOptions): LogSubresource {
  let kinds: Map<string, ConcreteKind> | undefined;
  const stopping = new AbortController();

  const subresource: ReadSubresource = {
    subresource: 'log',
    serves: (group, resource) => o.isConcrete(group, resource),
    longRunning: (q) => q.get('follow') === 'true' || q.get('follow') === '1',
    async serve(_ctx, rt: ResourceType, target, query, res: ServerResponse) {
      const opts = parseLogQuery(query);
      const stored = await o.objects.get(rt, target.namespace, target.name);
      if (!stored) throw errors.notFound(rt, target.name);
      if (!kinds) {
        throw errors.serviceUnavailable(
          `the providers do not run in this server (yet): logs of ${rt.kind} are served by the server that runs the controllers, once they have started`,
        );
      }
      const kind = kinds.get(key(rt.group, rt.resource));
      if (!kind?.logRoot) throw errors.badRequest(`${rt.kind} runs nothing on this machine: it has no log`);
      const status = stored.obj.status;
      const atProvider = isPlainObject(status) ? status.atProvider : undefined;
      const recorded = isPlainObject(atProvider) ? atProvider.logFile : undefined;
      if (typeof recorded !== 'string') {
        throw errors.badRequest(
          `${rt.kind} ${target.name} has no log yet: status.atProvider.logFile is set once its server has been created and observed (see conductor trace)`,
        );
      }
      const file = await containedLogFile(kind.logRoot, recorded);
      if (!file) {
        throw errors.badRequest(`${rt.kind} ${target.name}: its log file is missing, or its recorded path is not under ${kind.logRoot}`);
      }
      const reader = new AbortController();
      const abort = () => reader.abort();
      res.on('close', abort);
      stopping.signal.addEventListener('abort', abort, { once: true });
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff' });
      if (opts.follow) res.flushHeaders();
      try {
        await streamLog(file, {
          ...opts,
          pollMs: o.pollMs,
          signal: reader.signal,
          write: (chunk) =>
            new Promise<void>((resolve) => {
              if (res.write(chunk)) resolve();
              else {
                const go = () => {
                  res.off('drain', go);
                  res.off('close', go);
                  resolve();
                };
                res.on('drain', go);
                res.on('close', go);
              }
            }),
        });
      } finally {
        res.off('close', abort);
        stopping.signal.removeEventListener('abort', abort);
        if (!res.writableEnded) res.end();
      }
    },
  };

  return {
    subresource,
    providersStarted(modules) {
      kinds = new Map(modules.flatMap((m) => m.kinds.map((k) => [key(k.group, k.plural), k] as const)));
    },
    providersStopped() {
      kinds = undefined;
    },
    stop() {
      stopping.abort();
    },
  };
}
