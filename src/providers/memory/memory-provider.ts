/**
 * The `memory` provider: databases that exist only in the Conductor process's memory. It
 * exists so the control plane — scheduling, binding, provisioning, connection Secrets,
 * release, the managed reconciler — can be measured and demonstrated without any external
 * system. It costs nothing when unused, so the server always enables it.
 */
import { silentProviderLogger, type ProviderLogger, type ProviderModule, type ProviderStartOptions } from '../spi.js';
import { defineProvider } from '../kind-definition.js';
import { memoryDatabaseKind } from './kinds.js';
import { memoryDatabaseConcreteKind } from './memory-database.js';
import { MemoryDatabases } from './memory-databases.js';
import { withOwnMachinePrice } from '../prices.js';

export interface MemoryProviderOptions {
  /** The records to serve; default a new, empty map. */
  databases?: MemoryDatabases;
  logger?: ProviderLogger;
}

/**
 * A MemoryProvider is the memory provider module plus its records. Its type is `memory`:
 * its Providers (`spec.type: memory`) are counted and checked apart from the `local` ones,
 * whose kinds run real programs.
 */
export interface MemoryProvider extends ProviderModule {
  readonly type: 'memory';
  /** The "external system": every MemoryDatabase's record. */
  readonly databases: MemoryDatabases;
}

/** createMemoryProvider returns the provider with its one kind, MemoryDatabase. */
export function createMemoryProvider(options: MemoryProviderOptions = {}): MemoryProvider {
  const databases = options.databases ?? new MemoryDatabases();
  return {
    type: 'memory',
    kinds: withOwnMachinePrice([memoryDatabaseConcreteKind(databases, options.logger ?? silentProviderLogger)]),
    databases,
  };
}

/** The `memory` provider: its one kind, and `start` (createMemoryProvider), which runs nothing. */
export const memoryProvider = defineProvider({
  name: 'memory',
  type: 'memory',
  kinds: [memoryDatabaseKind],
  async start(options: ProviderStartOptions & MemoryProviderOptions): Promise<MemoryProvider> {
    return createMemoryProvider(options);
  },
});
