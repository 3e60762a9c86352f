/**
 * The logging surface the client's long-running parts (informers, work queues, leader
 * election) write to. It is the subset of pino's Logger they use, so a pino logger (or a
 * child of one) can be passed as is.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const nothing = (): void => {};

/** A silentLogger discards everything; it is the default wherever a logger is optional. */
export const silentLogger: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing };

/** Describes an unknown thrown value for a log line or an error message. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
