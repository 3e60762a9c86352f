/**
 * Test helpers for providers' unit tests. `fixture` types a hand-written object as a kind's
 * object: tests leave out what they do not exercise (fields the server defaults, a claimRef's
 * apiVersion and kind), which the kinds' types — as read back from the server — require.
 */
import type { KObject, ObjectMeta } from '../machinery/object.js';

/** What a fixture writes: the names, and spec and status as loosely as the test needs. */
export interface FixtureObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}

/** fixture types a test's object as an object of kind `T` (no check: it is the test's fixture). */
export function fixture<T extends KObject>(obj: FixtureObject): T {
  return obj as unknown as T;
}
