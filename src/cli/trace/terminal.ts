/**
 * How `conductor trace` dresses its output for a person at a terminal: colour for the READY
 * and SYNCED cells and a spinner while it fetches, only when stdout is a TTY and NO_COLOR is
 * unset (https://no-color.org: any value, even empty, turns colour off) and TERM is not
 * `dumb`. Piped, redirected or asked not to, the output is plain text, byte for byte what the
 * golden tests read.
 */

/** What the terminal gets. */
export interface TerminalStyle {
  color: boolean;
  spinner: boolean;
}

/** The parts of a stream and an environment the decision reads. */
export interface TerminalFacts {
  isTTY: boolean | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

export function terminalStyle({ isTTY, env }: TerminalFacts): TerminalStyle {
  const fancy = isTTY === true && env['NO_COLOR'] === undefined && env['TERM'] !== 'dumb';
  return { color: fancy, spinner: fancy };
}

const SGR = { green: '\x1b[32m', red: '\x1b[31m', yellow: '\x1b[33m', reset: '\x1b[0m' } as const;

/** A condition status cell in colour: True green, False red, Unknown yellow; anything else (`-`) as it is. */
export function colorStatus(status: string): string {
  switch (status) {
    case 'True':
      return `${SGR.green}${status}${SGR.reset}`;
    case 'False':
      return `${SGR.red}${status}${SGR.reset}`;
    case 'Unknown':
      return `${SGR.yellow}${status}${SGR.reset}`;
    default:
      return status;
  }
}

/** Where a spinner draws: a TTY stream's `write`. */
export interface SpinnerStream {
  write(chunk: string): unknown;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

/**
 * A Spinner draws `⠋ fetching…` on one line, redrawn every `intervalMs`, until `stop` clears
 * the line (so what is printed next starts on a clean line). Its timer does not keep the
 * process alive.
 */
export class Spinner {
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: SpinnerStream,
    private readonly text: string,
    private readonly intervalMs = 80,
  ) {}

  start(): this {
    this.draw();
    this.timer = setInterval(() => this.draw(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** Draws the next frame (what the timer calls). */
  draw(): void {
    this.stream.write(`${CLEAR_LINE}${FRAMES[this.frame]} ${this.text}`);
    this.frame = (this.frame + 1) % FRAMES.length;
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write(CLEAR_LINE);
  }
}

/** withSpinner runs `work` with a spinner on `stream` when `enabled`, cleared before it returns or throws. */
export async function withSpinner<T>(enabled: boolean, stream: SpinnerStream, text: string, work: () => Promise<T>): Promise<T> {
  const spinner = enabled ? new Spinner(stream, text).start() : undefined;
  try {
    return await work();
  } finally {
    spinner?.stop();
  }
}
