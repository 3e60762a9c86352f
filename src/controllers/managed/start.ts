/**
 * startManagedReconcilers runs one ManagedReconciler per concrete kind of the given
 * providers, and stops them (and the providers) together.
 */
import type { Client } from '../../client/types.js';
import { errorMessage } from '../../client/logger.js';
import type { ProviderModule } from '../../providers/spi.js';
import { ManagedReconciler } from './managed-reconciler.js';
import { resolveOptions, type ManagedReconcilerOptions } from './reconciler-options.js';

/** RunningManagedReconcilers are the started reconcilers and how to stop them. */
export interface RunningManagedReconcilers {
  /** One per concrete kind, in the providers' order. */
  readonly reconcilers: readonly ManagedReconciler[];
  /** stop stops every reconciler, waits for running reconciles, then calls each provider's `stop()`. */
  stop(): Promise<void>;
}

/**
 * startManagedReconcilers starts one reconciler per concrete kind of `providers`, all with
 * `options` (a kind's own `workers` unless `options` sets them). It throws, starting nothing, when two providers contribute the same kind.
 */
export function startManagedReconcilers(
  client: Client,
  providers: readonly ProviderModule[],
  options: ManagedReconcilerOptions = {},
): RunningManagedReconcilers {
  const seen = new Map<string, string>();
  for (const provider of providers) {
    for (const kind of provider.kinds) {
      const id = `${kind.kind}.${kind.group}`;
      const earlier = seen.get(id);
      if (earlier !== undefined) {
        throw new Error(`concrete kind ${id} is contributed by providers "${earlier}" and "${provider.type}": want each kind from one provider`);
      }
      seen.set(id, provider.type);
    }
  }
  const log = resolveOptions(options).logger;
  const reconcilers = providers.flatMap((p) =>
    p.kinds.map((kind) => new ManagedReconciler(client, kind, { ...options, provider: p.type, workers: options.workers ?? kind.workers }).start()),
  );
  // A kind that can tell when an external resource changed on its own asks for a reconcile at once, ahead of the queue.
  for (const reconciler of reconcilers) reconciler.kind.watch?.((namespace, name) => reconciler.enqueueChanged(`${namespace}/${name}`));
  let stopping: Promise<void> | undefined;
  return {
    reconcilers,
    stop() {
      stopping ??= (async () => {
        await Promise.all(reconcilers.map((r) => r.stop()));
        for (const provider of providers) {
          try {
            await provider.stop?.();
          } catch (err) {
            log.error({ controller: 'managed', provider: provider.type, err: errorMessage(err) }, 'cannot stop provider');
          }
        }
      })();
      return stopping;
    },
  };
}
