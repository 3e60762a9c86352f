/**
 * What `conductor server` says while it starts slowly: once a second, after the first second,
 * a line on stderr naming what the start waits for (`conductor: starting (3s): waiting for etcd
 * at http://…`), from the steps the API server reports (`ServerOptions.onStartStep`). A start
 * that takes less than a second prints nothing.
 */

export interface StartProgressOptions {
  /** Where lines go (stderr). */
  write: (line: string) => void;
  /** The clock (tests give a fake one); default Date.now. */
  now?: () => number;
  /** How long a start may take before it is reported, and then how often; default 1000 ms. */
  everyMs?: number;
  /** Start the periodic check (default true; tests call `tick` themselves). */
  timer?: boolean;
}

export class StartProgress {
  private waitingFor = 'the server to start';
  private readonly startedAt: number;
  private readonly now: () => number;
  private readonly everyMs: number;
  private readonly interval: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(private readonly options: StartProgressOptions) {
    this.now = options.now ?? Date.now;
    this.everyMs = options.everyMs ?? 1000;
    this.startedAt = this.now();
    if (options.timer !== false) {
      this.interval = setInterval(() => this.tick(), this.everyMs);
      this.interval.unref();
    }
  }

  /** The start now waits for `what`. */
  step(what: string): void {
    this.waitingFor = what;
  }

  /** Says what the start waits for, when it has taken a second or more (the timer calls this once a second). */
  tick(): void {
    if (this.finished) return;
    const elapsed = this.now() - this.startedAt;
    if (elapsed < this.everyMs) return;
    this.options.write(`conductor: starting (${Math.floor(elapsed / 1000)}s): waiting for ${this.waitingFor}…\n`);
  }

  /** The start ended (ready or failed): nothing more is said. */
  done(): void {
    this.finished = true;
    clearInterval(this.interval);
  }
}
