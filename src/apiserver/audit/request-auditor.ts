/**
 * A RequestAuditor follows each HTTP request through the dispatcher — who made it, what it
 * asked for — and records one AuditEntry when the response finishes (a watch: when it
 * starts). It gives each request an id, sent back in the `Audit-Id` header.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { AuditEntry, AuditLog } from './audit-log.js';

/** What the dispatcher learns about a request, as it learns it. */
export interface AuditAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

interface Pending {
  id: string;
  start: number;
  time: string;
  /** Taken when the request arrives: once the response is done the socket may be gone (req.socket is null). */
  sourceIP: string;
  userAgent: string;
  user?: { name: string; groups: string[] };
  attrs?: AuditAttributes;
  done: boolean;
}

export class RequestAuditor {
  private readonly pending = new WeakMap<IncomingMessage, Pending>();

  constructor(
    private readonly log: AuditLog,
    private readonly now: () => number = () => performance.now(),
    private readonly logger?: Logger,
  ) {}

  /** Starts following a request; records it when the response finishes or the connection closes. */
  begin(req: IncomingMessage, res: ServerResponse): void {
    const p: Pending = {
      id: randomUUID(),
      start: this.now(),
      time: new Date().toISOString(),
      sourceIP: req.socket?.remoteAddress ?? '',
      userAgent: String(req.headers['user-agent'] ?? '').slice(0, 512),
      done: false,
    };
    this.pending.set(req, p);
    res.setHeader('Audit-Id', p.id);
    res.once('finish', () => this.emit(req, p, res.statusCode));
    res.once('close', () => this.emit(req, p, res.headersSent ? res.statusCode : 0));
  }

  /** The authenticated user. */
  identify(req: IncomingMessage, user: { name: string; groups: string[] }): void {
    const p = this.pending.get(req);
    if (p) p.user = user;
  }

  /** The request's verb and resource, once routed. */
  describe(req: IncomingMessage, attrs: AuditAttributes): void {
    const p = this.pending.get(req);
    if (p) p.attrs = attrs;
  }

  /** A watch has started streaming: record it now rather than when it ends. */
  started(req: IncomingMessage, res: ServerResponse): void {
    const p = this.pending.get(req);
    if (p) this.emit(req, p, res.statusCode);
  }

  /** Records the entry once; runs in 'finish'/'close' listeners, where a throw would end the process, so it never throws. */
  private emit(req: IncomingMessage, p: Pending, code: number): void {
    if (p.done) return;
    p.done = true;
    try {
      this.record(req, p, code);
    } catch (err) {
      this.logger?.error({ err, requestId: p.id }, 'cannot record an audit entry');
    }
  }

  private record(req: IncomingMessage, p: Pending, code: number): void {
    const a = p.attrs;
    let path = req.url ?? '';
    const q = path.indexOf('?');
    if (q >= 0) path = path.slice(0, q);
    const entry: AuditEntry = {
      time: p.time,
      requestId: p.id,
      user: p.user?.name ?? '',
      groups: p.user?.groups ?? [],
      verb: a?.verb ?? '',
      apiGroup: a?.group ?? '',
      apiVersion: a?.version ?? '',
      resource: a?.resource ?? '',
      subresource: a?.subresource ?? '',
      namespace: a?.namespace ?? '',
      name: a?.name ?? '',
      path: path.length > 2048 ? `${path.slice(0, 2048)}…` : path,
      method: req.method ?? '',
      code,
      latencyMs: Math.round((this.now() - p.start) * 1000) / 1000,
      sourceIP: p.sourceIP,
      userAgent: p.userAgent,
    };
    this.log.record(entry);
  }
}
