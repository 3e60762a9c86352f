/**
 * A LazyObject is an object read from the store that is parsed only when someone needs its
 * fields; serialising it back to JSON reuses the stored text when that is exact.
 */
import type { KObject } from '../../machinery/object.js';
import type { KeyValue } from '../../store/types.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { ResourceType } from '../registry/resource-type.js';

export class LazyObject {
  private parsed: KObject | undefined;
  private text: string | undefined;

  private constructor(parsed: KObject | undefined, text: string | undefined, private readonly decodeFn?: () => KObject) {
    this.parsed = parsed;
    this.text = text;
  }

  static of(obj: KObject): LazyObject {
    return new LazyObject(obj, undefined);
  }

  /** An object read from the store; `deleted` for the last value carried by a delete event. */
  static fromStore(objects: ObjectStore, rt: ResourceType, kv: KeyValue, deleted = false): LazyObject {
    return new LazyObject(undefined, objects.rawIfExact(rt, kv, deleted), () => objects.decode(rt, kv));
  }

  obj(): KObject {
    if (!this.parsed) this.parsed = this.decodeFn ? this.decodeFn() : (JSON.parse(this.text!) as KObject);
    return this.parsed;
  }

  json(): string {
    if (this.text === undefined) this.text = JSON.stringify(this.obj());
    return this.text;
  }
}
