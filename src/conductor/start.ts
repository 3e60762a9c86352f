/**
 * Conductor's composition root: assembles the store and the generic API server
 * (`apiserver/`) with what makes it Conductor — the core controllers (garbage collection,
 * namespace deletion), Conductor's CRDs, what RBAC's built-in roles know of claim and concrete
 * kinds, Conductor's admission plugins, and, once the server is ready, the providers and
 * Conductor's controllers. `conductor server` and the tests start a whole Conductor here.
 */
import { resolve } from 'node:path';
import { installCrds } from '../apis/index.js';
import type { ServerExtension, ServerParts, StartContext } from '../apiserver/extension.js';
import { startServer, type RunningServer, type ServerOptions } from '../apiserver/server.js';
import type { RunningConductorControllers } from '../controllers/conductor.js';
import { startCoreControllers, type RunningControllers } from '../controllers/core.js';
import { conductorAdmission } from './admission/index.js';
import { conductorKinds } from './kinds.js';
import { conductorRbacKinds } from './rbac-kinds.js';

export interface ConductorOptions extends Omit<ServerOptions, 'extend'> {
  /** Run the providers and Conductor's controllers (claims, managed resources, quotas, pools) in this process (default true). */
  controllers?: boolean;
  /** How often managed resources are re-observed for drift (default 60 s). */
  pollIntervalMs?: number;
}

/** A running Conductor: the API server's handle; `close` stops the controllers too. */
export type RunningConductor = RunningServer;

export async function startConductor(opts: ConductorOptions): Promise<RunningConductor> {
  const { controllers, pollIntervalMs, ...serverOptions } = opts;
  return startServer({
    ...serverOptions,
    extend: (parts) => conductorExtension(parts, { dataDir: resolve(opts.dataDir), controllers: controllers !== false, pollIntervalMs }),
  });
}

async function conductorExtension(parts: ServerParts, opts: { dataDir: string; controllers: boolean; pollIntervalMs?: number }): Promise<ServerExtension> {
  const kinds = conductorKinds();
  const admission = await conductorAdmission(parts);
  let core: RunningControllers | undefined;
  let running: RunningConductorControllers | undefined;
  return {
    mutating: admission.mutating,
    validating: admission.validating,
    rbac: conductorRbacKinds(kinds, admission.claimTypes),
    // The controllers the API contract needs, and Conductor's CRDs, before the server is ready.
    async beforeReady({ client, registry, logger }: StartContext) {
      core = await startCoreControllers(client, registry, logger);
      await installCrds(client, { crds: kinds.crds(), logger: logger.child({ component: 'apis' }) });
    },
    // The providers and Conductor's controllers: clients like any other, once the server serves.
    async afterReady({ client, logger, signal }: StartContext) {
      if (!opts.controllers) return;
      try {
        const { startControllersAndProviders } = await import('./controllers.js');
        running = await startControllersAndProviders(client, {
          dataDir: opts.dataDir,
          logger: logger.child({ component: 'controllers' }),
          pollIntervalMs: opts.pollIntervalMs,
        });
      } catch (err) {
        if (!signal.aborted) logger.error({ err }, 'cannot start the claim and managed-resource controllers');
      }
    },
    async stop() {
      await running?.stop();
      core?.stop();
      admission.stop();
    },
  };
}
