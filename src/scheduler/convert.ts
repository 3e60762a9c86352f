/**
 * From API objects to the scheduler's model: claims (docs/design.md 3.1), concrete resources (3.2),
 * ResourceClasses (3.3) and SchedulerProfile specs (3.4). This is parsing code: objects come
 * from informers as JSON, so every field is checked; what cannot be read throws an Error
 * naming the object and the field.
 */
import { parseApiVersion, isPlainObject, type KObject } from '../machinery/object.js';
import { parseQuantity, type Quantity } from '../machinery/quantity/index.js';
import { labelSelectorFromObject, type LabelSelector } from '../machinery/selectors/index.js';
import { parseSupportedResource } from './keys.js';
import type {
  Capabilities,
  ClaimInfo,
  ClaimRef,
  ClassCandidate,
  ExtenderConfig,
  GroupKind,
  Money,
  ResourceCandidate,
  ResourceList,
  ResourcePhase,
  SchedulerConfig,
  Sharing,
} from './types.js';

/** The claim spec fields every kind shares; the rest of a claim's spec is portable configuration. */
export const CLAIM_COMMON_FIELDS: readonly string[] = ['requirements', 'resourceClass', 'resourceName', 'resourceSelector', 'writeConnectionSecretToRef'];
/** The concrete spec fields every kind shares; the rest is provider-specific configuration. */
export const CONCRETE_COMMON_FIELDS: readonly string[] = [
  'providerRef',
  'rebindPolicy',
  'resourceClass',
  'capabilities',
  'sharing',
  'claimRef',
  'writeConnectionSecretToRef',
  'managementPolicy',
];
/** The annotation that makes a ResourceClass the default for its kinds. */
export const DEFAULT_CLASS_ANNOTATION = 'conductor.io/is-default-class';

const PHASES: readonly ResourcePhase[] = ['Pending', 'Available', 'Bound', 'Released', 'Failed'];

type Rec = Record<string, unknown>;

/** Who is being read, for error messages. */
function who(obj: KObject): string {
  const ns = obj.metadata?.namespace;
  return `${obj.kind} ${ns ? `${ns}/` : ''}${obj.metadata?.name ?? '(unnamed)'}`;
}

function record(v: unknown): Rec {
  return isPlainObject(v) ? v : {};
}

function optString(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(record(v))) if (typeof x === 'string') out[k] = x;
  return out;
}

const CLAIM_COMMON = new Set(CLAIM_COMMON_FIELDS);
const CONCRETE_COMMON = new Set(CONCRETE_COMMON_FIELDS);

function without(spec: Rec, fields: ReadonlySet<string>): Rec {
  const out: Rec = {};
  for (const k of Object.keys(spec)) if (!fields.has(k)) out[k] = spec[k];
  return out;
}

