/**
 * A KubernetesObject's connection details (`spec.forProvider.connectionDetails`): each
 * `toKey` gets the value at a JSONPath of the object in the target (`fromField`), or a key of
 * a Secret in the target (`fromSecretKey`; the Secret named `secretName`, default the object's
 * own name, in `secretNamespace`, default the object's), or a key of a ConfigMap in the target
 * (`fromConfigMapKey`; `configMapName`, `configMapNamespace` likewise). A name may say
 * `$(object.name)` (`$(object.name)-app`, an operator's Secret named after its resource). A
 * Secret or ConfigMap whose ownerReferences name other objects only is not read. A value that is not there yet (an
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
  readConfigMap(namespace: string, name: string): Promise<JsonObject | undefined>;
}

/** nameFrom is a Secret's or ConfigMap's name: as given, with `$(object.name)` the object's own name; default the object's name. */
function nameFrom(given: string | undefined, objectName: string): string {
  return given === undefined ? objectName : given.split('$(object.name)').join(objectName);
}

/**
 * dependentOf refuses a Secret or ConfigMap that names owners none of which is the object:
 * another object's dependent (an operator's Secret for another custom resource) is never read.
 * One without ownerReferences (written by hand) is read.
 */
function dependentOf(source: JsonObject, live: JsonObject, id: string, toKey: string): void {
  const meta = isPlainObject(source.metadata) ? source.metadata : {};
  const owners = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  if (owners.length === 0) return;
  const liveMeta = isPlainObject(live.metadata) ? live.metadata : {};
  if (owners.some((o) => isPlainObject(o) && o.uid === liveMeta.uid)) return;
  throw new Error(`connection detail ${toKey}: ${id} in the target belongs to another object (its ownerReferences do not name this one): not read`);
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** connectionDetailsOf reads every configured detail; it throws naming the first that cannot be read. */
export async function connectionDetailsOf(sources: readonly ConnectionDetailSource[] | undefined, from: DetailSources): Promise<ConnectionDetails> {
  const details: ConnectionDetails = {};
  const secrets = new Map<string, JsonObject | undefined>();
  const configMaps = new Map<string, JsonObject | undefined>();
  for (const source of sources ?? []) {
    if (source.fromField !== undefined) {
      const found = parseJsonPath(source.fromField).find(from.live);
      if (found.length === 0 || found[0] === undefined || found[0] === null) {
        throw new Error(`connection detail ${source.toKey}: ${source.fromField} is not set in the target object (yet)`);
      }
      details[source.toKey] = asText(found[0]);
      continue;
    }
    if (source.fromConfigMapKey !== undefined) {
      const namespace = source.configMapNamespace ?? from.key.namespace;
      if (!namespace) {
        throw new Error(`connection detail ${source.toKey}: the object is cluster-scoped, so fromConfigMapKey needs configMapNamespace`);
      }
      const name = nameFrom(source.configMapName, from.key.name);
      const id = `ConfigMap ${namespace}/${name}`;
      if (!configMaps.has(id)) configMaps.set(id, await from.readConfigMap(namespace, name));
      const configMap = configMaps.get(id);
      if (!configMap) throw new Error(`connection detail ${source.toKey}: ${id} does not exist in the target (yet)`);
      dependentOf(configMap, from.live, id, source.toKey);
      const data = isPlainObject(configMap.data) ? configMap.data : {};
      const value = data[source.fromConfigMapKey];
      if (typeof value !== 'string') throw new Error(`connection detail ${source.toKey}: ${id} in the target has no key ${source.fromConfigMapKey}`);
      details[source.toKey] = value;
      continue;
    }
    if (source.fromSecretKey === undefined) throw new Error(`connection detail ${source.toKey}: want fromField, fromSecretKey or fromConfigMapKey`);
    const namespace = source.secretNamespace ?? from.key.namespace;
    if (!namespace) {
      throw new Error(`connection detail ${source.toKey}: the object is cluster-scoped, so fromSecretKey needs secretNamespace`);
    }
    const name = nameFrom(source.secretName, from.key.name);
    const id = `${namespace}/${name}`;
    if (!secrets.has(id)) secrets.set(id, await from.readSecret(namespace, name));
    const secret = secrets.get(id);
    if (!secret) throw new Error(`connection detail ${source.toKey}: Secret ${id} does not exist in the target (yet)`);
    dependentOf(secret, from.live, `Secret ${id}`, source.toKey);
    const data = isPlainObject(secret.data) ? secret.data : {};
    const value = data[source.fromSecretKey];
    if (typeof value !== 'string') throw new Error(`connection detail ${source.toKey}: Secret ${id} in the target has no key ${source.fromSecretKey}`);
    details[source.toKey] = Buffer.from(value, 'base64').toString('utf8');
  }
  return details;
}
