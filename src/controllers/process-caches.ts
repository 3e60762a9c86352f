/**
 * ProcessCaches lets a controller that keeps no copies of objects (the garbage collector)
 * find one in the shared informers Conductor's controllers keep in the same process, while
 * they run. The composition root hands one ProcessCaches to both: the garbage collector asks
 * it, Conductor's controllers attach their informers when they start and detach them when
 * they stop. An answer may lag behind the API by the moments a watch event takes; undefined
 * means "not known here" (ask the API), never "absent".
 */
import type { SharedInformers } from '../client/shared-informers.js';
import type { ResourceRef } from '../client/types.js';
import type { KObject } from '../machinery/object.js';

export class ProcessCaches {
  private informers: SharedInformers | undefined;

  /** attach makes `informers` the ones asked; the function returned detaches them. */
  attach(informers: SharedInformers): () => void {
    this.informers = informers;
    return () => {
      if (this.informers === informers) this.informers = undefined;
    };
  }

  /** get is the cached object `name` (in `namespace`) of `ref`'s resource, when an attached informer holds it. */
  get(ref: ResourceRef, namespace: string | undefined, name: string): KObject | undefined {
    return this.informers?.cached(ref, namespace, name);
  }
}
