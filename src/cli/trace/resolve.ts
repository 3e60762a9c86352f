/**
 * Resolving what `conductor trace` is asked for, the way kubectl resolves a resource argument:
 * `<type>/<name>` where the type is a kind, plural, singular or short name, optionally
 * qualified by its group (`postgresqlinstance.storage.conductor.io/orders-db`). The served
 * types come from discovery (`/api/v1`, `/apis`, each group's preferred version).
 */
import type { ApiResource, HttpClient } from '../../client/http-client.js';
import type { ResourceRef } from '../../client/types.js';

/** A served type: its ResourceRef and categories (`claim`, `managed`). */
export interface ServedType {
  readonly ref: ResourceRef;
  readonly categories: readonly string[];
}

/** A TraceArgumentError is an argument that names no served type, or is not `<type>/<name>`. */
export class TraceArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceArgumentError';
  }
}

interface GroupList {
  groups?: { name: string; preferredVersion?: { version: string }; versions?: { version: string }[] }[];
}

/** parseTarget splits `<type>/<name>`. */
export function parseTarget(arg: string): { type: string; name: string } {
  const slash = arg.indexOf('/');
  if (slash <= 0 || slash === arg.length - 1 || arg.indexOf('/', slash + 1) !== -1) {
    throw new TraceArgumentError(`expected <type>/<name>, e.g. postgresqlinstance/orders-db, got ${JSON.stringify(arg)}`);
  }
  return { type: arg.slice(0, slash), name: arg.slice(slash + 1) };
}

/** Whether a resource of discovery answers to `type` (lower case, no group). */
function answersTo(r: ApiResource, type: string): boolean {
  if (r.name.includes('/')) return false;
  const singular = (r as ApiResource & { singularName?: string }).singularName;
  return r.name === type || r.kind.toLowerCase() === type || singular === type || (r.shortNames ?? []).includes(type);
}

/** resolveType finds the served type `type` names (`kind`, `plural`, `kind.group`, …). */
export async function resolveType(client: HttpClient, type: string): Promise<ServedType> {
  const lower = type.toLowerCase();
  const dot = lower.indexOf('.');
  const bare = dot === -1 ? lower : lower.slice(0, dot);
  const group = dot === -1 ? undefined : lower.slice(dot + 1);
  const groups = await client.request<GroupList>('GET', '/apis');
  const versions: { group: string; version: string }[] = [{ group: '', version: 'v1' }];
  for (const g of groups.groups ?? []) {
    const v = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    if (v) versions.push({ group: g.name, version: v });
  }
  const found: ServedType[] = [];
  for (const gv of versions) {
    if (group !== undefined && gv.group !== group) continue;
    for (const r of await client.resources(gv.group, gv.version)) {
      if (!answersTo(r, bare)) continue;
      found.push({ ref: { group: gv.group, version: gv.version, resource: r.name, namespaced: r.namespaced, kind: r.kind }, categories: r.categories ?? [] });
    }
  }
  if (found.length === 0) throw new TraceArgumentError(`the server doesn't have a resource type ${JSON.stringify(type)}`);
  if (found.length > 1) {
    const names = found.map((f) => `${f.ref.resource}.${f.ref.group || 'core'}`).join(', ');
    throw new TraceArgumentError(
      `${JSON.stringify(type)} is ambiguous: it names ${names}; qualify it with its group (e.g. ${found[0].ref.resource}.${found[0].ref.group})`,
    );
  }
  return found[0];
}
