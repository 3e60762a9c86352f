/**
 * Parses request paths of the Kubernetes REST protocol into what they name: a resource
 * request (group, version, namespace, resource, name, subresource) or a non-resource path.
 */

export interface ResourcePath {
  type: 'resource';
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string;
  /** The legacy `/watch/` path prefix was used. */
  watchPrefix: boolean;
}

export type ParsedPath =
  | ResourcePath
  | { type: 'api-versions' } // /api
  | { type: 'api-groups' } // /apis
  | { type: 'api-group'; group: string } // /apis/<group>
  | { type: 'resource-list'; group: string; version: string } // /api/v1, /apis/<g>/<v>
  | { type: 'other'; path: string };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parsePath(pathname: string): ParsedPath {
  const parts = pathname.split('/').filter((p) => p !== '');
  for (const p of parts) {
    if (p === '.' || p === '..') return { type: 'other', path: pathname };
  }
  if (parts[0] === 'api') {
    if (parts.length === 1) return { type: 'api-versions' };
    return resourceParts('', parts[1], parts.slice(2));
  }
  if (parts[0] === 'apis') {
    if (parts.length === 1) return { type: 'api-groups' };
    if (parts.length === 2) return { type: 'api-group', group: parts[1] };
    return resourceParts(parts[1], parts[2], parts.slice(3));
  }
  return { type: 'other', path: pathname };
}

function resourceParts(group: string, version: string, rest: string[]): ParsedPath {
  if (rest.length === 0) return { type: 'resource-list', group, version };
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
    if (rest.length === 0) return { type: 'other', path: '' };
  }
  const base = { type: 'resource' as const, group, version, watchPrefix };
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2]))) {
    const [, namespace, resource, name, subresource, ...extra] = rest;
    if (extra.length > 0) return { type: 'other', path: rest.join('/') };
    return { ...base, namespace, resource: resource, name, subresource: subresource ?? '' };
  }
  const [resource, name, subresource, ...extra] = rest;
  if (extra.length > 0) return { type: 'other', path: rest.join('/') };
  return { ...base, namespace: undefined, resource: resource, name, subresource: subresource ?? '' };
}