function quantities(obj: KObject, path: string, v: unknown): ResourceList {
  const out: Record<string, Quantity> = {};
  for (const [k, x] of Object.entries(record(v))) {
    if (typeof x !== 'string' && typeof x !== 'number')
      throw new Error(`cannot read ${who(obj)}: ${path}.${k} is ${JSON.stringify(x)}, expected a quantity such as 25Gi`);
    try {
      out[k] = parseQuantity(x);
    } catch (err) {
      throw new Error(`cannot read ${who(obj)}: ${path}.${k}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
  return out;
}

function capabilitiesOf(obj: KObject, path: string, v: unknown): Capabilities {
  const r = record(v);
  const region = optString(r['region']);
  const cost = optString(r['cost']);
  const performance = optString(r['performance']);
  return {
    capacity: quantities(obj, `${path}.capacity`, r['capacity']),
    ...(region === undefined ? {} : { region }),
    ...(cost === undefined ? {} : { cost }),
    ...(performance === undefined ? {} : { performance }),
  };
}

function selector(obj: KObject, path: string, v: unknown): LabelSelector | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw new Error(`cannot read ${who(obj)}: ${path} is not a label selector object`);
  try {
    return labelSelectorFromObject(v);
  } catch (err) {
    throw new Error(`cannot read ${who(obj)}: ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function groupOf(apiVersion: unknown): string {
  return typeof apiVersion === 'string' && apiVersion !== '' ? parseApiVersion(apiVersion).group : '';
}

/** How many apiVersions (namespaces), and kinds per apiVersion (providers per namespace), kindOf (providerOf) remembers before starting over. */
const CACHE_LIMIT = 1024;
const kindCache = new Map<string, Map<string, GroupKind>>();

/**
 * kindOf is the kind of an object with this apiVersion and kind. Objects of one kind share one
 * frozen GroupKind, so the scheduler's per-candidate work (kind keys, PortableConfig's matcher
 * lookup) recognises it by identity instead of comparing or lower-casing strings.
 */
function kindOf(apiVersion: unknown, kind: string): GroupKind {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return { group: groupOf(apiVersion), kind };
  let byKind = kindCache.get(apiVersion);
  let gk = byKind?.get(kind);
  if (gk === undefined) {
    gk = Object.freeze({ group: groupOf(apiVersion), kind });
    if (byKind === undefined) {
      if (kindCache.size >= CACHE_LIMIT) kindCache.clear();
      kindCache.set(apiVersion, (byKind = new Map<string, GroupKind>()));
    }
    if (byKind.size >= CACHE_LIMIT) byKind.clear();
    byKind.set(kind, gk);
  }
  return gk;
}

const providerCache = new Map<string, Map<string, string>>();

/**
 * providerOf is `namespace/name` of a providerRef. Candidates of one provider share one string,
 * so Spread and BinPack, grouping candidates by provider, compare them by identity.
 */
function providerOf(namespace: string, ref: unknown): string | undefined {
  const name = optString(record(ref)['name']);
  if (name === undefined) return undefined;
  let byName = providerCache.get(namespace);
  let p = byName?.get(name);
  if (p === undefined) {
    p = `${namespace}/${name}`;
    if (byName === undefined) {
      if (providerCache.size >= CACHE_LIMIT) providerCache.clear();
      providerCache.set(namespace, (byName = new Map<string, string>()));
    }
    if (byName.size >= CACHE_LIMIT) byName.clear();
    byName.set(name, p);
  }
  return p;
}

let lastTimestamp: string | undefined;
let lastCreatedAt = 0;

/** createdAt reads metadata.creationTimestamp (objects created together share one: the last is remembered). */
function createdAt(obj: KObject): number {
  const ts = obj.metadata?.creationTimestamp ?? '';
  if (ts === lastTimestamp) return lastCreatedAt;
  const t = Date.parse(ts);
  lastTimestamp = ts;
  lastCreatedAt = Number.isNaN(t) ? 0 : t;
  return lastCreatedAt;
}

/** ClaimOptions add what a claim object does not carry. */
export interface ClaimOptions {
  /** The labels of the claim's namespace (NamespacePolicy). */
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  /** A region replacing the claim's own, e.g. the consumer's for WaitForFirstConsumer. */
  readonly region?: string;
}

/** The currency of a price or limit that names none. */
export const DEFAULT_CURRENCY = 'USD';

/** How a monthly price limit is written: an amount with at most two decimals, then optionally a space and an ISO 4217 code. */
export const MONTHLY_PRICE_PATTERN = '^[0-9]{1,9}([.][0-9]{1,2})? ?([A-Z]{3})?$';
const MONTHLY_PRICE = new RegExp(MONTHLY_PRICE_PATTERN);

/**
 * parseMoney reads `50`, `"12.50"` or `"40 EUR"` (USD when no currency is named); undefined
 * when it is not written that way.
 */
export function parseMoney(v: unknown): Money | undefined {
  const text = typeof v === 'number' && Number.isFinite(v) && v >= 0 ? String(v) : typeof v === 'string' ? v.trim() : undefined;
  if (text === undefined || !MONTHLY_PRICE.test(text)) return undefined;
  const m = /^([0-9.]+) ?([A-Z]{3})?$/.exec(text);
  if (m === null) return undefined;
  return { amount: Number(m[1]), currency: m[2] ?? DEFAULT_CURRENCY };
}

/** claimInfoFromObject reads a claim object of any claim kind. */
export function claimInfoFromObject(obj: KObject, options: ClaimOptions = {}): ClaimInfo {
  const spec = record(obj['spec']);
  const rawReq = record(spec['requirements']);
  const caps = capabilitiesOf(obj, 'spec.requirements', rawReq);
  let limit: Money | undefined;
  if (rawReq['maxMonthlyPrice'] !== undefined) {
    limit = parseMoney(rawReq['maxMonthlyPrice']);
    if (limit === undefined)
      throw new Error(
        `cannot read ${who(obj)}: spec.requirements.maxMonthlyPrice is ${JSON.stringify(rawReq['maxMonthlyPrice'])}, expected an amount with an optional currency such as "50" or "40 EUR"`,
      );
  }
  const req = limit === undefined ? caps : { ...caps, maxMonthlyPrice: limit };
  const requirements = options.region === undefined ? req : { ...req, region: options.region };
  const resourceClass = optString(spec['resourceClass']);
  const resourceName = optString(spec['resourceName']);
  const resourceSelector = selector(obj, 'spec.resourceSelector', spec['resourceSelector']);
  return {
    namespace: obj.metadata?.namespace ?? '',
    name: obj.metadata?.name ?? '',
    uid: obj.metadata?.uid ?? '',
    kind: kindOf(obj.apiVersion, obj.kind),
    requirements,
    ...(resourceClass === undefined ? {} : { resourceClass }),
    ...(resourceName === undefined ? {} : { resourceName }),
    ...(resourceSelector === undefined ? {} : { resourceSelector }),
    portable: without(spec, CLAIM_COMMON),
    namespaceLabels: { ...(options.namespaceLabels ?? {}) },
    source: obj,
  };
}

/** ResourceOptions add what a concrete resource object does not carry. */
export interface ResourceOptions {
  /** The claim kinds its kind implements (the CRD's `conductor.io/implements`, mapped from plurals to kinds). */
  readonly implements: readonly GroupKind[];
}

function sharingOf(obj: KObject, v: unknown): Sharing {
  const r = record(v);
  if (r['mode'] === undefined || r['mode'] === 'Exclusive') return { mode: 'Exclusive' };
  if (r['mode'] !== 'Shared') throw new Error(`cannot read ${who(obj)}: spec.sharing.mode is ${JSON.stringify(r['mode'])}, expected Exclusive or Shared`);
  const max = r['maxClaims'];
  return typeof max === 'number' && Number.isFinite(max) ? { mode: 'Shared', maxClaims: max } : { mode: 'Shared' };
}

function claimRefOf(v: unknown): ClaimRef | undefined {
  const r = record(v);
  const name = optString(r['name']);
  const namespace = optString(r['namespace']);
  if (name === undefined || namespace === undefined) return undefined;
  const uid = optString(r['uid']);
  const kind = optString(r['kind']);
  return {
    namespace,
    name,
    ...(uid === undefined ? {} : { uid }),
    ...(kind === undefined ? {} : { kind: { group: groupOf(r['apiVersion']), kind } }),
  };
}

/** resourceCandidateFromObject reads a concrete resource of any concrete kind. */
export function resourceCandidateFromObject(obj: KObject, options: ResourceOptions): ResourceCandidate {
  const spec = record(obj['spec']);
  const status = record(obj['status']);
  const namespace = obj.metadata?.namespace ?? '';
  const phase = PHASES.includes(status['phase'] as ResourcePhase) ? (status['phase'] as ResourcePhase) : 'Pending';
  const sharing = sharingOf(obj, spec['sharing']);
  const claimRef = claimRefOf(spec['claimRef']);
  const bindings = Array.isArray(status['bindings']) ? status['bindings'].length : 0;
  const boundCount = sharing.mode === 'Shared' ? bindings : claimRef !== undefined && phase === 'Bound' ? 1 : 0;
  const profile = optString(spec['resourceClass']);
  const provider = providerOf(namespace, spec['providerRef']);
  const allocatable = status['allocatable'] === undefined ? undefined : quantities(obj, 'status.allocatable', status['allocatable']);
  return {
    type: 'resource',
    kind: kindOf(obj.apiVersion, obj.kind),
    namespace,
    name: obj.metadata?.name ?? '',
    ...(obj.metadata?.uid === undefined ? {} : { uid: obj.metadata.uid }),
    labels: { ...(obj.metadata?.labels ?? {}) },
    ...(profile === undefined ? {} : { profile }),
    phase,
    capabilities: capabilitiesOf(obj, 'spec.capabilities', spec['capabilities']),
    sharing,
    boundCount,
    ...(obj.metadata?.deletionTimestamp ? { deleting: true } : {}),
    ...(allocatable === undefined ? {} : { allocatable }),
    implements: [...options.implements],
    portable: without(spec, CONCRETE_COMMON),
    ...(provider === undefined ? {} : { provider }),
    ...(claimRef === undefined || sharing.mode === 'Shared' ? {} : { claimRef }),
    createdAt: createdAt(obj),
    source: obj,
  };
}

/** A ProviderTarget is a Provider as a place to put a class that names none (ProviderModule.placedAcrossProviders). */
export interface ProviderTarget {
  readonly namespace: string;
  readonly name: string;
  /** `spec.type`. */
  readonly type: string;
  /** Its Ready condition is True. */
  readonly ready: boolean;
  /** `spec.capabilities`, with `spec.region` as the region when the capabilities state none. */
  readonly capabilities: Capabilities;
}

/** providerTargetFromObject reads a Provider object. */
export function providerTargetFromObject(obj: KObject): ProviderTarget {
  const spec = record(obj['spec']);
  const caps = capabilitiesOf(obj, 'spec.capabilities', spec['capabilities']);
  const region = caps.region ?? optString(spec['region']);
  const conditions = record(obj['status'])['conditions'];
  const ready = Array.isArray(conditions) && conditions.some((c) => record(c)['type'] === 'Ready' && record(c)['status'] === 'True');
  return {
    namespace: obj.metadata?.namespace ?? '',
    name: obj.metadata?.name ?? '',
    type: optString(spec['type']) ?? '',
    ready,
    capabilities: region === undefined ? caps : { ...caps, region },
  };
}

/** ClassOptions add what a ResourceClass object does not carry. */
export interface ClassOptions {
  /** How many resources the class has created that still exist (pool.maxInstances). */
  readonly instanceCount?: number;
}

/** classCandidateFromObject reads a ResourceClass (its fields are at the top level). */
export function classCandidateFromObject(obj: KObject, options: ClassOptions = {}): ClassCandidate {
  const namespace = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  const template = record(obj['template']);
  const templateKind = optString(template['kind']);
  if (templateKind === undefined) throw new Error(`cannot read ${who(obj)}: template.kind is missing, expected the concrete kind the class creates`);
  const supported = Array.isArray(obj['supportedResources']) ? obj['supportedResources'] : [];
  const supportedResources = supported.map((entry, i) => {
    if (typeof entry !== 'string') throw new Error(`cannot read ${who(obj)}: supportedResources[${i}] is not a string, expected Kind.version.group`);
    try {
      return parseSupportedResource(entry);
    } catch (err) {
      throw new Error(`cannot read ${who(obj)}: supportedResources[${i}]: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  });
  const pool = record(obj['pool']);
  const max = pool['maxInstances'];
  const allowedNamespaces = selector(obj, 'allowedNamespaces', obj['allowedNamespaces']);
  const provider = providerOf(namespace, obj['providerRef']);
  return {
    type: 'class',
    namespace,
    name,
    profile: optString(obj['resourceClass']) ?? name,
    capabilities: capabilitiesOf(obj, 'capabilities', obj['capabilities']),
    supportedResources,
    ...(allowedNamespaces === undefined ? {} : { allowedNamespaces }),
    isDefault: obj.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true',
    ...(obj.metadata?.deletionTimestamp ? { deleting: true } : {}),
    maxInstances: typeof max === 'number' && Number.isFinite(max) && max > 0 ? max : 0,
    instanceCount: options.instanceCount ?? 0,
    templateKind: kindOf(template['apiVersion'], templateKind),
    portable: record(template['spec']),
    ...(provider === undefined ? {} : { provider }),
    createdAt: createdAt(obj),
    source: obj,
  };
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/**
 * schedulerConfigFromProfileSpec reads a SchedulerProfile's spec: `plugins.filters` (names in
 * order), `plugins.scores` ([{name, weight}]), `regionHierarchy`, `costTiers`,
 * `performanceTiers` and `extenders` ([{name, filterURL, scoreURL, weight, timeoutSeconds,
 * ignorable}]). Absent parts keep the scheduler's defaults.
 */
export function schedulerConfigFromProfileSpec(spec: unknown, name?: string): SchedulerConfig {
  const r = record(spec);
  const plugins = record(r['plugins']);
  const filters = stringList(plugins['filters']);
  let scoreWeights: Record<string, number> | undefined;
  if (Array.isArray(plugins['scores'])) {
    scoreWeights = {};
    for (const s of plugins['scores']) {
      const e = record(s);
      if (typeof e['name'] === 'string' && typeof e['weight'] === 'number') scoreWeights[e['name']] = e['weight'];
    }
  }
  const regions: Record<string, string[]> = {};
  for (const [parent, kids] of Object.entries(record(r['regionHierarchy']))) regions[parent] = stringList(kids) ?? [];
  const extenders: ExtenderConfig[] = [];
  if (Array.isArray(r['extenders'])) {
    for (const x of r['extenders']) {
      const e = record(x);
      const extName = optString(e['name']);
      if (extName === undefined) continue;
      const filterUrl = optString(e['filterURL']) ?? optString(e['filterUrl']);
      const scoreUrl = optString(e['scoreURL']) ?? optString(e['scoreUrl']);
      const weight = e['weight'];
      const timeout = e['timeoutSeconds'];
      extenders.push({
        name: extName,
        ...(filterUrl === undefined ? {} : { filterUrl }),
        ...(scoreUrl === undefined ? {} : { scoreUrl }),
        ...(typeof weight === 'number' ? { weight } : {}),
        ...(typeof timeout === 'number' && timeout > 0 ? { timeoutMs: timeout * 1000 } : {}),
        ...(e['ignorable'] === true ? { ignorable: true } : {}),
      });
    }
  }
  const costTiers = stringList(r['costTiers']);
  const performanceTiers = stringList(r['performanceTiers']);
  return {
    regions,
    ...(costTiers === undefined ? {} : { costTiers }),
    ...(performanceTiers === undefined ? {} : { performanceTiers }),
    profile: {
      ...(name === undefined ? {} : { name }),
      ...(filters === undefined ? {} : { filters }),
      ...(scoreWeights === undefined ? {} : { scoreWeights }),
      ...(extenders.length === 0 ? {} : { extenders }),
    },
  };
}

/**
 * implementsFromAnnotation reads a concrete CRD's `conductor.io/implements` annotation
 * (`mysqlinstances.storage.conductor.io,...`: plural resource names with their group) into
 * claim kinds, with `kindOf` mapping a plural and group to its kind (from discovery or the
 * CRDs); entries it does not know are skipped.
 */
export function implementsFromAnnotation(value: string | undefined, kindOf: (resource: string, group: string) => string | undefined): GroupKind[] {
  const out: GroupKind[] = [];
  for (const entry of (value ?? '').split(',')) {
    const e = entry.trim();
    if (e === '') continue;
    const dot = e.indexOf('.');
    const resource = dot < 0 ? e : e.slice(0, dot);
    const group = dot < 0 ? '' : e.slice(dot + 1);
    const kind = kindOf(resource, group);
    if (kind !== undefined) out.push({ group, kind });
  }
  return out;
}

/** namespaceLabelsOf reads a Namespace object's labels, for ClaimOptions. */
export function namespaceLabelsOf(ns: KObject | undefined): Record<string, string> {
  return stringMap(ns?.metadata?.labels);
}
