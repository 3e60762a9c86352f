/**
 * The kubeconfig the client commands (`trace`, `logs`, `plan`) use: `--kubeconfig`, else
 * KUBECONFIG or ~/.kube/config, else the one `conductor server` wrote in `.conductor/`.
 */
import { existsSync } from 'node:fs';
import { kubeconfigFromEnv, loadKubeconfig } from '../client/kubeconfig.js';

export interface KubeconfigFlags {
  kubeconfig?: string;
  context?: string;
}

export async function clientConfig(o: KubeconfigFlags) {
  if (o.kubeconfig) return loadKubeconfig(o.kubeconfig, { context: o.context });
  const home = `${process.env.HOME ?? ''}/.kube/config`;
  if (!process.env.KUBECONFIG && !existsSync(home) && existsSync('.conductor/kubeconfig'))
    return loadKubeconfig('.conductor/kubeconfig', { context: o.context });
  return kubeconfigFromEnv({ context: o.context });
}
