/**
 * The machinery the REST handlers use, gathered in one place: selectors, patches,
 * server-side apply, schema validation and object-metadata validation.
 */
import type { KObject, ManagedFieldsEntry } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { errors } from '../../machinery/errors.js';
import { parseLabelSelector as parseLabels, parseFieldSelector as parseFields } from '../../machinery/selectors/index.js';
import { applyMergePatch as mergePatch, applyJsonPatch as jsonPatch, applyStrategicMergePatch as strategicPatch } from '../../machinery/patch/index.js';
import { apply as ssaApplyImpl, trackUpdate as trackUpdateImpl } from '../../machinery/apply/index.js';
import { compileSchema, type CompiledSchema } from '../schema/index.js';
import { objectMetaOptionsFor, validateObjectMeta as validateMeta, validateObjectMetaUpdate as validateMetaUpdate } from '../builtins/index.js';
import type { JSONSchemaProps, ResourceType } from '../registry/resource-type.js';
import { groupVersion } from '../registry/resource-type.js';

export interface Selector<T> {
  empty: boolean;
  matches(input: T): boolean;
}

export function parseLabelSelector(s: string): Selector<Record<string, string> | undefined> {
  if (!s.trim()) return { empty: true, matches: () => true };
  const sel = parseLabels(s);
  return { empty: false, matches: (labels) => sel.matches(labels ?? {}) };
}

export function parseFieldSelector(s: string, supported: Set<string>): Selector<Record<string, string>> {
  if (!s.trim()) return { empty: true, matches: () => true };
  const sel = parseFields(s);
  for (const r of sel.requirements()) {
    if (!supported.has(r.field)) throw errors.badRequest(`field label not supported: ${r.field}`);
  }
  return { empty: false, matches: (fields) => sel.matches(fields) };
}

export const applyMergePatch = (orig: unknown, patch: unknown): unknown => mergePatch(orig as never, patch as never);
export const applyJsonPatch = (orig: unknown, patch: unknown): unknown => jsonPatch(orig as never, patch as never);
export const applyStrategicMergePatch = (orig: unknown, patch: unknown, schema: JSONSchemaProps): unknown =>
  strategicPatch(orig as never, patch as never, schema);

const compiled = new WeakMap<ResourceType, CompiledSchema>();

export function compiledSchemaFor(rt: ResourceType): CompiledSchema {
  let c = compiled.get(rt);
  if (!c) {
    c = compileSchema(rt.schema, { group: rt.group, kind: rt.kind });
    compiled.set(rt, c);
  }
  return c;
}

export function validateObjectMeta(obj: KObject, rt: ResourceType): StatusCause[] {
  return validateMeta(obj, objectMetaOptionsFor(rt));
}

export function validateObjectMetaUpdate(obj: KObject, old: KObject): StatusCause[] {
  return validateMetaUpdate(obj, old);
}

export interface SsaArgs {
  rt: ResourceType;
  live: KObject | undefined;
  applied: KObject;
  manager: string;
  force: boolean;
  now: Date;
  subresource: string;
}

export function ssaApply(a: SsaArgs): { object: KObject; managedFields: ManagedFieldsEntry[] } {
  const r = ssaApplyImpl({
    live: a.live,
    applied: a.applied,
    manager: a.manager,
    force: a.force,
    schema: a.rt.schema,
    apiVersion: groupVersion(a.rt),
    now: a.now,
    subresource: a.subresource || undefined,
    ignore: ignoredPaths(a.rt, a.subresource, a.live ?? a.applied),
  });
  return { object: r.object, managedFields: r.managedFields };
}

export interface TrackArgs {
  rt: ResourceType;
  old: KObject | undefined;
  updated: KObject;
  manager: string;
  now: Date;
  subresource: string;
}

export function trackUpdate(a: TrackArgs): ManagedFieldsEntry[] {
  return trackUpdateImpl({
    old: a.old,
    updated: a.updated,
    manager: a.manager,
    schema: a.rt.schema,
    apiVersion: groupVersion(a.rt),
    now: a.now,
    subresource: a.subresource || undefined,
    ignore: ignoredPaths(a.rt, a.subresource, a.updated),
  });
}

/** Fields a write cannot change, so nobody owns them through it: status via the main resource, the rest via status. */
function ignoredPaths(rt: ResourceType, subresource: string, obj: KObject): string[][] | undefined {
  if (!rt.subresources.status) return undefined;
  if (subresource === 'status') {
    return Object.keys(obj)
      .filter((k) => k !== 'status' && k !== 'apiVersion' && k !== 'kind')
      .map((k) => [k]);
  }
  return [['status']];
}
