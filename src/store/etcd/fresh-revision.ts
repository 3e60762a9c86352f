/**
 * FreshRevision hands out etcd's current revision read by a linearizable call that started
 * after the caller asked, sharing one call between every caller that asked meanwhile.
 *
 * Why "started after": a read that was already on its way when a caller asked may have been
 * answered before a write that was acknowledged just before the caller asked; its revision
 * would not cover that write. So a caller joins the read in flight only if it has not started
 * yet: with one read in flight, later callers wait for the next one, which starts as soon as
 * the one in flight ends. Under load every round trip to etcd serves every caller that came
 * during the previous one.
 */
export class FreshRevision {
  /** The read on its way to etcd. */
  private inFlight: Promise<number> | undefined;
  /** The read that starts when `inFlight` ends, shared by the callers that came meanwhile. */
  private queued: Promise<number> | undefined;
  /** Reads made (for tests and diagnostics). */
  reads = 0;

  constructor(private readonly readRevision: () => Promise<number>) {}

  /** read resolves to a revision at least as new as every write acknowledged before this call. */
  read(): Promise<number> {
    const current = this.inFlight;
    if (!current) return this.launch();
    this.queued ??= current.then(
      () => this.launchQueued(),
      () => this.launchQueued(),
    );
    return this.queued;
  }

  private launchQueued(): Promise<number> {
    this.queued = undefined;
    return this.launch();
  }

  private launch(): Promise<number> {
    this.reads++;
    const read = this.readRevision();
    this.inFlight = read;
    const done = () => {
      if (this.inFlight === read) this.inFlight = undefined;
    };
    read.then(done, done);
    return read;
  }
}
