/**
 * Test support: servers on 127.0.0.1 that answer every request "unavailable" and count the
 * requests, to show how many attempts an SDK client makes for one call (mocked: they stand in
 * for a cloud endpoint that is down). `startUnavailableHttp` answers HTTP 503 with an empty
 * body — a status every SDK here retries by default; `startUnavailableGrpc` answers every gRPC
 * call (HTTP/2 without TLS) with status UNAVAILABLE (14) in a trailers-only response.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createH2Server, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** An UnavailableServer is one of these servers, started. */
export interface UnavailableServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** How many requests (HTTP) or calls (gRPC) reached it. */
  requests(): number;
  stop(): Promise<void>;
}

async function listen(server: Server | Http2Server, count: () => number): Promise<UnavailableServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: count,
    stop: () =>
      new Promise<void>((resolve) => {
        (server as Server).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** startUnavailableHttp answers every HTTP request 503 Service Unavailable. */
export async function startUnavailableHttp(): Promise<UnavailableServer> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    req.resume();
    req.on('end', () => {
      res.writeHead(503, { 'content-type': 'text/plain', 'content-length': '0', connection: 'close' });
      res.end();
    });
  });
  return listen(server, () => n);
}

/** startUnavailableGrpc answers every gRPC call with status 14 UNAVAILABLE. */
export async function startUnavailableGrpc(): Promise<UnavailableServer> {
  let n = 0;
  const sessions = new Set<ServerHttp2Session>();
  const server = createH2Server();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream) => {
    n++;
    stream.on('error', () => undefined);
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14', 'grpc-message': 'unavailable (test server)' },
      { endStream: true },
    );
    stream.resume();
  });
  const started = await listen(server, () => n);
  return {
    ...started,
    stop: async () => {
      for (const s of sessions) s.destroy();
      await started.stop();
    },
  };
}
