/**
 * Azure's naming rules for blob containers and storage queues, and the names Conductor gives
 * them. Both rules are the same: 3 to 63 characters, lower-case letters, digits and hyphens,
 * beginning and ending with a letter or digit, no two hyphens in a row. (`$root`, `$web` and
 * `$logs` are system containers Conductor never manages.)
 */
import { shareName } from '../share-names.js';

/** What is named: a blob container, a storage queue, a flexible server or a Redis cache (the same rule here). */
export type AzureNameKind = 'container' | 'queue' | 'server' | 'cache';

/** The longest container or queue name Azure accepts. */
export const AZURE_NAME_MAX = 63;

/**
 * The schema pattern of a container or queue name (RE2 has no look-ahead, so the CRD adds a
 * CEL rule against `--`).
 */
export const AZURE_NAME_PATTERN = '^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$';

/** azureNameProblem says why `name` breaks Azure's rules for a container or queue, or returns undefined. */
export function azureNameProblem(kind: AzureNameKind, name: string): string | undefined {
  const what = `${kind} name`;
  if (name.length < 3 || name.length > AZURE_NAME_MAX) return `${what} "${name}" has ${name.length} characters: want 3 to 63`;
  if (!/^[a-z0-9-]+$/.test(name)) return `${what} "${name}" may hold only lower-case letters, digits and hyphens`;
  if (name.startsWith('-') || name.endsWith('-')) return `${what} "${name}" must begin and end with a letter or digit`;
  if (name.includes('--')) return `${what} "${name}" has two hyphens in a row`;
  return undefined;
}

/** An AzureNameError says a name breaks Azure's rules; the reconciler shows it as the condition's message. */
export class AzureNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AzureNameError';
  }
}

/** checkedAzureName returns `name` when it is valid, else throws an AzureNameError saying why. */
export function checkedAzureName(kind: AzureNameKind, name: string): string {
  const problem = azureNameProblem(kind, name);
  if (problem) throw new AzureNameError(problem);
  return name;
}

/**
 * claimAzureName is the container or queue of a new claim `namespace/name`:
 * `<namespace>-<name>-<16 hex>`, lower case, runs of other characters turned into one `-`,
 * cut to 63 characters. The hash (64 bits of the exact, length-prefixed parts) keeps apart
 * claims whose readable parts agree, so no tenant can name its way into another's container.
 */
export function claimAzureName(namespace: string, name: string): string {
  return shareName([namespace, name], AZURE_NAME_MAX, 'label');
}

/**
 * defaultAzureName is the name of a resource that names none (an administrator's resource
 * without `containerName`/`queueName`): its own name when Azure accepts it, else one derived
 * from its namespace and name as for a claim.
 */
export function defaultAzureName(kind: AzureNameKind, namespace: string, name: string): string {
  return azureNameProblem(kind, name) === undefined ? name : claimAzureName(namespace, name);
}
