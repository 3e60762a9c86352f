/**
 * FreshRevision hands out etcd's current revision read by a linearizable call that started
 * after the caller asked, sharing one call between the callers that asked in one turn of the
 * event loop.
 *
 * Why "started after": a read that was already on its way when a caller asked may have been
 * answered before a write that was acknowledged just before the caller asked; its revision
 * would not cover that write. So callers never join a read that was sent: they join the next
 * one, which is sent once the turn in which it was asked for ends (`setImmediate`: after every
 * request the server received in that turn), so that every get of one turn shares it.
 *
 * Several reads may be on their way at once (at most `maxInFlight`): a caller does not wait for
 * the read before it to come back before its own is sent (that wait was most of a get's time
 * under load); etcd answers concurrent linearizable reads together. Past the limit the next read
 * is sent when one comes back.
 */
export class FreshRevision {
  /** Reads sent and not answered yet. */
  private inFlight = 0;
  /** The read the callers of this turn share, not sent yet. */
  private next: { promise: Promise<number>; resolve: (revision: number) => void; reject: (err: unknown) => void } | undefined;
  private scheduled = false;
  /** Reads made (for tests and diagnostics). */
  reads = 0;

  constructor(
    private readonly readRevision: () => Promise<number>,
    private readonly maxInFlight = 4,
  ) {}

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

  /** schedule sends the next read at the end of this turn, when one is wanted and the limit allows. */
  private schedule(): void {
    if (this.scheduled || !this.next || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
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
