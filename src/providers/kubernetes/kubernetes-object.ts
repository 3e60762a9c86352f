/**
 * KubernetesObject's external client: the "external resource" is the object its manifest
 * names in the target cluster. create and update server-side apply the manifest (field
 * manager `conductor`, forced); observe reads the object and compares only the fields the
 * manifest sets (manifest-subset.ts), then judges readiness and reads the connection
 * details; delete deletes it with propagation policy Background, and observe reports it gone
 * only once the target no longer has it. Every call passes its AbortSignal to each request.
 */
import { deepCopy, isPlainObject, type JsonObject } from '../../machinery/object.js';
import type { CallOptions, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { connectionDetailsOf } from './connection-details.js';
import type { KubernetesObject } from './kinds.js';
import { describeDifferences, manifestDifferences } from './manifest-subset.js';
import { readinessOf } from './readiness.js';
import { describeKey, UnresolvableObjectError, type ObjectKey, type TargetClient } from './target-client.js';

/** Metadata the server owns: never applied, never compared. */
const SERVER_METADATA = [
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'selfLink',
];

/** A ManifestError says what a KubernetesObject's manifest lacks. */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** A Desired is a resource's manifest read as the key of the object it names and the body to apply. */
export interface Desired {
  key: ObjectKey;
  manifest: JsonObject;
}

/** desiredOf reads `spec.forProvider.manifest`; it throws a ManifestError naming what is missing. */
export function desiredOf(resource: KubernetesObject): Desired {
  const forProvider: unknown = isPlainObject(resource.spec) ? resource.spec.forProvider : undefined;
  const raw = isPlainObject(forProvider) ? forProvider.manifest : undefined;
  if (!isPlainObject(raw))
    throw new ManifestError('spec.forProvider.manifest is missing: want the object to keep in the target (apiVersion, kind, metadata.name)');
  const manifest = deepCopy(raw) as JsonObject;
  const apiVersion = manifest.apiVersion;
  const kind = manifest.kind;
  const metadata = isPlainObject(manifest.metadata) ? manifest.metadata : undefined;
  const name = metadata?.name;
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new ManifestError('spec.forProvider.manifest.apiVersion is missing: want e.g. v1 or apps/v1');
  if (typeof kind !== 'string' || kind === '') throw new ManifestError('spec.forProvider.manifest.kind is missing: want e.g. ConfigMap');
  if (!metadata || typeof name !== 'string' || name === '')
    throw new ManifestError('spec.forProvider.manifest.metadata.name is missing: want the name of the object in the target');
  const namespace = metadata.namespace;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '')) {
    throw new ManifestError('spec.forProvider.manifest.metadata.namespace is not a non-empty string: want a namespace, or leave it out');
  }
  for (const field of SERVER_METADATA) delete metadata[field];
  delete manifest.status;
  return { key: { apiVersion, kind, name, ...(typeof namespace === 'string' ? { namespace } : {}) }, manifest };
}

/** externalNameOf is the target object's identity: `<apiVersion>/<kind>/<namespace>/<name>` (no namespace segment when cluster-scoped). */
export function externalNameOf(key: ObjectKey): string {
  return [key.apiVersion, key.kind, ...(key.namespace ? [key.namespace] : []), key.name].join('/');
}

function atProviderOf(key: ObjectKey, live: JsonObject): JsonObject {
  const meta = isPlainObject(live.metadata) ? live.metadata : {};
  const pick = (k: string) => (typeof meta[k] === 'string' || typeof meta[k] === 'number' ? { [k]: meta[k] } : {});
  return {
    apiVersion: key.apiVersion,
    kind: key.kind,
    ...(key.namespace ? { namespace: key.namespace } : {}),
    name: key.name,
    ...pick('uid'),
    ...pick('resourceVersion'),
    ...pick('generation'),
    ...pick('deletionTimestamp'),
  };
}

/** A KubernetesObjectClient is the external client of KubernetesObjects whose Provider reaches one target. */
export class KubernetesObjectClient implements ExternalClient<KubernetesObject> {
  constructor(private readonly target: TargetClient) {}

  /** resolve fills in the namespace a namespaced kind defaults to, and checks a cluster-scoped kind names none. */
  private async resolve(resource: KubernetesObject, signal: AbortSignal | undefined): Promise<Desired> {
    const desired = desiredOf(resource);
    const { namespace } = await this.target.pathOf(desired.key, signal);
    if (namespace === undefined) return desired;
    const metadata = desired.manifest.metadata as JsonObject;
    metadata.namespace = namespace;
    return { key: { ...desired.key, namespace }, manifest: desired.manifest };
  }

  async observe(resource: KubernetesObject, options: CallOptions = {}): Promise<ExternalObservation> {
    let desired: Desired;
    try {
      desired = await this.resolve(resource, options.signal);
    } catch (err) {
      // Nothing can exist under a name the target cannot resolve: create says why, and deletion is not held up.
      if (err instanceof ManifestError || err instanceof UnresolvableObjectError) return { exists: false, upToDate: false };
      throw err;
    }
    const { key, manifest } = desired;
    const live = await this.target.get(key, options.signal);
    if (!live) return { exists: false, upToDate: false };
    const atProvider = atProviderOf(key, live);
    // Deleting (here or in the target): only existence matters.
    const liveMeta = isPlainObject(live.metadata) ? live.metadata : {};
    if (resource.metadata.deletionTimestamp || liveMeta.deletionTimestamp) return { exists: true, upToDate: true, atProvider };
    const differences = manifestDifferences(manifest, live);
    if (differences.length > 0) {
      return { exists: true, upToDate: false, atProvider, drift: describeDifferences(differences, { quoteValues: key.kind !== 'Secret' }) };
    }
    const forProvider = resource.spec.forProvider;
    const verdict = readinessOf(live, forProvider.readiness);
    // Not ready (yet, or any more): the resource says so, Ready=False, and is looked at again soon.
    if (!verdict.ready)
      return {
        exists: true,
        upToDate: true,
        atProvider,
        notReady: { reason: 'TargetNotReady', message: `${describeKey(key)} in the target is not ready: ${verdict.why}` },
      };
    const connectionDetails = await connectionDetailsOf(forProvider.connectionDetails, {
      live,
      key,
      readSecret: (namespace, name) => this.target.get({ apiVersion: 'v1', kind: 'Secret', namespace, name }, options.signal),
    });
    return { exists: true, upToDate: true, atProvider, ...(Object.keys(connectionDetails).length > 0 ? { connectionDetails } : {}) };
  }

  async create(resource: KubernetesObject, options: CallOptions = {}): Promise<ExternalCreation> {
    const { key, manifest } = await this.resolve(resource, options.signal);
    await this.target.apply(key, manifest, options.signal);
    return { externalName: externalNameOf(key) };
  }

  async update(resource: KubernetesObject, options: CallOptions = {}): Promise<ExternalUpdate> {
    const { key, manifest } = await this.resolve(resource, options.signal);
    await this.target.apply(key, manifest, options.signal);
    return {};
  }

  async delete(resource: KubernetesObject, options: CallOptions = {}): Promise<void> {
    const { key } = await this.resolve(resource, options.signal);
    await this.target.delete(key, options.signal);
  }
}
