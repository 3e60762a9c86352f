/**
 * Deterministic names the claim controller derives from a claim, so a retry after a crash
 * finds what the first attempt made instead of making a second one.
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../../machinery/object.js';

/** `<namespace>-<name>-<first 8 chars of uid>`, shortened with a hash when over 63 characters. */
export function provisionedName(claim: KObject): string {
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const uid = (claim.metadata.uid ?? '').replace(/-/g, '').slice(0, 8);
  const full = `${ns}-${name}-${uid}`.toLowerCase();
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 10);
  return `${full.slice(0, 63 - 11).replace(/-+$/, '')}-${hash}`;
}

/** The Secret a claim's connection details go to: spec.writeConnectionSecretToRef.name or the claim's name. */
export function connectionSecretName(claim: KObject): string {
  const spec = (claim.spec ?? {}) as { writeConnectionSecretToRef?: { name?: string } };
  return spec.writeConnectionSecretToRef?.name || claim.metadata.name!;
}

/** The Secret, in the resource's namespace, holding one claim's details on a Shared resource. */
export function bindingSecretName(resource: KObject, claim: KObject): string {
  const base = `${resource.metadata.name}-${claim.metadata.namespace}-${claim.metadata.name}`.toLowerCase();
  if (base.length <= 253) return base;
  return `${base.slice(0, 240)}-${createHash('sha256').update(base).digest('hex').slice(0, 10)}`;
}
