/**
 * Deterministic names the claim controller derives from a claim, so a retry after a crash
 * finds what the first attempt made instead of making a second one.
 *
 * Every name made of several parts ends with a hash of the exact parts (length-prefixed, so
 * `x` + `y-c` and `x-y` + `c` differ): the readable part may be cut and may coincide for two
 * claims, the name never does (short of a 64-bit hash collision).
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../../machinery/object.js';

/** Hex digits of the hash suffix of names made only of parts a tenant chooses: 64 bits, beyond reach of one choosing names to collide. */
export const NAME_HASH_LENGTH = 16;
/**
 * Hex digits of the hash suffix of provisioned names, which also hash the claim's uid: the
 * server chooses it, so a collision cannot be searched for (each try is a new claim), and the
 * names keep their documented shape `<namespace>-<name>-<8 hex>`.
 */
export const PROVISIONED_HASH_LENGTH = 8;
/** A DNS label: what any kind accepts as a name (provisioned resources may be of any kind). */
export const LABEL_LIMIT = 63;
/** A DNS subdomain: what a Secret accepts as a name. */
export const SUBDOMAIN_LIMIT = 253;

/** partsHash hashes the parts unambiguously: each is preceded by its length. */
export function partsHash(parts: readonly string[], length = NAME_HASH_LENGTH): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${Buffer.byteLength(p)}:${p};`);
  return h.digest('hex').slice(0, length);
}

/**
 * hashedName is `<readable>-<hash of parts>`: the parts joined by `-`, lower case, characters
 * a DNS label does not allow turned into `-`, cut so the whole fits in `limit` characters.
 * `hashedOnly` parts go into the hash but not the readable part.
 */
export function hashedName(parts: readonly string[], limit: number, hashedOnly: readonly string[] = [], hashLength = NAME_HASH_LENGTH): string {
  const hash = partsHash([...parts, ...hashedOnly], hashLength);
  const readable = parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, limit - hashLength - 1)
    .replace(/^-+|-+$/g, '');
  return readable ? `${readable}-${hash}` : hash;
}

/**
 * The resource provisioned for a claim: `<namespace>-<name>-<hash of namespace, name and uid>`,
 * at most 63 characters. The uid makes a new claim of the same name get a new resource.
 */
export function provisionedName(claim: KObject): string {
  return hashedName([claim.metadata.namespace ?? '', claim.metadata.name ?? ''], LABEL_LIMIT, [claim.metadata.uid ?? ''], PROVISIONED_HASH_LENGTH);
}

/** The Secret a claim's connection details go to: spec.writeConnectionSecretToRef.name or the claim's name. */
export function connectionSecretName(claim: KObject): string {
  const spec = (claim.spec ?? {}) as { writeConnectionSecretToRef?: { name?: string } };
  return spec.writeConnectionSecretToRef?.name || claim.metadata.name!;
}

/**
 * The Secret, in the resource's namespace, holding one claim's details on a Shared resource:
 * `<resource>-<namespace>-<name>-<hash of the three>`, at most 253 characters.
 */
export function bindingSecretName(resource: KObject, claim: KObject): string {
  return hashedName([resource.metadata.name ?? '', claim.metadata.namespace ?? '', claim.metadata.name ?? ''], SUBDOMAIN_LIMIT);
}

/**
 * legacyBindingSecretName is the name earlier versions gave the binding Secret
 * (`<resource>-<namespace>-<name>`, which two claims could share); read only to carry a
 * claim's credentials over to its new Secret.
 */
export function legacyBindingSecretName(resource: KObject, claim: KObject): string {
  const base = `${resource.metadata.name}-${claim.metadata.namespace}-${claim.metadata.name}`.toLowerCase();
  if (base.length <= 253) return base;
  return `${base.slice(0, 240)}-${createHash('sha256').update(base).digest('hex').slice(0, 10)}`;
}
