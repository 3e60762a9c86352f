/**
 * startPoolController starts the pool manager for the concrete kinds of the given providers,
 * the way Conductor's in-process controllers are started (src/controllers/conductor.ts).
 */
import type { Client, ResourceRef } from '../../client/types.js';
import { resourceRef } from '../../client/types.js';
import type { ProviderModule } from '../../providers/spi.js';
import { PoolController, type PoolControllerOptions } from './pool-controller.js';

/** poolKindsOf lists the ResourceRefs of the providers' concrete kinds (all namespaced). */
export function poolKindsOf(providers: readonly ProviderModule[]): ResourceRef[] {
  return providers.flatMap((p) => p.kinds.map((k) => resourceRef(`${k.group}/${k.version}`, k.kind, k.plural, true)));
}

/** startPoolController creates a PoolController for the providers' kinds and starts it. */
export async function startPoolController(
  client: Client,
  providers: readonly ProviderModule[],
  opts: Omit<PoolControllerOptions, 'kinds'> = {},
): Promise<PoolController> {
  const pools = new PoolController(client, { ...opts, kinds: poolKindsOf(providers) });
  await pools.start();
  return pools;
}
