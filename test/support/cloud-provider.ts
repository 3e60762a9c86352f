/**
 * Test support: the Provider and credentials Secret setup the cloud e2e tests share (aws, gcp,
 * azure, cross-cloud): a Provider of a type in conductor-system naming its Secret, the Secret
 * itself, and waiting for the Provider's Ready condition to settle.
 */
import { eventually } from './eventually.js';
import { kubectlOk, type ServerProcess } from './server.js';
import { secretYaml } from './target-cluster.js';

/** Where the tests put Providers and their Secrets. */
export const PROVIDER_NAMESPACE = 'conductor-system';

/** What a Provider's spec says besides its type and Secret. */
export interface ProviderSpec {
  region?: string;
  /** gcp: the project. */
  project?: string;
}

/** providerYaml is a Provider `name` of `type` whose credentials are the Secret `secret` (no Secret: none named). */
export function providerYaml(type: string, name: string, secret: string | undefined, spec: ProviderSpec = {}): string {
  const fields = [
    `type: ${type}`,
    ...(spec.project !== undefined ? [`project: ${spec.project}`] : []),
    ...(spec.region !== undefined ? [`region: ${spec.region}`] : []),
    ...(secret !== undefined ? [`credentialsSecretRef: {name: ${secret}}`] : []),
  ];
  return `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: ${name}, namespace: ${PROVIDER_NAMESPACE}}\nspec: {${fields.join(', ')}}\n`;
}

/** credentialsSecretYaml is the credentials Secret `name` holding `data`. */
export function credentialsSecretYaml(name: string, data: Record<string, string>): string {
  return secretYaml(PROVIDER_NAMESPACE, name, data);
}

/** cloudProviderYaml is a credentials Secret `secret` with `data` and the Provider `name` naming it, as two documents for kubectl apply. */
export function cloudProviderYaml(type: string, name: string, secret: string, data: Record<string, string>, spec: ProviderSpec = {}): string {
  return [credentialsSecretYaml(secret, data), providerYaml(type, name, secret, spec)].join('---\n');
}

/** A Provider's Ready condition. */
export interface ReadyCondition {
  status: 'True' | 'False';
  reason?: string;
  message?: string;
}

/** providerReady waits (bounded) until the Provider's Ready condition is `status` and returns it. */
export async function providerReady(server: ServerProcess, name: string, status: 'True' | 'False' = 'True', timeoutMs = 60_000): Promise<ReadyCondition> {
  return eventually(
    async () => {
      const p = JSON.parse(await kubectlOk(server, ['get', 'provider', name, '-n', PROVIDER_NAMESPACE, '-o', 'json'])) as {
        status?: { conditions?: (ReadyCondition & { type: string })[] };
      };
      const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === status ? ready : undefined;
    },
    `Provider ${name} Ready=${status}`,
    timeoutMs,
  );
}
