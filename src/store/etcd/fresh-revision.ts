/**
 * FreshRevision hands out etcd's current revision read by a linearizable call that started
 * after the caller asked, sharing one call between the callers that asked close together.
 *
 * Why "started after": a read that was already on its way when a caller asked may have been
 * answered before a write that was acknowledged just before the caller asked; its revision
 * would not cover that write. So callers never join a read that was sent: they join the next
 * one, which is sent at the end of the turn of the event loop after the one in which its first
 * caller asked (`gatherTurns`, two `setImmediate` hops): every request the server received in
 * those turns shares it, including those that arrive just after a batch of answers went out.
 *
 * One read is on its way at a time (`maxInFlight`); the callers that ask meanwhile share the
 * next one, sent once it comes back. A read costs far more than the wait: ~190–250 µs of etcd's
 * CPU whatever the read's shape, on this project's bench, where etcd, the server and the client
 * share two cores; fewer reads, each shared by more gets, gave more gets/s than several reads on
 * their way at once, and gathering longer than these two turns gave no more (src/store/etcd/README.md
 * has the figures).
 */
export class FreshRevision {
  /** Reads sent and not answered yet. */
  private inFlight = 0;
  /** The read the next callers share, not sent yet. */
  private next: { promise: Promise<number>; resolve: (revision: number) => void; reject: (err: unknown) => void } | undefined;
  private scheduled = false;
  /** Reads made (for tests and diagnostics). */
  reads = 0;

  constructor(
    private readonly readRevision: () => Promise<number>,
    /** Reads on their way at once, at most. */
    private readonly maxInFlight = 1,
    /** The turns of the event loop a read waits for callers, counting the first caller's (at least 1). */
    private readonly gatherTurns = 2,
  ) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError(`maxInFlight ${maxInFlight}: expected an integer of at least 1`);
    if (!Number.isInteger(gatherTurns) || gatherTurns < 1) throw new RangeError(`gatherTurns ${gatherTurns}: expected an integer of at least 1`);
  }

  /** read resolves to a revision at least as new as every write acknowledged before this call. */
  read(): Promise<number> {
    if (!this.next) {
      let resolve!: (revision: number) => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<number>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.next = { promise, resolve, reject };
      this.schedule();
    }
    return this.next.promise;
  }

  /**
   * schedule sends the next read at the end of the `gatherTurns`-th turn from this one, when one
   * is wanted and the limit allows.
   */
  private schedule(): void {
    if (this.scheduled || !this.next || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    let turns = this.gatherTurns;
    const hop = () => {
      if (--turns > 0) {
        setImmediate(hop);
        return;
      }
      this.scheduled = false;
      this.send();
    };
    setImmediate(hop);
  }

  private send(): void {
    const next = this.next;
    if (!next || this.inFlight >= this.maxInFlight) return;
    this.next = undefined;
    this.inFlight++;
    this.reads++;
    let read: Promise<number>;
    try {
      read = this.readRevision();
    } catch (err) {
      read = Promise.reject(err);
    }
    const done = () => {
      this.inFlight--;
      this.schedule();
    };
    read.then(
      (revision) => {
        done();
        next.resolve(revision);
      },
      (err: unknown) => {
        done();
        next.reject(err);
      },
    );
  }
}
