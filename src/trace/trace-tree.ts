/**
 * The tree `conductor trace` prints: from a claim to its class, the resource bound to it, that
 * resource's Provider and external object, and the claim's connection Secret; from a concrete
 * resource to its Provider, external object and the claims it serves. Each node says whether it
 * is Ready and Synced, its last message and its age. Read with the Client only; nothing is
 * written. A link that does not hold (a status naming a resource that does not record the
 * claim, a Provider that does not exist) is shown as such, not hidden.
 */
import type { Client, ResourceRef } from '../client/types.js';
import { builtinRefs, resourceRef } from '../client/types.js';
import { isApiError } from '../machinery/errors.js';
import { isPlainObject, type KObject } from '../machinery/object.js';
import { EXTERNAL_NAME_ANNOTATION, V1ALPHA1 } from '../apis/well-known.js';

/**
 * The Conductor kinds the tree reads. Spelled here rather than taken from apis/index.ts, which
 * brings the whole catalog and Node's modules with it: this file is bundled for the browser too
 * (the dashboard). trace-tree.test.ts checks they are apiRefs' own.
 */
export const traceRefs = {
  resourceclasses: resourceRef(`core.conductor.io/${V1ALPHA1}`, 'ResourceClass', 'resourceclasses', true),
  providers: resourceRef(`core.conductor.io/${V1ALPHA1}`, 'Provider', 'providers', true),
};

/** What the tree needs of a client: reading one object (the dashboard's fetch client has only this). */
export type TraceReader = Pick<Client, 'get'>;

/** One line of the tree. */
export interface TraceNode {
  /** `Kind/name`. */
  readonly name: string;
  readonly namespace?: string;
  /** `True`, `False`, `Unknown`, or `-` when the object has no such condition. */
  readonly ready: string;
  readonly synced: string;
  /** Phase and the message that matters most (why not ready, what it is). */
  readonly status: string;
  /** When it was created (undefined: not an object, or not found). */
  readonly createdAt?: string;
  readonly children: TraceNode[];
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditionsOf(o: KObject): Condition[] {
  const status = isPlainObject(o.status) ? o.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isPlainObject) : [];
}

function condition(o: KObject, type: string): Condition | undefined {
  return conditionsOf(o).find((c) => c.type === type);
}

function phaseOf(o: KObject): string | undefined {
  const status = isPlainObject(o.status) ? o.status : {};
  return typeof status.phase === 'string' ? status.phase : undefined;
}

/** The words of a condition: `Reason: message`. */
function said(c: Condition | undefined): string {
  if (!c) return '';
  return [c.reason, c.message].filter((x) => typeof x === 'string' && x !== '').join(': ');
}

function join(...parts: (string | undefined)[]): string {
  return parts.filter((p) => p !== undefined && p !== '').join(' — ');
}

/** An object found: its conditions, phase and the message that matters. */
function objectNode(o: KObject, children: TraceNode[] = [], extra?: string): TraceNode {
  const ready = condition(o, 'Ready');
  const synced = condition(o, 'Synced');
  const failing = [synced, ready, condition(o, 'Scheduled'), condition(o, 'Bound')].find((c) => c && c.status === 'False');
  const message = failing ? said(failing) : said(ready);
  const deleting = o.metadata.deletionTimestamp ? 'Terminating' : undefined;
  return {
    name: `${o.kind}/${o.metadata.name}`,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    ready: ready?.status ?? '-',
    synced: synced?.status ?? '-',
    status: join(deleting, phaseOf(o), message, extra),
    ...(o.metadata.creationTimestamp ? { createdAt: o.metadata.creationTimestamp } : {}),
    children,
  };
}

/** A link that does not lead to an object. */
function missingNode(name: string, namespace: string | undefined, why: string): TraceNode {
  return { name, ...(namespace ? { namespace } : {}), ready: '-', synced: '-', status: why, children: [] };
}

/** A link the reader may not follow: RBAC refuses it the object (a developer tracing a claim to a resource in conductor-system). */
interface Unreadable {
  readonly unreadable: string;
}
const NOT_ALLOWED: Unreadable = { unreadable: 'not allowed to read it (RBAC); an administrator sees what it is' };

function isUnreadable(x: KObject | Unreadable | undefined): x is Unreadable {
  return x !== undefined && 'unreadable' in x;
}

async function getOrUndefined(client: TraceReader, ref: ResourceRef, name: string, namespace?: string): Promise<KObject | Unreadable | undefined> {
  try {
    return await client.get(ref, name, namespace);
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    if (isApiError(err) && err.code === 403) return NOT_ALLOWED;
    throw err;
  }
}

/** How the tree finds the ResourceRef of an apiVersion and kind (discovery). */
export type RefLookup = (apiVersion: string, kind: string) => Promise<ResourceRef | undefined>;

interface ClaimRefLike {
  namespace?: string;
  name?: string;
  uid?: string;
  kind?: string;
  apiVersion?: string;
}

/** The claims a resource's own record binds: Exclusive `spec.claimRef`, Shared `status.bindings`. */
function claimsRecorded(resource: KObject): ClaimRefLike[] {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const status = isPlainObject(resource.status) ? resource.status : {};
  const shared = isPlainObject(spec.sharing) && spec.sharing.mode === 'Shared';
  const out: ClaimRefLike[] = [];
  if (!shared && isPlainObject(spec.claimRef)) out.push(spec.claimRef);
  for (const b of Array.isArray(status.bindings) ? status.bindings : []) if (isPlainObject(b) && isPlainObject(b.claimRef)) out.push(b.claimRef);
  return out;
}

