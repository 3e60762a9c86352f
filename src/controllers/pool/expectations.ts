/**
 * Expectations bridge the gap between a write and the informer event that shows it, the way
 * ReplicaSet controllers do: after creating or deleting members, a class is not sized again
 * until the cache shows those writes (or a timeout passes, in case an event was missed).
 * Without this, a second pass right after a create would still count the old members and
 * create again.
 */

/** What the cache shows now, asked about the writes a pass expects to see. */
export interface ExpectationProbe {
  /** The cache holds the member created under this name. */
  created(name: string): boolean;
  /** The cache no longer holds the member with this uid, or it is being deleted. */
  deleted(uid: string): boolean;
}

interface Pending {
  creates: Set<string>;
  deletes: Set<string>;
  deadline: number;
}

/** An Expectations records, per class key, the writes the cache has yet to show. */
export class Expectations {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** expect records writes just made for `key` (added to any still outstanding); the timeout restarts. */
  expect(key: string, writes: { creates?: readonly string[]; deletes?: readonly string[] }): void {
    const creates = writes.creates ?? [];
    const deletes = writes.deletes ?? [];
    if (creates.length === 0 && deletes.length === 0) return;
    const p = this.pending.get(key) ?? { creates: new Set<string>(), deletes: new Set<string>(), deadline: 0 };
    for (const n of creates) p.creates.add(n);
    for (const u of deletes) p.deletes.add(u);
    p.deadline = this.now() + this.timeoutMs;
    this.pending.set(key, p);
  }

  /**
   * waitMs drops what the probe shows has happened and returns 0 when nothing is
   * outstanding (or the timeout passed, which forgets the rest), else the milliseconds
   * left before the timeout.
   */
  waitMs(key: string, probe: ExpectationProbe): number {
    const p = this.pending.get(key);
    if (!p) return 0;
    for (const n of p.creates) if (probe.created(n)) p.creates.delete(n);
    for (const u of p.deletes) if (probe.deleted(u)) p.deletes.delete(u);
    const left = p.deadline - this.now();
    if ((p.creates.size === 0 && p.deletes.size === 0) || left <= 0) {
      this.pending.delete(key);
      return 0;
    }
    return left;
  }

  /** outstanding says whether creates or deletes of `key` are still awaited (or not yet timed out). */
  outstanding(key: string): boolean {
    return this.pending.has(key);
  }

  /** forget drops everything outstanding for `key`. */
  forget(key: string): void {
    this.pending.delete(key);
  }
}
