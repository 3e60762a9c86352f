/**
 * Starts the providers built into this process — the `builtInProviders` of `catalog.ts`
 * (`local`: real server processes on this machine; `memory`: in-process, always on, it costs
 * nothing) — and stops them. A new built-in provider is one line in `builtInProviders`.
 */
import type { Logger } from 'pino';
import type { ProviderDefinition, ProviderModule } from '../providers/index.js';
import { builtInProviders } from './catalog.js';

export interface ProvidersOptions {
  dataDir: string;
  logger: Logger;
  /** Which providers to start; default every built-in one. */
  providers?: readonly ProviderDefinition[];
}

/** Starts every built-in provider (or those given); when one fails, those already started are stopped again. */
export async function startProviders(opts: ProvidersOptions): Promise<ProviderModule[]> {
  const started: ProviderModule[] = [];
  try {
    for (const p of opts.providers ?? builtInProviders) started.push(await p.start({ dataDir: opts.dataDir, logger: opts.logger.child({ provider: p.name }) }));
  } catch (err) {
    await stopProviders(started, opts.logger);
    throw err;
  }
  return started;
}

/** Stops every provider (their `stop`), logging what fails. */
export async function stopProviders(providers: readonly ProviderModule[], log: Logger): Promise<void> {
  for (const provider of providers) {
    try {
      await provider.stop?.();
    } catch (err) {
      log.error({ provider: provider.type, err }, 'cannot stop provider');
    }
  }
}
