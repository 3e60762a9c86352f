/**
 * The thread that sends the target clients' requests (target-thread.ts starts it): it owns
 * their keep-alive connections — TLS, HTTP/1.1 framing and the bodies' bytes — so none of that
 * runs on the process's main thread, which serves the control plane. It is told to open a
 * client (its TLS options, which verify the server as the main thread's would), to send a
 * request (method, URL, headers, body text) and to cancel one; it answers with the status and
 * the body's text, or with the error's code and message, which the main thread turns into a
 * TargetError exactly as before. It parses nothing and decides nothing.
 */
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { parentPort } from 'node:worker_threads';
import { CLOSED_CLIENT, type ThreadAnswer, type ThreadCommand } from './target-thread-protocol.js';

const port = parentPort;
if (!port) throw new Error('target-request-worker.js runs only as a worker thread (started by target-thread.ts)');

const agents = new Map<number, Agent>();
const running = new Map<number, ClientRequest>();

/** Answers not posted yet: those of one turn of the event loop go in one message. */
let outbox: ThreadAnswer[] = [];

function answer(a: ThreadAnswer): void {
  outbox.push(a);
  if (outbox.length === 1) {
    setImmediate(() => {
      const batch = outbox;
      outbox = [];
      port!.postMessage(batch);
    });
  }
}

function send(c: Extract<ThreadCommand, { op: 'request' }>): void {
  const agent = agents.get(c.client);
  if (!agent) {
    answer({ id: c.id, error: { code: 'ERR_CLIENT_CLOSED', message: CLOSED_CLIENT } });
    return;
  }
  let done = false;
  const finish = (a: ThreadAnswer) => {
    if (done) return;
    done = true;
    running.delete(c.id);
    answer(a);
  };
  const req = request(c.url, { method: c.method, agent, headers: c.headers }, (res) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    res.on('data', (d: Buffer) => {
      bytes += d.length;
      if (bytes <= c.maxBytes) chunks.push(d);
      else {
        req.destroy();
        finish({ id: c.id, tooLarge: true });
      }
    });
    res.on('error', (err: Error & { code?: string }) => finish({ id: c.id, error: { code: err.code, message: err.message } }));
    res.on('end', () => finish({ id: c.id, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
  });
  running.set(c.id, req);
  req.on('error', (err: Error & { code?: string }) => finish({ id: c.id, error: { code: err.code, message: err.message } }));
  if (c.body !== undefined) req.write(c.body);
  req.end();
}

port.on('message', (batch: ThreadCommand[]) => {
  for (const c of batch) obey(c);
});

function obey(c: ThreadCommand): void {
  switch (c.op) {
    case 'open':
      agents.set(c.client, new Agent({ keepAlive: true, maxSockets: c.maxSockets, ...c.tls }));
      return;
    case 'close':
      agents.get(c.client)?.destroy();
      agents.delete(c.client);
      return;
    case 'request':
      send(c);
      return;
    case 'cancel':
      running.get(c.id)?.destroy();
      running.delete(c.id);
      return;
  }
}
