/**
 * The `kubernetes` provider's one value (`kubernetesProvider`): its kind, defined in
 * `kinds.ts`, and `start`. Only the definition is loaded with this module; the code that talks
 * to target clusters is imported by `start`.
 */
import { defineProvider } from '../kind-definition.js';
import type { ProviderStartOptions } from '../spi.js';
import { kubernetesObjectKind } from './kinds.js';
import type { KubernetesProvider } from './kubernetes-provider.js';

/** The `kubernetes` provider: KubernetesObject, and `start` (createKubernetesProvider). */
export const kubernetesProvider = defineProvider({
  name: 'kubernetes',
  type: 'kubernetes',
  kinds: [kubernetesObjectKind],
  async start(_options: ProviderStartOptions): Promise<KubernetesProvider> {
    const { createKubernetesProvider } = await import('./kubernetes-provider.js');
    return createKubernetesProvider();
  },
});
