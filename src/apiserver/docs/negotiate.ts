/**
 * Content negotiation for the discovery and OpenAPI endpoints: which representation a
 * client's Accept header asks for, and the Content-Type to answer with.
 */

export const JSON_CONTENT_TYPE = 'application/json';
/** The Content-Type of an aggregated discovery answer (apidiscovery.k8s.io/v2). */
export const DISCOVERY_V2_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
/** The Content-Type of an aggregated discovery answer in the older v2beta1 form. */
export const DISCOVERY_V2BETA1_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
/**
 * The protobuf form of /openapi/v2 (gnostic's `openapi.v2.Document`): the Content-Type it is
 * answered with. Clients ask for it under this name or the older
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (what client-go sends).
 */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_SUBTYPES = ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf'];

export type OpenApiV2Format = 'json' | 'protobuf';

/**
 * negotiateOpenApiV2 picks the form of `/openapi/v2` for an Accept header, as Kubernetes
 * does: the first clause (by preference) that names JSON, either protobuf name, or a
 * wildcard wins, JSON first for a wildcard; an empty header means any. Parameters of a
 * clause are not looked at. Undefined means nothing acceptable (answer 406).
 */
export function negotiateOpenApiV2(accept: string | undefined): OpenApiV2Format | undefined {
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    if (range.type !== 'application' && range.type !== '*') continue;
    if (range.subtype === '*' || range.subtype === 'json') return 'json';
    if (OPENAPI_V2_PROTOBUF_SUBTYPES.includes(range.subtype)) return 'protobuf';
  }
  return undefined;
}

export type DiscoveryFormat = 'v2' | 'v2beta1' | 'legacy';

/** discoveryContentType gives the Content-Type for a discovery answer in `format`. */
export function discoveryContentType(format: DiscoveryFormat): string {
  switch (format) {
    case 'v2':
      return DISCOVERY_V2_CONTENT_TYPE;
    case 'v2beta1':
      return DISCOVERY_V2BETA1_CONTENT_TYPE;
    case 'legacy':
      return JSON_CONTENT_TYPE;
    default: {
      const never: never = format;
      throw new Error(`unknown discovery format ${String(never)}: expected v2, v2beta1 or legacy`);
    }
  }
}

/** A MediaRange is one clause of an Accept header. */
export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

/**
 * parseAccept splits an Accept header into media ranges ordered by preference (highest q
 * first; equal q keep the client's order). Malformed clauses are skipped; an empty header
 * means `*\/*`.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  const text = (header ?? '').trim();
  if (text === '') return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const out: { range: MediaRange; index: number }[] = [];
  const clauses = text.split(',');
  for (let index = 0; index < clauses.length; index++) {
    const parts = clauses[index].split(';');
    const mediaType = parts[0].trim().toLowerCase();
    const slash = mediaType.indexOf('/');
    if (slash <= 0 || slash === mediaType.length - 1) continue;
    const type = mediaType.slice(0, slash);
    const subtype = mediaType.slice(slash + 1);
    const params: Record<string, string> = {};
    let q = 1;
    for (const raw of parts.slice(1)) {
      const eq = raw.indexOf('=');
      if (eq < 0) continue;
      const key = raw.slice(0, eq).trim().toLowerCase();
      let value = raw.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (key === 'q') {
        const n = Number(value);
        q = Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
      } else if (key) {
        params[key] = value;
      }
    }
    out.push({ range: { type, subtype, params, q }, index });
  }
  out.sort((a, b) => b.range.q - a.range.q || a.index - b.index);
  return out.map((x) => x.range);
}

function matchesJson(range: MediaRange): boolean {
  return (range.type === 'application' || range.type === '*') && (range.subtype === 'json' || range.subtype === '*');
}

/**
 * negotiateDiscovery picks the representation of `/api` and `/apis` for an Accept header:
 * aggregated discovery (v2, or v2beta1 for older clients) when the client lists it, else the
 * legacy APIVersions / APIGroupList. client-go sends
 * `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`.
 * Clauses naming a representation Conductor cannot produce (protobuf, another `as`, an
 * unknown profile) are passed over; when nothing matches, the legacy form is chosen.
 */
export function negotiateDiscovery(accept: string): DiscoveryFormat {
  for (const range of parseAccept(accept)) {
    if (range.q <= 0 || !matchesJson(range)) continue;
    const { g, v, as, profile } = range.params;
    if (profile !== undefined && profile !== 'nopeer') continue;
    if (g === undefined && v === undefined && as === undefined) return 'legacy';
    if (g !== 'apidiscovery.k8s.io' || as !== 'APIGroupDiscoveryList') continue;
    if (v === 'v2') return 'v2';
    if (v === 'v2beta1') return 'v2beta1';
  }
  return 'legacy';
}

/**
 * acceptsJson tells whether an Accept header admits a plain JSON answer (one without `as`
 * or `g` parameters asking for another kind).
 */
export function acceptsJson(accept: string | undefined): boolean {
  for (const range of parseAccept(accept)) {
    if (range.q <= 0 || !matchesJson(range)) continue;
    if (range.params.as !== undefined || range.params.g !== undefined) continue;
    return true;
  }
  return false;
}

/**
 * etagMatches tells whether an If-None-Match header names the entity tag `"<hash>"` (a list
 * of tags, weak `W/` tags compared as strong ones, or `*`), so the answer is 304 Not Modified.
 */
export function etagMatches(ifNoneMatch: string | string[] | undefined, hash: string): boolean {
  const header = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : (ifNoneMatch ?? '');
  for (const raw of header.split(',')) {
    const tag = raw.trim().replace(/^W\//, '');
    if (tag === '*' || tag === `"${hash}"`) return true;
  }
  return false;
}
