/**
 * Test support: a server process like `conductor server`, plus routes that throw in the ways
 * a bug in a request path can (for test/e2e/last-resort.test.ts). The routes exist only in
 * this test entry point, through the `testOnlyRoutes` server option; the `conductor` command
 * has no way to register them. Usage: node last-resort-server.js DATA_DIR
 */
import { pino } from 'pino';
import { startConductor } from '../../src/conductor/index.js';
import { installLastResortHandler } from '../../src/apiserver/http/last-resort.js';

const boom = (where: string) => new Error(`deliberate test failure: ${where}`);

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: last-resort-server.js DATA_DIR');
const logger = pino({ level: 'warn' }, pino.destination(2));
const server = await startConductor({
  dataDir,
  host: '127.0.0.1',
  port: 0,
  logger,
  controllers: false,
  testOnlyRoutes: {
    // Thrown in the handler itself: the dispatcher's own error path answers.
    '/test-only/throw': () => {
      throw boom('in the handler');
    },
    // Thrown from a callback the handler scheduled, before anything was sent.
    '/test-only/throw-in-callback': () => {
      setImmediate(() => {
        throw boom('in a callback');
      });
    },
    // A promise nobody awaits, rejected before anything was sent.
    '/test-only/reject-unawaited': () => {
      void Promise.resolve().then(() => {
        throw boom('in an unawaited promise');
      });
    },
    // Thrown after the headers and part of the body went out.
    '/test-only/throw-after-headers': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial ');
      setImmediate(() => {
        throw boom('after the headers');
      });
    },
    // Thrown by a listener once the response is complete (as the audit log's was, issue 10 item 4).
    '/test-only/throw-after-finish': (_req, res) => {
      res.once('finish', () => {
        throw boom('in a finish listener');
      });
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 4 });
      res.end('done');
    },
  },
});
installLastResortHandler(server.rescue, logger);
process.stdout.write(`conductor ready on ${server.url} (kubeconfig: ${server.kubeconfigPath})\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
