/**
 * KubernetesObject's external client: the "external resource" is the object its manifest
 * names in the target cluster. create and update server-side apply the manifest (field
 * manager `conductor-<uid>`, see ownership.ts; a create onto an absent object unforced, the rest forced); observe reads the object and compares only the fields the
 * manifest sets (manifest-subset.ts), then judges readiness and reads the connection
 * details; delete deletes it with propagation policy Background, and observe reports it gone
 * only once the target no longer has it. Every call passes its AbortSignal to each request.
 */
import { isPlainObject, type JsonObject } from '../../machinery/object.js';
import type { CallOptions, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { connectionDetailsOf } from './connection-details.js';
import type { KubernetesObject } from './kinds.js';
import { describeDifferences, manifestDifferences } from './manifest-subset.js';
import { fieldManagerFor, ownFieldManager, OWNED_ELSEWHERE_REASON, ownedElsewhereMessage, OWNER_UID_ANNOTATION, ownershipOf } from './ownership.js';
import { bundleOf, installBundle } from './operator-bundle.js';
import { checkedManifest, ManifestError, type Desired } from './manifest.js';

export { checkedManifest, ManifestError, type Desired } from './manifest.js';
import { readinessOf } from './readiness.js';
import { describeKey, TargetError, UnresolvableObjectError, type ObjectKey, type TargetClient } from './target-client.js';
import type { ObservedBy } from './target-watch.js';

/**
 * An ObjectTracker tells the target watches (target-watch.ts) which object a KubernetesObject
 * keeps, so a change there has it observed at once; `track` says how it is observed.
 */
export interface ObjectTracker {
  track(key: ObjectKey): ObservedBy;
  /** saw: the object was read, or written by this KubernetesObject's apply, at this resourceVersion (its watch event then enqueues nothing). */
  saw(resourceVersion: string): void;
  /** hold: a reconcile of the KubernetesObject is under way (events are judged at its `release`). */
  hold(): void;
  release(): void;
  /** untrack: the KubernetesObject is gone (deleted, its object with it). */
  untrack(): void;
}

/** The reason (Ready=False) of a KubernetesObject whose target cannot be reached. */
export const UNREACHABLE_REASON = 'TargetUnreachable';

/**
 * unreachableMessage names the cluster by its Provider (the endpoint may be a credential's
 * value, and this message is not redacted) and the network error's code.
 */
function unreachableMessage(resource: KubernetesObject, err: TargetError): string {
  const provider = resource.spec.providerRef?.name;
  const cluster = provider ? `the target cluster of Provider ${resource.metadata.namespace ?? ''}/${provider}` : 'the target cluster';
  const cause = err.cause as { code?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${cluster} cannot be reached${code}: nothing is created, changed or deleted there until it answers; looking again every few seconds`;
}

/** An OwnedElsewhereError refuses to write an object in the target that another KubernetesObject keeps (or nobody made). */
export class OwnedElsewhereError extends Error {
  readonly reason = OWNED_ELSEWHERE_REASON;
  constructor(message: string) {
    super(message);
    this.name = 'OwnedElsewhereError';
  }
}

/** desiredOf reads `spec.forProvider.manifest`; it throws a ManifestError naming what is missing. */
export function desiredOf(resource: KubernetesObject): Desired {
  const forProvider: unknown = isPlainObject(resource.spec) ? resource.spec.forProvider : undefined;
  const desired = checkedManifest(isPlainObject(forProvider) ? forProvider.manifest : undefined, 'spec.forProvider.manifest');
  // Conductor marks what it creates with the KubernetesObject's uid (ObserveOnly writes nothing, so marks nothing).
  const uid = resource.metadata.uid;
  if (uid && resource.spec.managementPolicy !== 'ObserveOnly') {
    const metadata = desired.manifest.metadata as JsonObject;
    const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
    metadata.annotations = { ...annotations, [OWNER_UID_ANNOTATION]: uid };
  }
  return desired;
}

/** externalNameOf is the target object's identity: `<apiVersion>/<kind>/<namespace>/<name>` (no namespace segment when cluster-scoped). */
export function externalNameOf(key: ObjectKey): string {
  return [key.apiVersion, key.kind, ...(key.namespace ? [key.namespace] : []), key.name].join('/');
}

function atProviderOf(key: ObjectKey, live: JsonObject, observedBy: ObservedBy): JsonObject {
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
    observedBy,
  };
}

/** A KubernetesObjectClient is the external client of KubernetesObjects whose Provider reaches one target. */
export class KubernetesObjectClient implements ExternalClient<KubernetesObject> {
  private holding = false;

  constructor(
    private readonly target: TargetClient,
    private readonly tracker?: ObjectTracker,
  ) {}

  /**
   * busy tells the tracker, at this client's first call, that a reconcile is under way; `close`
   * (which every user of a connected client calls when done) ends it.
   */
  private busy(): void {
    if (this.holding || !this.tracker) return;
    this.holding = true;
    this.tracker.hold();
  }

  close(): Promise<void> {
    if (this.holding) {
      this.holding = false;
      this.tracker?.release();
    }
    return Promise.resolve();
  }

  /** resolve fills in the namespace a namespaced kind defaults to, and checks a cluster-scoped kind names none. */
  private async resolve(resource: KubernetesObject, signal: AbortSignal | undefined): Promise<Desired> {
    const desired = desiredOf(resource);
    const { namespace } = await this.target.pathOf(desired.key, signal);
    if (namespace === undefined) return desired;
    const metadata = desired.manifest.metadata as JsonObject;
    metadata.namespace = namespace;
    return { key: { ...desired.key, namespace }, manifest: desired.manifest };
  }

  /**
   * resolveInstalling resolves like `resolve`; when the target does not serve the manifest's
   * kind and the resource carries an operator bundle, the bundle is installed first (and a
   * BundleWaitError says what is awaited until the kind's CRD is Established).
   */
  private async resolveInstalling(resource: KubernetesObject, signal: AbortSignal | undefined): Promise<Desired> {
    try {
      return await this.resolve(resource, signal);
    } catch (err) {
      if (!(err instanceof UnresolvableObjectError) || !err.kindNotServed) throw err;
      const bundle = bundleOf(resource);
      if (bundle.length === 0) throw err;
      await installBundle(this.target, bundle, desiredOf(resource).key, signal);
      return this.resolve(resource, signal);
    }
  }

  /**
   * observe reports the object in the target. A target that cannot be reached (connection
   * refused, reset, host unknown) is reported as Ready=False `TargetUnreachable`, naming the
   * Provider, with "exists and matches" so that nothing is created (no duplicate when it comes
   * back) or updated meanwhile; a deletion still calls `delete`, which fails until the target
   * answers, so nothing is forgotten either. The next observation after it answers converges.
   */
  async observe(resource: KubernetesObject, options: CallOptions = {}): Promise<ExternalObservation> {
    this.busy();
    try {
      return await this.observeReachable(resource, options);
    } catch (err) {
      if (!(err instanceof TargetError) || err.reason !== 'Unreachable' || options.signal?.aborted) throw err;
      return { exists: true, upToDate: true, notReady: { reason: UNREACHABLE_REASON, message: unreachableMessage(resource, err) } };
    }
  }

  private async observeReachable(resource: KubernetesObject, options: CallOptions): Promise<ExternalObservation> {
    let desired: Desired;
    try {
      desired = await this.resolve(resource, options.signal);
    } catch (err) {
      // Nothing can exist under a name the target cannot resolve: create says why, and deletion is not held up.
      if (err instanceof ManifestError || err instanceof UnresolvableObjectError) return { exists: false, upToDate: false };
      throw err;
    }
    const { key, manifest } = desired;
    // Watched from before the read, so a change right after it is not missed (while deleting
    // too: its going is seen at once); forgotten once deleted and gone.
    const observedBy: ObservedBy = this.tracker?.track(key) ?? 'poll';
    const live = await this.target.get(key, options.signal);
    if (!live) {
      if (resource.metadata.deletionTimestamp) this.tracker?.untrack();
      return { exists: false, upToDate: false };
    }
    this.sawVersionOf(live);
    const ownership = ownershipOf(resource, externalNameOf(key), live, resource.spec.managementPolicy === 'ObserveOnly');
    if (!ownership.owned) {
      // Another's object (or nobody's): being deleted, there is nothing of ours to delete; otherwise
      // say so and do nothing — it "exists and matches", so neither create nor update runs. Nothing
      // of it (uid, values, details) is reported.
      if (resource.metadata.deletionTimestamp) return { exists: false, upToDate: false };
      return { exists: true, upToDate: true, notReady: { reason: OWNED_ELSEWHERE_REASON, message: ownedElsewhereMessage(describeKey(key), ownership.why) } };
    }
    const atProvider = atProviderOf(key, live, observedBy);
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
      readConfigMap: (namespace, name) => this.target.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name }, options.signal),
    });
    return { exists: true, upToDate: true, atProvider, ...(Object.keys(connectionDetails).length > 0 ? { connectionDetails } : {}) };
  }

  /**
   * createOwned creates the object. It looks first: an object that exists and is not this
   * KubernetesObject's (another's mark, or none — someone else made it) is never written,
   * whatever values it holds (an apply setting equal values would not conflict, and would take
   * the object over). When the look finds nothing, the apply uses this KubernetesObject's own
   * field manager (`ownFieldManager`) without force: an object another KubernetesObject made
   * meanwhile carries its owner-uid annotation, owned by that manager with another value, so
   * the target refuses the apply (409 Conflict) and nothing is written — the race of two
   * creates is decided by the target. Only then is the object read again and judged; one of
   * ours (a field someone edited) is applied again with force.
   */
  private async createOwned(resource: KubernetesObject, options: CallOptions): Promise<ObjectKey> {
    const { key, manifest } = await this.resolveInstalling(resource, options.signal);
    const found = await this.target.get(key, options.signal);
    if (found) return this.applyForced(resource, key, manifest, found, options);
    try {
      this.sawVersionOf(await this.target.apply(key, manifest, options.signal, { fieldManager: ownFieldManager(resource), force: false }));
      return key;
    } catch (err) {
      if (!(err instanceof TargetError) || err.status !== 409) throw err;
    }
    return this.applyForced(resource, key, manifest, await this.target.get(key, options.signal), options);
  }

  /** applyForced applies with force unless `live` (the object as just read) is another's. */
  private async applyForced(
    resource: KubernetesObject,
    key: ObjectKey,
    manifest: JsonObject,
    live: JsonObject | undefined,
    options: CallOptions,
  ): Promise<ObjectKey> {
    if (live) this.assertOwned(resource, key, live);
    this.sawVersionOf(await this.target.apply(key, manifest, options.signal, { fieldManager: fieldManagerFor(resource, live), force: true }));
    return key;
  }

  /**
   * sawVersionOf tells the target watch the resourceVersion of the object as just read or
   * applied: an observation follows each apply (the managed reconciler's), so the watch event
   * of that version enqueues nothing.
   */
  private sawVersionOf(object: JsonObject): void {
    const meta = isPlainObject(object.metadata) ? object.metadata : {};
    if (typeof meta.resourceVersion === 'string') this.tracker?.saw(meta.resourceVersion);
  }

  /**
   * updateOwned applies the manifest with force (drift correction takes back fields others
   * edited) unless the object is another's: looked at again right before the write, since
   * observe's verdict may be stale.
   */
  private async updateOwned(resource: KubernetesObject, options: CallOptions): Promise<ObjectKey> {
    const { key, manifest } = await this.resolveInstalling(resource, options.signal);
    return this.applyForced(resource, key, manifest, await this.target.get(key, options.signal), options);
  }

  private assertOwned(resource: KubernetesObject, key: ObjectKey, live: JsonObject): void {
    const ownership = ownershipOf(resource, externalNameOf(key), live, resource.spec.managementPolicy === 'ObserveOnly');
    if (!ownership.owned) throw new OwnedElsewhereError(ownedElsewhereMessage(describeKey(key), ownership.why));
  }

  async create(resource: KubernetesObject, options: CallOptions = {}): Promise<ExternalCreation> {
    this.busy();
    const key = await this.createOwned(resource, options);
    return { externalName: externalNameOf(key) };
  }

  async update(resource: KubernetesObject, options: CallOptions = {}): Promise<ExternalUpdate> {
    this.busy();
    await this.updateOwned(resource, options);
    return {};
  }

  /** delete deletes the object only when it is this KubernetesObject's (its uid as the delete's precondition); another's is left alone. */
  async delete(resource: KubernetesObject, options: CallOptions = {}): Promise<void> {
    this.busy();
    const { key } = await this.resolve(resource, options.signal);
    const live = await this.target.get(key, options.signal);
    if (!live) return;
    const ownership = ownershipOf(resource, externalNameOf(key), live, resource.spec.managementPolicy === 'ObserveOnly');
    if (!ownership.owned) return;
    const meta = isPlainObject(live.metadata) ? live.metadata : {};
    await this.target.delete(key, options.signal, typeof meta.uid === 'string' ? meta.uid : undefined);
  }
}
