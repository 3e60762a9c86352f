/**
 * Parsing of the query parameters of the Kubernetes REST protocol into typed options.
 * Bad values are a 400 naming the parameter and what was expected.
 */
import { errors } from '../../machinery/errors.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
export type Propagation = 'Background' | 'Foreground' | 'Orphan';

export interface ListParams {
  labelSelector: string;
  fieldSelector: string;
  limit: number;
  continueToken: string;
  resourceVersion: string;
  resourceVersionMatch: '' | 'Exact' | 'NotOlderThan';
}

export interface WatchParams {
  labelSelector: string;
  fieldSelector: string;
  resourceVersion: string;
  resourceVersionMatch: '' | 'Exact' | 'NotOlderThan';
  allowWatchBookmarks: boolean;
  timeoutSeconds: number;
  sendInitialEvents: boolean | undefined;
}

export interface WriteParams {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidation;
}

export interface PatchParams extends WriteParams {
  force: boolean;
  /** True when the client named a field manager (required for server-side apply). */
  fieldManagerGiven: boolean;
}

export interface DeleteParams {
  dryRun: boolean;
  propagationPolicy: Propagation | undefined;
  gracePeriodSeconds: number | undefined;
  preconditions: { uid?: string; resourceVersion?: string };
}

export type Query = { get(name: string): string | null; getAll?(name: string): string[] };

/** Whether the query asks for a watch (`watch=true` or `1`, in any case: the Python client sends `watch=True`). */
export function watchRequested(q: Query): boolean {
  const v = (q.get('watch') ?? '').toLowerCase();
  return v === 'true' || v === '1';
}

function bool(q: Query, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  // Case-insensitive, as kube reads booleans: the Python client sends `force=True`.
  const lower = v.toLowerCase();
  if (lower === '' || lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw errors.badRequest(`invalid value for query parameter "${name}": ${JSON.stringify(v)} (expected true or false)`);
}

function nonNegativeInt(q: Query, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^\d{1,15}$/.test(v)) {
    throw errors.badRequest(`invalid value for query parameter "${name}": ${JSON.stringify(v)} (expected a non-negative integer)`);
  }
  return Number(v);
}

function resourceVersion(q: Query): string {
  const v = q.get('resourceVersion') ?? '';
  if (v !== '' && !/^\d{1,18}$/.test(v)) {
    throw errors.badRequest(`invalid value for query parameter "resourceVersion": ${JSON.stringify(v)} (expected a resource version from an earlier response)`);
  }
  return v;
}

function rvMatch(q: Query): ListParams['resourceVersionMatch'] {
  const v = q.get('resourceVersionMatch') ?? '';
  if (v !== '' && v !== 'Exact' && v !== 'NotOlderThan') {
    throw errors.badRequest(`invalid value for query parameter "resourceVersionMatch": ${JSON.stringify(v)} (expected Exact or NotOlderThan)`);
  }
  return v;
}

export function parseListParams(q: Query): ListParams {
  const p: ListParams = {
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: q.get('fieldSelector') ?? '',
    limit: nonNegativeInt(q, 'limit') ?? 0,
    continueToken: q.get('continue') ?? '',
    resourceVersion: resourceVersion(q),
    resourceVersionMatch: rvMatch(q),
  };
  if (p.resourceVersionMatch && !p.resourceVersion) {
    throw errors.badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (p.continueToken && p.resourceVersion && p.resourceVersion !== '0') {
    throw errors.badRequest('specifying resource version is not allowed when using continue');
  }
  return p;
}

export function parseWatchParams(q: Query): WatchParams {
  return {
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: q.get('fieldSelector') ?? '',
    resourceVersion: resourceVersion(q),
    resourceVersionMatch: rvMatch(q),
    allowWatchBookmarks: bool(q, 'allowWatchBookmarks') ?? false,
    timeoutSeconds: nonNegativeInt(q, 'timeoutSeconds') ?? 0,
    sendInitialEvents: bool(q, 'sendInitialEvents'),
  };
}

function dryRun(q: Query): boolean {
  const all = q.getAll ? q.getAll('dryRun') : [q.get('dryRun')].filter((x): x is string => x !== null);
  for (const v of all) {
    if (v !== 'All') throw errors.badRequest(`invalid value for query parameter "dryRun": ${JSON.stringify(v)} (expected All)`);
  }
  return all.length > 0;
}

function fieldValidation(q: Query): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  const norm = v.toLowerCase();
  if (norm === 'strict') return 'Strict';
  if (norm === 'warn') return 'Warn';
  if (norm === 'ignore') return 'Ignore';
  throw errors.badRequest(`invalid value for query parameter "fieldValidation": ${JSON.stringify(v)} (expected Strict, Warn or Ignore)`);
}

