/**
 * The tests every shared-server kind (MySQLServer, PostgreSQLServer, RedisServer) runs against
 * a server that accepts connections and never answers: each call, aborted once it has
 * connected, rejects with an AbortError and leaves no connection open. Not used outside tests.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../../../../test/support/eventually.js';
import { connectionsTo, startHungServer, type HungServer } from '../testing.js';
/** One call of an external client under test, given the client, its resource and the call's options. */
export interface CancellableCall<C, R> {
  readonly name: string;
  call(client: C, resource: R, options: { signal: AbortSignal }): Promise<unknown>;
}

/**
 * describeCallsToHungServer registers, for each call, a test that starts it against a server
 * that accepts the connection and never answers, aborts it once it has connected, and expects
 * an AbortError, no connection left open from this process, and the server seeing it close.
 * `open` makes the resource (pointing at the hung server's port) and a connected client.
 */
export function describeCallsToHungServer<C, R>(
  kind: string,
  calls: readonly CancellableCall<C, R>[],
  open: (port: number) => Promise<{ client: C; resource: R }>,
): void {
  describe(`${kind}: calls to a server that never answers`, { timeout: 120_000 }, () => {
    let hung: HungServer;
    before(async () => {
      hung = await startHungServer();
    });
    after(async () => {
      await hung.close();
    });

    for (const c of calls) {
      test(`${c.name} is cancelled through the call's signal: it rejects with the abort reason and closes its connection`, async () => {
        const { client, resource } = await open(hung.port);
        const accepted = hung.accepted();
        const call = new AbortController();
        const running = c.call(client, resource, { signal: call.signal });
        running.catch(() => {}); // awaited below
        await eventually(() => hung.accepted() > accepted, 'the call connecting to the server');
        call.abort();
        await assert.rejects(running, (err: Error) => err.name === 'AbortError');
        await eventually(async () => (await connectionsTo(hung.port)) === 0, 'no connection left open to the server');
        await eventually(() => hung.open() === 0, 'the server seeing the connection closed');
      });
    }
  });
}
