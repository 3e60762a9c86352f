/**
 * Target watches: instead of waiting for its next poll, a KubernetesObject is looked at as
 * soon as the object it keeps changes in the target. One watch runs per Provider, kind and
 * namespace (cluster-wide for a cluster-scoped kind) that some KubernetesObject observes:
 * it lists the collection once for a resourceVersion, watches from there, resumes from the
 * last resourceVersion it saw when the stream ends, lists again when the server says the
 * version is too old (410 Expired), and backs off on errors. On an event for an object it
 * calls `changed` with the KubernetesObjects that keep that object (and after each list, with
 * all of them, since events may have been missed meanwhile). A watch the credentials may not
 * make (403) leaves its objects to the poll and is tried again now and then; a watch stops
 * when the last KubernetesObject using it goes, when its Provider's credentials change, and
 * with the provider.
 */
import { pauseUnlessAborted } from '../../machinery/abort.js';
import { isPlainObject } from '../../machinery/object.js';
import { TargetError, type ObjectKey, type TargetClient, type WatchEvent } from './target-client.js';

/** How a KubernetesObject's target object is looked at: by a running watch, or only by the poll. */
export type ObservedBy = 'watch' | 'poll';

/** TargetWatchOptions are the watches' timings. */
export interface TargetWatchOptions {
  /** The first wait after an error, doubled up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long a watch the credentials may not make (403) waits before trying again. */
  forbiddenRetryMs?: number;
  /** The lifetime the server is asked to give each watch request. */
  timeoutSeconds?: number;
}

const DEFAULTS: Required<TargetWatchOptions> = { minBackoffMs: 250, maxBackoffMs: 30_000, forbiddenRetryMs: 60_000, timeoutSeconds: 300 };

type Changed = (namespace: string, name: string) => void;

/** How many resourceVersions of its object a KubernetesObject remembers having seen (see TargetWatches.saw). */
const SEEN_VERSIONS = 4;

/** A KindWatch list-watches one kind in one namespace of one target, for the owners of objects there. */
class KindWatch {
  /** Target object name → the KubernetesObjects (`namespace/name`) keeping it. */
  readonly owners = new Map<string, Set<string>>();
  state: 'starting' | 'watching' | 'forbidden' | 'failing' = 'starting';
  private readonly abort = new AbortController();
  private resourceVersion: string | undefined;

  constructor(
    readonly client: TargetClient,
    private readonly apiVersion: string,
    private readonly kind: string,
    private readonly namespace: string | undefined,
    /** Tells the owners of an object that changed; `resourceVersion` is the object's in the event (none after a list). */
    private readonly notify: (owners: Iterable<string>, resourceVersion?: string) => void,
    private readonly options: Required<TargetWatchOptions>,
  ) {}

  get observedBy(): ObservedBy {
    return this.state === 'watching' ? 'watch' : 'poll';
  }

  get empty(): boolean {
    return this.owners.size === 0;
  }

  add(object: string, owner: string): void {
    let set = this.owners.get(object);
    if (!set) this.owners.set(object, (set = new Set()));
    set.add(owner);
  }

  remove(object: string, owner: string): void {
    const set = this.owners.get(object);
    if (!set) return;
    set.delete(owner);
    if (set.size === 0) this.owners.delete(object);
  }

  private allOwners(): string[] {
    return [...this.owners.values()].flatMap((s) => [...s]);
  }

  stop(): void {
    this.abort.abort(new Error('the target watch stopped'));
  }

