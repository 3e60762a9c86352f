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

  private constructor(
    parsed: KObject | undefined,
    text: string | undefined,
    private readonly decodeFn?: () => KObject,
  ) {
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

  /**
   * An object just written: `obj` as the handler holds it (its resourceVersion set) and `kv`
   * what the store wrote; its JSON is the written text when that is exact (see rawIfExact).
   */
  static written(objects: ObjectStore, rt: ResourceType, obj: KObject, kv: KeyValue): LazyObject {
    return new LazyObject(obj, objects.rawIfExact(rt, kv));
  }

  obj(): KObject {
    if (!this.parsed) this.parsed = this.decodeFn ? this.decodeFn() : (JSON.parse(this.text!) as KObject);
    return this.parsed;
  }

  private lines: Map<string, string> | undefined;

  /** The watch-stream line for this object (`{"type":...,"object":...}` and a newline), built once. */
  eventLine(type: string): string {
    this.lines ??= new Map();
    let line = this.lines.get(type);
    if (line === undefined) {
      line = `{"type":"${type}","object":${this.json()}}\n`;
      this.lines.set(type, line);
    }
    return line;
  }

  /** A private copy of the object, for consumers that may change it. */
  copy(): KObject {
    return JSON.parse(this.json()) as KObject;
  }

  /** The JSON text when it is held already (read from the store as-is), without serializing. */
  heldText(): string | undefined {
    return this.text;
  }

  json(): string {
    if (this.text === undefined) this.text = JSON.stringify(this.obj());
    return this.text;
  }
}
