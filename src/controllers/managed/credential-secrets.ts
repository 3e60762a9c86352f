/**
 * CredentialSecrets hands a connect the credentials Secret it names from an informer that
 * watches that one Secret (field selector `metadata.name`, in its namespace), started at its
 * first use and shared through the process's informers — instead of a read of the API (and a
 * decryption at rest) for every reconcile of every resource.
 *
 * What it hands out is the Secret as the API serves it, give or take the moments a watch event
 * takes: changed values are used from the Secret's event on, and a deleted Secret is no longer
 * held, so the caller reads the API (which answers NotFound) — revocation takes effect. Until
 * the informer has synced, when it does not hold the Secret, for a name that is no plain
 * object name, and beyond MAX_WATCHED Secrets, it answers undefined: read the API. It never
 * looks at anything but the Secret itself (no status, no copy kept elsewhere).
 */
import type { CacheInformer, SharedInformers } from '../../client/shared-informers.js';
import { builtinRefs } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import type { SecretRef } from '../../providers/spi.js';
import { decodeSecretData } from './connect-context.js';

/** How many distinct credentials Secrets are watched at most (Providers are few; beyond this, each connect reads). */
export const MAX_WATCHED = 64;

/** A name that can go into a field selector as it is (a DNS subdomain). */
const PLAIN_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export class CredentialSecrets {
  private readonly watched = new Map<string, CacheInformer>();
  /** Decoded data of each cached Secret object (a new object for each version). */
  private readonly decoded = new WeakMap<KObject, Readonly<Record<string, string>>>();
  private stopped = false;

  constructor(private readonly informers: SharedInformers) {}

  /** lookup is the decoded data of the Secret `ref` as the informer holds it, or undefined (read the API). */
  lookup(ref: SecretRef): Record<string, string> | undefined {
    if (this.stopped || !PLAIN_NAME.test(ref.name) || !PLAIN_NAME.test(ref.namespace)) return undefined;
    const key = `${ref.namespace}/${ref.name}`;
    let informer = this.watched.get(key);
    if (!informer) {
      if (this.watched.size >= MAX_WATCHED) return undefined;
      informer = this.informers.informer(builtinRefs.secrets, { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}` });
      informer.start();
      this.watched.set(key, informer);
    }
    if (!informer.hasSynced()) return undefined;
    const secret = informer.store.get(ref.namespace, ref.name);
    if (!secret) return undefined;
    let data = this.decoded.get(secret);
    if (!data) this.decoded.set(secret, (data = decodeSecretData(secret)));
    // A copy: what a connector does with its credentials never reaches the cache.
    return { ...data };
  }

  /** stop stops watching every Secret. */
  stop(): void {
    this.stopped = true;
    for (const informer of this.watched.values()) informer.stop();
    this.watched.clear();
  }
}