  /** run list-watches until stopped. */
  async run(): Promise<void> {
    const signal = this.abort.signal;
    let backoff = this.options.minBackoffMs;
    while (!signal.aborted) {
      let wait = 0;
      try {
        const path = await this.client.collectionPathOf(this.apiVersion, this.kind, this.namespace, signal);
        if (this.resourceVersion === undefined) {
          this.resourceVersion = await this.client.listVersion(path, signal);
          this.state = 'watching';
          // Whatever happened before this list was not seen as events: every owner looks now.
          this.notify(this.allOwners());
        }
        const started = Date.now();
        let events = 0;
        const onEvent = (e: WatchEvent) => {
          events++;
          return this.onEvent(e);
        };
        await this.client.watch(path, this.resourceVersion, onEvent, signal, this.options.timeoutSeconds);
        backoff = this.options.minBackoffMs;
        // A server that ends watches at once without a word is not hammered.
        if (events === 0 && Date.now() - started < 1000) wait = this.options.minBackoffMs;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ExpiredError || (err instanceof TargetError && err.status === 410)) {
          this.resourceVersion = undefined;
          continue;
        }
        const before = this.state;
        if (err instanceof TargetError && err.reason === 'Forbidden') {
          this.state = 'forbidden';
          this.resourceVersion = undefined;
          wait = this.options.forbiddenRetryMs;
        } else {
          this.state = 'failing';
          wait = backoff;
          backoff = Math.min(backoff * 2, this.options.maxBackoffMs);
        }
        // Owners say how they are observed: tell them it changed.
        if (before === 'watching' || (before === 'starting' && this.state === 'forbidden')) this.notify(this.allOwners());
      }
      if (wait > 0) await pauseUnlessAborted(wait, signal);
    }
  }

  /** onEvent notifies the owners of the object an event is about; an ERROR event is returned as the Error that ends the stream. */
  private onEvent(e: WatchEvent): Error | undefined {
    if (e.type === 'ERROR') {
      const code = e.object.code;
      if (code === 410) return new ExpiredError();
      const status = typeof code === 'number' ? code : undefined;
      const message = typeof e.object.message === 'string' ? e.object.message : `code ${String(code)}`;
      return new TargetError(status === 403 ? 'Forbidden' : 'RequestFailed', `the watch of ${this.kind} in the target ended with an error: ${message}`, status);
    }
    const meta = isPlainObject(e.object.metadata) ? e.object.metadata : {};
    const version = typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' ? meta.resourceVersion : undefined;
    if (version !== undefined) this.resourceVersion = version;
    if (e.type === 'BOOKMARK' || typeof meta.name !== 'string') return undefined;
    const owners = this.owners.get(meta.name);
    // A deletion's event carries the deletion's own resourceVersion, never one seen before.
    if (owners) this.notify(owners, version);
    return undefined;
  }
}

/** An ExpiredError is a watch's 410: its resourceVersion is too old, so it lists again. */
class ExpiredError extends Error {}

/** Where one KubernetesObject's target object is tracked. */
interface Tracked {
  watchId: string;
  object: string;
  /** The object's latest resourceVersions this KubernetesObject has seen (observed, or written by its own apply), newest last. */
  seen: string[];
}

/**
 * TargetWatches keeps the watches of every Provider's targets. `track` is called on each
 * observation of a KubernetesObject with the object it keeps; it returns how that object is
 * observed now.
 */
export class TargetWatches {
  private readonly watches = new Map<string, KindWatch>();
  private readonly tracked = new Map<string, Tracked>();
  /**
   * KubernetesObjects being reconciled now (`hold` … `release`), with how many holds and the
   * resourceVersions of the events that came meanwhile (`undefined`: a list, or a change of how
   * the object is observed).
   */
  private readonly busy = new Map<string, { holds: number; events: (string | undefined)[] }>();
  private readonly options: Required<TargetWatchOptions>;
  private changed: Changed | undefined;
  private closed = false;

