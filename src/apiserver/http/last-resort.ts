/**
 * The process's last resort: an exception nobody caught must not end a server that is
 * serving other requests. One thrown while a request was being served (in any of its
 * callbacks, timers or promises) answers that request 500 and is logged; one that belongs
 * to no request still ends the process, since the state it left behind is unknown.
 */
import type { Logger } from 'pino';

/**
 * installLastResortHandler routes uncaught exceptions and unhandled rejections to `rescue`
 * (RunningServer.rescue); what it does not claim is logged as fatal and exits with code 1,
 * as Node would. It returns a function that removes the handlers.
 */
export function installLastResortHandler(rescue: (err: unknown) => boolean, logger: Logger): () => void {
  const onException = (err: unknown, origin: string) => {
    let rescued = false;
    try {
      rescued = rescue(err);
    } catch (rescueErr) {
      logger.error({ err: rescueErr }, 'the last-resort handler failed');
    }
    if (rescued) return;
    logger.fatal({ err, origin }, 'uncaught exception outside any request; exiting');
    process.exit(1);
  };
  process.on('uncaughtException', onException);
  return () => {
    process.off('uncaughtException', onException);
  };
}
