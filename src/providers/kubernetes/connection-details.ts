/**
 * A KubernetesObject's connection details (`spec.forProvider.connectionDetails`): each
 * `toKey` gets the value at a JSONPath of the object in the target (`fromField`), or a key of
 * a Secret in the target (`fromSecretKey`; the Secret named `secretName`, default the object's
 * own name, in `secretNamespace`, default the object's). A value that is not there yet (an
 * operator has not written it) is an error that says which.
 */
import { isPlainObject, type JsonObject } from '../../machinery/object.js';
import type { ConnectionDetails } from '../spi.js';
import { parseJsonPath } from './json-path.js';
import type { ConnectionDetailSource } from './kinds.js';
import type { ObjectKey } from './target-client.js';

/** What reading connection details needs: the live object, its key, and a way to read a Secret in the target. */
export interface DetailSources {
  live: JsonObject;
  key: ObjectKey;
  readSecret(namespace: string, name: string): Promise<JsonObject | undefined>;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** connectionDetailsOf reads every configured detail; it throws naming the first that cannot be read. */
export async function connectionDetailsOf(sources: readonly ConnectionDetailSource[] | undefined, from: DetailSources): Promise<ConnectionDetails> {
  const details: ConnectionDetails = {};
  const secrets = new Map<string, JsonObject | undefined>();
  for (const source of sources ?? []) {
    if (source.fromField !== undefined) {
      const found = parseJsonPath(source.fromField).find(from.live);
      if (found.length === 0 || found[0] === undefined || found[0] === null) {
        throw new Error(`connection detail ${source.toKey}: ${source.fromField} is not set in the target object (yet)`);
      }
      details[source.toKey] = asText(found[0]);
      continue;
    }
    if (source.fromSecretKey === undefined) throw new Error(`connection detail ${source.toKey}: want fromField or fromSecretKey`);
    const namespace = source.secretNamespace ?? from.key.namespace;
    if (!namespace) {
      throw new Error(`connection detail ${source.toKey}: the object is cluster-scoped, so fromSecretKey needs secretNamespace`);
    }
    const name = source.secretName ?? from.key.name;
    const id = `${namespace}/${name}`;
    if (!secrets.has(id)) secrets.set(id, await from.readSecret(namespace, name));
    const secret = secrets.get(id);
    if (!secret) throw new Error(`connection detail ${source.toKey}: Secret ${id} does not exist in the target (yet)`);
    const data = isPlainObject(secret.data) ? secret.data : {};
    const value = data[source.fromSecretKey];
    if (typeof value !== 'string') throw new Error(`connection detail ${source.toKey}: Secret ${id} in the target has no key ${source.fromSecretKey}`);
    details[source.toKey] = Buffer.from(value, 'base64').toString('utf8');
  }
  return details;
}