  constructor(options: TargetWatchOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** onChange registers what is called with a KubernetesObject's namespace and name when its target object changed. */
  onChange(changed: Changed): void {
    this.changed = changed;
  }

  /**
   * track records that KubernetesObject `owner` (`namespace/name`) of Provider `provider`
   * keeps the object `key` (its namespace resolved) in `client`'s target, starting the watch
   * of its kind there on first use, and says how it is observed.
   */
  track(provider: string, client: TargetClient, key: ObjectKey, owner: string): ObservedBy {
    if (this.closed) return 'poll';
    const watchId = [provider, key.apiVersion, key.kind, key.namespace ?? ''].join('\u0000');
    let watch = this.watches.get(watchId);
    if (watch && watch.client !== client) {
      // The Provider's credentials changed: its watches on the old ones stop.
      this.stopProvider(provider, client);
      watch = undefined;
    }
    if (!watch) {
      watch = new KindWatch(client, key.apiVersion, key.kind, key.namespace, (owners, version) => this.notify(owners, version), this.options);
      this.watches.set(watchId, watch);
      void watch.run();
    }
    const had = this.tracked.get(owner);
    if (had && had.watchId === watchId && had.object === key.name) {
      watch.add(key.name, owner);
      return watch.observedBy;
    }
    if (had) this.untrack(owner);
    watch.add(key.name, owner);
    this.tracked.set(owner, { watchId, object: key.name, seen: [] });
    return watch.observedBy;
  }

  /**
   * saw records that KubernetesObject `owner` has seen its tracked object at `resourceVersion`:
   * read it there (an observation, which the reconcile then records), or wrote it there (its
   * own apply, which an observation follows). The watch's event for that very version brings
   * nothing new to it, so it is not enqueued for it — the event of its own create, or of a
   * change its observation already saw, would otherwise cost a reconcile and a read of the
   * object. Events of any other version (a change, a deletion) enqueue it as before.
   * resourceVersions are only compared for equality, as Kubernetes asks of clients.
   */
  saw(owner: string, resourceVersion: string): void {
    const t = this.tracked.get(owner);
    if (!t || resourceVersion === '' || t.seen.includes(resourceVersion)) return;
    t.seen.push(resourceVersion);
    if (t.seen.length > SEEN_VERSIONS) t.seen.shift();
  }

  /**
   * hold says KubernetesObject `owner` is being reconciled (its external client made its first
   * call); `release` that it is over (the client was closed). Events for its object meanwhile
   * are kept and judged at the release, against what the reconcile saw: enqueued then unless
   * it saw that very version. A reconcile enqueued while it runs only runs again once it ends,
   * so nothing is looked at later than before — but the event of the object's own create, or
   * of a change the reconcile's observation read, no longer costs a second reconcile.
   */
  hold(owner: string): void {
    const b = this.busy.get(owner);
    if (b) b.holds++;
    else this.busy.set(owner, { holds: 1, events: [] });
  }

  /** release ends a `hold`; the last one enqueues the KubernetesObject if an event came meanwhile that it did not see. */
  release(owner: string): void {
    const b = this.busy.get(owner);
    if (!b || --b.holds > 0) return;
    this.busy.delete(owner);
    const seen = this.tracked.get(owner)?.seen ?? [];
    if (b.events.some((v) => v === undefined || !seen.includes(v))) this.enqueue(owner);
  }

  /** untrack forgets a KubernetesObject (deleted, or keeping another object); a watch nobody uses stops. */
  untrack(owner: string): void {
    const had = this.tracked.get(owner);
    if (!had) return;
    this.tracked.delete(owner);
    const watch = this.watches.get(had.watchId);
    if (!watch) return;
    watch.remove(had.object, owner);
    if (watch.empty) {
      watch.stop();
      this.watches.delete(had.watchId);
    }
  }

  /** The number of running watches (for tests and metrics). */
  get size(): number {
    return this.watches.size;
  }

  /** stopProvider stops the Provider's watches that do not use `keep` (its current client). */
  private stopProvider(provider: string, keep: TargetClient): void {
    for (const [id, watch] of this.watches) {
      if (!id.startsWith(`${provider}\u0000`) || watch.client === keep) continue;
      watch.stop();
      this.watches.delete(id);
      for (const [owner, t] of this.tracked) if (t.watchId === id) this.tracked.delete(owner);
    }
  }

  /** notify enqueues the owners of a changed object, except those that saw its version; those being reconciled are told at their release. */
  private notify(owners: Iterable<string>, resourceVersion?: string): void {
    for (const owner of owners) {
      if (resourceVersion !== undefined && this.tracked.get(owner)?.seen.includes(resourceVersion)) continue;
      const busy = this.busy.get(owner);
      if (busy) {
        // Past SEEN_VERSIONS + 1 distinct versions one is surely unseen (an owner keeps SEEN_VERSIONS):
        // the release enqueues whatever comes next, so a flood of target events keeps no more.
        if (busy.events.length <= SEEN_VERSIONS && !busy.events.includes(resourceVersion)) busy.events.push(resourceVersion);
        continue;
      }
      this.enqueue(owner);
    }
  }

  private enqueue(owner: string): void {
    const slash = owner.indexOf('/');
    this.changed?.(owner.slice(0, slash), owner.slice(slash + 1));
  }

  /** close stops every watch. */
  close(): void {
    this.closed = true;
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
    this.tracked.clear();
    this.busy.clear();
  }
}
