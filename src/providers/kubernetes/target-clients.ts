/**
 * TargetClients keeps one TargetClient per distinct target (server, CA and credentials), so
 * the resources and checks of one Provider share connections and discovery; a changed Secret
 * makes a new client. At most `max` are kept (the least recently used is closed).
 */
import { createHash } from 'node:crypto';
import type { TargetCluster } from './credentials.js';
import { TargetClient } from './target-client.js';

export class TargetClients {
  private readonly clients = new Map<string, TargetClient>();

  constructor(private readonly max = 64) {}

  /** clientFor returns the client of `cluster`, made on first use. */
  clientFor(cluster: TargetCluster): TargetClient {
    const id = createHash('sha256').update(JSON.stringify(cluster)).digest('hex');
    const had = this.clients.get(id);
    if (had) {
      this.clients.delete(id);
      this.clients.set(id, had);
      return had;
    }
    const client = new TargetClient(cluster);
    this.clients.set(id, client);
    if (this.clients.size > this.max) {
      const [oldest, c] = this.clients.entries().next().value!;
      this.clients.delete(oldest);
      c.close();
    }
    return client;
  }

  /** close closes every client. */
  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
