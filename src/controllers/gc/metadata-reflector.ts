/**
 * A MetadataReflector lists and watches one resource and reports each object's metadata,
 * without keeping whole objects in memory (the garbage collector watches every kind).
 */
import type { Client, ResourceRef, WatchHandle } from '../../client/types.js';
import type { KObject, ObjectMeta } from '../../machinery/object.js';

export type MetadataEvent = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface MetadataReflectorHandlers {
  onEvent(type: MetadataEvent, ref: ResourceRef, meta: ObjectMeta, apiVersion: string, kind: string): void;
  /**
   * Watch events ADDED whose JSON text this returns true for need not be reported (see the
   * client's `skipAdded`: an in-process client then does not parse them). Lists report everything.
   */
  skipAdded?: (json: string) => boolean;
  /** A full relist begins: every live object will be reported as ADDED, then onResync. */
  onRelist?(ref: ResourceRef): void;
  /** A full relist finished: every live object was just reported as ADDED. */
  onResync?(ref: ResourceRef): void;
}

export class MetadataReflector {
  private watch: WatchHandle | undefined;
  private stopped = false;
  private rv = '';
  private synced = false;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;

  constructor(
    private readonly client: Client,
    readonly ref: ResourceRef,
    private readonly handlers: MetadataReflectorHandlers,
  ) {}

  start(): void {
    void this.relist();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    if (this.timer) clearTimeout(this.timer);
  }

  private retry(fn: () => void): void {
    if (this.stopped) return;
    this.failures++;
    const delay = Math.min(30_000, 100 * 2 ** Math.min(this.failures, 9));
    this.timer = setTimeout(fn, delay);
    this.timer.unref();
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    try {
      this.handlers.onRelist?.(this.ref);
      let cont: string | undefined;
      let rv = '';
      do {
        const page = await this.client.list(this.ref, { limit: 500, continue: cont });
        for (const o of page.items) this.handlers.onEvent('ADDED', this.ref, o.metadata, o.apiVersion, o.kind);
        cont = page.metadata.continue || undefined;
        rv = page.metadata.resourceVersion ?? rv;
      } while (cont && !this.stopped);
      this.rv = rv;
      this.synced = true;
      this.failures = 0;
      this.handlers.onResync?.(this.ref);
      this.startWatch();
    } catch {
      this.retry(() => void this.relist());
    }
  }

  private startWatch(): void {
    if (this.stopped) return;
    let needRelist = false;
    // Only metadata is read (and kept, never changed), so the shared event object will do.
    this.watch = this.client.watch<KObject>(
      this.ref,
      {
        resourceVersion: this.rv,
        allowWatchBookmarks: true,
        readOnly: true,
        // Only for events after the list (a watch from '' would start with the current state).
        skipAdded: this.rv === '' ? undefined : this.handlers.skipAdded,
      },
      {
        onEvent: (ev) => {
          if (ev.type === 'ERROR') {
            needRelist = true;
            this.watch?.stop();
            this.retry(() => void this.relist());
            return;
          }
          const rv = ev.object.metadata?.resourceVersion;
          if (rv) this.rv = rv;
          if (ev.type === 'BOOKMARK') return;
          this.failures = 0;
          this.handlers.onEvent(ev.type, this.ref, ev.object.metadata, ev.object.apiVersion, ev.object.kind);
        },
        onClose: (err) => {
          if (this.stopped || needRelist) return;
          if (err) this.retry(() => void this.relist());
          else this.startWatch();
        },
      },
    );
  }
}