function fieldManager(q: Query, userAgent: string): string {
  const v = q.get('fieldManager');
  if (v !== null) {
    if (v.length > 128) throw errors.badRequest('fieldManager: must be at most 128 characters');
    if (!/^[\x20-\x7e]*$/.test(v)) throw errors.badRequest('fieldManager: must contain only printable ASCII characters');
    return v;
  }
  // Kubernetes' default manager is the user agent up to its first '/'.
  const prefix = userAgent.split('/')[0] ?? '';
  return prefix.slice(0, 128) || 'unknown';
}

export function parseWriteParams(q: Query, userAgent: string): WriteParams {
  return { dryRun: dryRun(q), fieldManager: fieldManager(q, userAgent), fieldValidation: fieldValidation(q) };
}

export function parsePatchParams(q: Query, userAgent: string): PatchParams {
  return { ...parseWriteParams(q, userAgent), force: bool(q, 'force') ?? false, fieldManagerGiven: (q.get('fieldManager') ?? '') !== '' };
}

/** Delete options come from the query and/or a DeleteOptions body (the body wins). */
export function parseDeleteParams(q: Query, body: unknown): DeleteParams {
  const p: DeleteParams = {
    dryRun: dryRun(q),
    propagationPolicy: propagation(q.get('propagationPolicy'), 'propagationPolicy'),
    gracePeriodSeconds: nonNegativeInt(q, 'gracePeriodSeconds'),
    preconditions: {},
  };
  const orphan = bool(q, 'orphanDependents');
  if (orphan !== undefined && p.propagationPolicy === undefined) p.propagationPolicy = orphan ? 'Orphan' : 'Background';
  if (body === undefined || body === null) return p;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw errors.badRequest('the request body of a delete must be a DeleteOptions object');
  }
  const b = body as Record<string, unknown>;
  if (b.kind !== undefined && b.kind !== 'DeleteOptions') {
    throw errors.badRequest(`the request body of a delete must be a DeleteOptions object, not ${JSON.stringify(b.kind)}`);
  }
  if (b.propagationPolicy !== undefined) p.propagationPolicy = propagation(b.propagationPolicy, 'propagationPolicy');
  if (b.orphanDependents !== undefined) {
    if (typeof b.orphanDependents !== 'boolean') throw errors.badRequest('orphanDependents: expected a boolean');
    if (b.propagationPolicy !== undefined) throw errors.badRequest('orphanDependents and propagationPolicy cannot both be set');
    p.propagationPolicy = b.orphanDependents ? 'Orphan' : 'Background';
  }
  if (b.gracePeriodSeconds !== undefined && b.gracePeriodSeconds !== null) {
    if (typeof b.gracePeriodSeconds !== 'number' || b.gracePeriodSeconds < 0) {
      throw errors.badRequest('gracePeriodSeconds: expected a non-negative integer');
    }
    p.gracePeriodSeconds = b.gracePeriodSeconds;
  }
  if (b.dryRun !== undefined) {
    if (!Array.isArray(b.dryRun) || b.dryRun.some((x) => x !== 'All')) throw errors.badRequest('dryRun: expected ["All"]');
    p.dryRun = p.dryRun || b.dryRun.length > 0;
  }
  if (b.preconditions !== undefined && b.preconditions !== null) {
    if (typeof b.preconditions !== 'object') throw errors.badRequest('preconditions: expected an object');
    const pre = b.preconditions as Record<string, unknown>;
    if (pre.uid !== undefined && pre.uid !== null) {
      if (typeof pre.uid !== 'string') throw errors.badRequest('preconditions.uid: expected a string');
      p.preconditions.uid = pre.uid;
    }
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== null) {
      if (typeof pre.resourceVersion !== 'string') throw errors.badRequest('preconditions.resourceVersion: expected a string');
      p.preconditions.resourceVersion = pre.resourceVersion;
    }
  }
  return p;
}

function propagation(v: unknown, name: string): Propagation | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  if (v === 'Background' || v === 'Foreground' || v === 'Orphan') return v;
  throw errors.badRequest(`invalid value for "${name}": ${JSON.stringify(v)} (expected Background, Foreground or Orphan)`);
}
