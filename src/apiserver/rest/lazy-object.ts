/**
 * A LazyObject is an object read from the store that is parsed only when someone needs its
 * fields; serialising it back to JSON reuses the stored text when that is exact.
 */
import type { KObject } from '../../machinery/object.js';
import type { KeyValue } from '../../store/types.js';
import type { ObjectStore, SplicedBytes } from '../storage/object-store.js';
import type { ResourceType } from '../registry/resource-type.js';

/** Where an object read from the store came from, until its text is made. */
interface StoredSource {
  objects: ObjectStore;
  rt: ResourceType;
  kv: KeyValue;
  deleted: boolean;
}

export class LazyObject {
  private parsed: KObject | undefined;
  private text: string | undefined;
  /**
   * An object read from the store whose text is not made yet: made on first use, so a list
   * streams its items' text as it sends them, or copies their stored bytes (`jsonBytes`)
   * without making it at all.
   */
  private source: StoredSource | undefined;

  private constructor(
    parsed: KObject | undefined,
    text: string | undefined,
    private readonly decodeFn?: () => KObject,
    source?: StoredSource,
  ) {
    this.parsed = parsed;
    this.text = text;
    this.source = source;
  }

  static of(obj: KObject): LazyObject {
    return new LazyObject(obj, undefined);
  }

  /** An object read from the store; `deleted` for the last value carried by a delete event. */
  static fromStore(objects: ObjectStore, rt: ResourceType, kv: KeyValue, deleted = false): LazyObject {
    return new LazyObject(undefined, undefined, () => objects.decode(rt, kv), { objects, rt, kv, deleted });
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

  /** storedText makes the text of an object read from the store (its stored text when exact) once. */
  private storedText(): string | undefined {
    const source = this.source;
    if (source) {
      this.source = undefined;
      this.text = source.objects.rawIfExact(source.rt, source.kv, source.deleted);
    }
    return this.text;
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
    return this.storedText();
  }

  json(): string {
    const text = this.storedText();
    if (text !== undefined) return text;
    return (this.text = JSON.stringify(this.obj()));
  }

  /**
   * jsonBytes is how to copy this object's JSON (what `json()` gives, as UTF-8) from the bytes
   * the store holds, when its text was not made yet and can be (see ObjectStore.exactBytes);
   * else undefined: use `json()`.
   */
  jsonBytes(): SplicedBytes | undefined {
    const source = this.source;
    return source && !source.deleted ? source.objects.exactBytes(source.rt, source.kv) : undefined;
  }
}