function recordsClaim(resource: KObject, claim: KObject): boolean {
  return claimsRecorded(resource).some((c) => c.uid === claim.metadata.uid && c.name === claim.metadata.name && c.namespace === claim.metadata.namespace);
}

/** The Provider a resource names, and what it says. */
async function providerNode(client: TraceReader, resource: KObject): Promise<TraceNode | undefined> {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const name = isPlainObject(spec.providerRef) && typeof spec.providerRef.name === 'string' ? spec.providerRef.name : undefined;
  if (!name) return undefined;
  const provider = await getOrUndefined(client, traceRefs.providers, name, resource.metadata.namespace);
  if (isUnreadable(provider)) return missingNode(`Provider/${name}`, resource.metadata.namespace, provider.unreadable);
  if (!provider) return missingNode(`Provider/${name}`, resource.metadata.namespace, 'not found: the resource names a Provider that does not exist');
  const type = isPlainObject(provider.spec) && typeof provider.spec.type === 'string' ? `type ${provider.spec.type}` : undefined;
  return objectNode(provider, [], type);
}

/** The external object behind a resource: its external name and what the provider observed. */
function externalNode(resource: KObject): TraceNode | undefined {
  const externalName = resource.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  const status = isPlainObject(resource.status) ? resource.status : {};
  const at = isPlainObject(status.atProvider) ? status.atProvider : undefined;
  if (!externalName && !at) return undefined;
  const observed = at
    ? Object.entries(at)
        .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        .slice(0, 4)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ')
    : '';
  return { name: `External/${externalName ?? resource.metadata.name}`, ready: '-', synced: '-', status: observed, children: [] };
}

/** The subtree of a concrete resource: its Provider and its external object. */
async function resourceChildren(client: TraceReader, resource: KObject): Promise<TraceNode[]> {
  const out: TraceNode[] = [];
  const provider = await providerNode(client, resource);
  if (provider) out.push(provider);
  const external = externalNode(resource);
  if (external) out.push(external);
  return out;
}

/** traceClaim: the claim, its class, its resource (with Provider and external object) and its connection Secret. */
export async function traceClaim(client: TraceReader, claim: KObject, lookup: RefLookup): Promise<TraceNode> {
  const status = isPlainObject(claim.status) ? claim.status : {};
  const children: TraceNode[] = [];
  if (isPlainObject(status.classRef) && typeof status.classRef.name === 'string') {
    const ns = typeof status.classRef.namespace === 'string' ? status.classRef.namespace : undefined;
    const cls = await getOrUndefined(client, traceRefs.resourceclasses, status.classRef.name, ns);
    if (isUnreadable(cls)) children.push(missingNode(`ResourceClass/${status.classRef.name}`, ns, cls.unreadable));
    else if (cls) {
      const template = isPlainObject(cls.template) ? cls.template : {};
      children.push(objectNode(cls, [], typeof template.kind === 'string' ? `provisions ${template.kind}` : undefined));
    } else children.push(missingNode(`ResourceClass/${status.classRef.name}`, ns, 'not found (deleted since it provisioned the resource)'));
  }
  const ref = isPlainObject(status.resourceRef) ? (status.resourceRef as ClaimRefLike & { namespace?: string }) : undefined;
  if (ref?.apiVersion && ref.kind && ref.name) {
    const label = `${ref.kind}/${ref.name}`;
    const rref = await lookup(ref.apiVersion, ref.kind);
    const resource = rref ? await getOrUndefined(client, rref, ref.name, ref.namespace) : undefined;
    if (isUnreadable(resource)) children.push(missingNode(label, ref.namespace, resource.unreadable));
    else if (!resource) children.push(missingNode(label, ref.namespace, 'not found'));
    else if (!recordsClaim(resource, claim))
      children.push(missingNode(label, ref.namespace, 'does not record this claim (the claim’s status is not believed)'));
    else children.push(objectNode(resource, await resourceChildren(client, resource)));
  }
  if (isPlainObject(status.connectionSecretRef) && typeof status.connectionSecretRef.name === 'string') {
    const name = status.connectionSecretRef.name;
    const secret = await getOrUndefined(client, builtinRefs.secrets, name, claim.metadata.namespace);
    children.push(
      isUnreadable(secret)
        ? missingNode(`Secret/${name}`, claim.metadata.namespace, secret.unreadable)
        : secret
          ? {
              ...objectNode(
                secret,
                [],
                `keys: ${Object.keys(isPlainObject(secret.data) ? secret.data : {})
                  .sort()
                  .join(', ')}`,
              ),
              ready: '-',
            }
          : missingNode(`Secret/${name}`, claim.metadata.namespace, 'not found'),
    );
  }
  return objectNode(claim, children);
}

/** traceResource: a concrete resource, its Provider and external object, and the claims its own record binds. */
export async function traceResource(client: TraceReader, resource: KObject, lookup: RefLookup): Promise<TraceNode> {
  const children = await resourceChildren(client, resource);
  for (const c of claimsRecorded(resource)) {
    const label = `${c.kind ?? 'Claim'}/${c.name ?? '?'}`;
    const rref = c.apiVersion && c.kind ? await lookup(c.apiVersion, c.kind) : undefined;
    const claim = rref && c.name ? await getOrUndefined(client, rref, c.name, c.namespace) : undefined;
    if (isUnreadable(claim)) children.push(missingNode(label, c.namespace, claim.unreadable));
    else if (!claim || claim.metadata.uid !== c.uid) children.push(missingNode(label, c.namespace, 'not found (the claim is gone)'));
    else children.push(objectNode(claim));
  }
  return objectNode(resource, children);
}
