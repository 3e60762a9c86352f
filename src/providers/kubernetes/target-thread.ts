/**
 * The one thread per process that sends the target clients' requests
 * (target-request-worker.ts). A request to a target costs the thread that sends it TLS,
 * HTTP framing and socket work; on the main thread, which also serves the control plane's API
 * and runs its controllers, that was ~12% of its CPU in the kubernetes benchmark. Here the main
 * thread only posts the request (method, URL, headers, body text) and gets the answer's
 * status and text back.
 *
 * The thread starts with the first client opened and stops when the last one closes. It holds
 * the process open only while a request is outstanding (as a socket of its own would). If it
 * dies, the requests it had fail (as a reset connection: `ECONNRESET`) and the next request
 * starts it again with every open client.
 */
import { Worker } from 'node:worker_threads';
import { distFile } from '../../machinery/package-files.js';
import { CLOSED_CLIENT, type ThreadAnswer, type ThreadCommand, type ThreadTls } from './target-thread-protocol.js';

/** ThreadRequest is one request for the thread: what target-client.ts would give `https.request`. */
export interface ThreadRequest {
  method: string;
  url: string;
  headers: Record<string, string | number>;
  body: string | undefined;
  maxBytes: number;
}

/** A RequestThread sends requests for its open clients on a worker thread. */
export class RequestThread {
  private worker: Worker | undefined;
  private readonly clients = new Map<number, { tls: ThreadTls; maxSockets: number }>();
  private readonly pending = new Map<number, (a: ThreadAnswer) => void>();
  private nextClient = 1;
  private nextId = 1;

  /** open registers a client (its connections' TLS options and how many it keeps) and returns its number. */
  open(tls: ThreadTls, maxSockets: number): number {
    const client = this.nextClient++;
    this.clients.set(client, { tls, maxSockets });
    if (this.worker) this.post({ op: 'open', client, tls, maxSockets });
    return client;
  }

  /** close destroys a client's connections (its requests still running fail, as with Agent.destroy). */
  close(client: number): void {
    if (!this.clients.delete(client)) return;
    if (this.worker) this.post({ op: 'close', client });
    this.stopIfIdle();
  }

  /**
   * request sends one request of `client`; `answer` is called once with the thread's answer,
   * unless `cancel` is called first. Returns the request's id for `cancel`.
   */
  request(client: number, r: ThreadRequest, answer: (a: ThreadAnswer) => void): number {
    const id = this.nextId++;
    if (!this.clients.has(client)) {
      queueMicrotask(() => answer({ id, error: { code: 'ERR_CLIENT_CLOSED', message: CLOSED_CLIENT } }));
      return id;
    }
    const worker = this.running();
    if (this.pending.size === 0) worker.ref();
    this.pending.set(id, answer);
    this.post({ op: 'request', id, client, ...r });
    return id;
  }

  /** cancel destroys a request's connection; its answer is not delivered. */
  cancel(id: number): void {
    if (!this.pending.delete(id)) return;
    this.post({ op: 'cancel', id });
    this.settled();
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    // Found from the package root: this module also runs from a chunk of the bundled command (dist/cli/).
    const worker = new Worker(distFile('src/providers/kubernetes/target-request-worker.js'));
    worker.unref();
    worker.on('message', (batch: ThreadAnswer[]) => {
      for (const a of batch) {
        const answer = this.pending.get(a.id);
        if (!answer) continue;
        this.pending.delete(a.id);
        this.settled();
        answer(a);
      }
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.outbox = [];
      const answers = [...this.pending.entries()];
      this.pending.clear();
      for (const [id, answer] of answers) answer({ id, error: { code: 'ECONNRESET', message: `the thread sending target requests ${why}` } });
    };
    worker.on('error', (err) => lost(`failed: ${err.message}`));
    worker.on('exit', (code) => lost(`exited with code ${code}`));
    this.worker = worker;
    for (const [client, c] of this.clients) this.post({ op: 'open', client, tls: c.tls, maxSockets: c.maxSockets });
    return worker;
  }

  /** Commands not posted yet: those of one turn of the event loop go in one message. */
  private outbox: ThreadCommand[] = [];

  private post(c: ThreadCommand): void {
    if (!this.worker) return;
    this.outbox.push(c);
    if (this.outbox.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length > 0) this.worker?.postMessage(batch);
  }

  /** settled lets the process exit once no request is outstanding, and stops an unused thread. */
  private settled(): void {
    if (this.pending.size === 0) this.worker?.unref();
    this.stopIfIdle();
  }

  private stopIfIdle(): void {
    if (this.clients.size > 0 || this.pending.size > 0 || !this.worker) return;
    const worker = this.worker;
    this.worker = undefined;
    this.outbox = [];
    void worker.terminate();
  }
}

/** The process's thread for target requests. */
export const requestThread = new RequestThread();
