/**
 * An ApiDocuments builds the discovery, version and OpenAPI documents of the served
 * resource types on first use and keeps them until `invalidate()` (called whenever the
 * served set changes, e.g. a CRD is added or removed). Returned documents are shared:
 * callers must not modify them.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../registry/resource-type.js';
import {
  buildAggregated,
  buildApiGroup,
  buildApiGroupList,
  buildApiResourceList,
  buildApiVersions,
  type APIGroup,
  type APIGroupDiscoveryList,
  type APIGroupList,
  type APIResourceList,
  type APIVersions,
} from './discovery.js';
import type { SchemaObject } from './meta-schemas.js';
import { buildOpenApiV2 } from './openapi-v2.js';
import { encodeOpenApiV2 } from './openapi-v2-protobuf.js';
import { buildOpenApiV3, openApiV3PathOf } from './openapi-v3.js';
import { buildServedSet, type ServedSet } from './served-set.js';
import { buildVersionInfo, type VersionInfo } from './version-info.js';

/**
 * A Serialized document: the object, its JSON text and a hash of that text (upper-case hex
 * SHA-512, as Kubernetes computes the ETags and `?hash=` of its OpenAPI documents).
 */
export interface Serialized<T = SchemaObject> {
  body: T;
  json: string;
  hash: string;
}

export interface ApiDocumentsOptions {
  /** The host:port clients reach this server at, for APIVersions.serverAddressByClientCIDRs. */
  serverAddress: () => string;
  /** The version to report, e.g. `conductorGitVersion('0.1.0')` = `v1.32.0+conductor.0.1.0`. */
  gitVersion: string;
  gitCommit?: string;
  buildDate?: string;
}

/** The OpenAPI v3 index (`/openapi/v3`). */
export interface OpenApiV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

/** The `/openapi/v2` document as gnostic's `openapi.v2.Document` protobuf message. */
export interface OpenApiV2Protobuf {
  bytes: Buffer;
  /** The hash of the JSON document: Kubernetes gives both forms the same ETag. */
  hash: string;
}

/** How to answer a request for one OpenAPI v3 group-version document. */
export type OpenApiV3Answer =
  /** Serve `json`; `immutable` when the request named the current hash (cache it for good). */
  | { status: 200; json: string; hash: string; immutable: boolean }
  /** The request named an outdated hash: redirect to the current document. */
  | { status: 301; location: string }
  | { status: 404 };

interface Cache {
  types: ResourceType[];
  set: ServedSet;
  apiGroupList?: APIGroupList;
  apiGroups: Map<string, APIGroup | undefined>;
  resourceLists: Map<string, APIResourceList | undefined>;
  aggregated: Map<string, Serialized<APIGroupDiscoveryList>>;
  v2?: Serialized;
  v2Protobuf?: OpenApiV2Protobuf;
  v3: Map<string, Serialized>;
  v3Index?: OpenApiV3Index;
}

function serialize<T>(body: T): Serialized<T> {
  const json = JSON.stringify(body);
  return { body, json, hash: createHash('sha512').update(json).digest('hex').toUpperCase() };
}

/** normalizeV3Path turns `/api/v1/`, `api/v1` and the like into the index key `api/v1`. */
function normalizeV3Path(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

export class ApiDocuments {
  readonly #types: () => ResourceType[];
  readonly #opts: ApiDocumentsOptions;
  readonly #version: VersionInfo;
  #cache: Cache | undefined;

  /** `types` is called whenever the served set changes (CRDs added/removed); call `invalidate()` then. */
  constructor(types: () => ResourceType[], opts: ApiDocumentsOptions) {
    this.#types = types;
    this.#opts = opts;
    this.#version = buildVersionInfo(opts);
  }

  /** invalidate drops every cached document; the next request rebuilds from `types()`. */
  invalidate(): void {
    this.#cache = undefined;
  }

  #state(): Cache {
    if (!this.#cache) {
      const types = [...this.#types()];
      this.#cache = {
        types,
        set: buildServedSet(types),
        apiGroups: new Map(),
        resourceLists: new Map(),
        aggregated: new Map(),
        v3: new Map(),
      };
    }
    return this.#cache;
  }

  /** version is the `/version` answer. */
  version(): VersionInfo {
    return this.#version;
  }

  /** apiVersions is the legacy `/api` answer (APIVersions). */
  apiVersions(): APIVersions {
    return buildApiVersions(this.#state().set, this.#opts.serverAddress());
  }

  /** apiGroupList is the legacy `/apis` answer (APIGroupList). */
  apiGroupList(): APIGroupList {
    const c = this.#state();
    return (c.apiGroupList ??= buildApiGroupList(c.set));
  }

  /** apiGroup is the `/apis/<group>` answer, or undefined when the group is not served. */
  apiGroup(group: string): APIGroup | undefined {
    const c = this.#state();
    if (!c.apiGroups.has(group)) c.apiGroups.set(group, buildApiGroup(c.set, group));
    return c.apiGroups.get(group);
  }

  /** apiResourceList is the `/api/v1` or `/apis/<group>/<version>` answer, or undefined when not served. */
  apiResourceList(group: string, version: string): APIResourceList | undefined {
    const c = this.#state();
    const key = `${group}/${version}`;
    if (!c.resourceLists.has(key)) c.resourceLists.set(key, buildApiResourceList(c.set, c.types, group, version));
    return c.resourceLists.get(key);
  }

  /** aggregatedSerialized is the aggregated discovery answer with its JSON text and hash (for an ETag). */
  aggregatedSerialized(which: 'api' | 'apis', version: 'v2' | 'v2beta1'): Serialized<APIGroupDiscoveryList> {
    const c = this.#state();
    const key = `${which}/${version}`;
    let doc = c.aggregated.get(key);
    if (!doc) c.aggregated.set(key, (doc = serialize(buildAggregated(c.set, which, version))));
    return doc;
  }

  /** aggregated is the APIGroupDiscoveryList for `/api` or `/apis`. */
  aggregated(which: 'api' | 'apis', version: 'v2' | 'v2beta1'): APIGroupDiscoveryList {
    return this.aggregatedSerialized(which, version).body;
  }

  /** openApiV2Serialized is the `/openapi/v2` document with its JSON text and hash (for an ETag). */
  openApiV2Serialized(): Serialized {
    const c = this.#state();
    return (c.v2 ??= serialize(buildOpenApiV2(c.set, this.#version.gitVersion)));
  }

  /**
   * openApiV2Protobuf is the `/openapi/v2` document as a gnostic `openapi.v2.Document`
   * (what client-go asks for), encoded from the JSON document on first use.
   */
  openApiV2Protobuf(): OpenApiV2Protobuf {
    const c = this.#state();
    if (!c.v2Protobuf) {
      const doc = this.openApiV2Serialized();
      c.v2Protobuf = { bytes: Buffer.from(encodeOpenApiV2(doc.body).bytes), hash: doc.hash };
    }
    return c.v2Protobuf;
  }

  /** openApiV2 is the `/openapi/v2` document (Swagger 2.0, JSON). */
  openApiV2(): SchemaObject {
    return this.openApiV2Serialized().body;
  }

  /** openApiV3 is the document of one group-version (`api/v1`, `apis/<group>/<version>`), or undefined. */
  openApiV3(groupVersionPath: string): Serialized | undefined {
    const c = this.#state();
    const path = normalizeV3Path(groupVersionPath);
    const cached = c.v3.get(path);
    if (cached) return cached;
    const m = /^(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (!m) return undefined;
    const group = m[1] !== undefined ? '' : m[2];
    const version = m[1] ?? m[3];
    const gv = c.set.byGroupVersion.get(group ? `${group}/${version}` : version);
    if (!gv || gv.group !== group) return undefined;
    const doc = serialize(buildOpenApiV3(gv, this.#version.gitVersion));
    c.v3.set(path, doc);
    return doc;
  }

  /** openApiV3Index is the `/openapi/v3` answer: every group-version with its hashed URL. */
  openApiV3Index(): OpenApiV3Index {
    const c = this.#state();
    if (!c.v3Index) {
      const keys: string[] = [];
      if (c.set.core) for (const v of c.set.core.versions) keys.push(openApiV3PathOf('', v.version));
      for (const g of c.set.groups) for (const v of g.versions) keys.push(openApiV3PathOf(g.name, v.version));
      keys.sort();
      const paths: OpenApiV3Index['paths'] = {};
      for (const key of keys) {
        const doc = this.openApiV3(key)!;
        paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      }
      c.v3Index = { paths };
    }
    return c.v3Index;
  }

  /**
   * openApiV3Answer says how to answer `GET /openapi/v3/<path>[?hash=<hash>]`: the document
   * (cacheable for good when the hash matched), a 301 to the current URL when the hash is
   * outdated, as Kubernetes does, or 404.
   */
  openApiV3Answer(groupVersionPath: string, hash: string | undefined): OpenApiV3Answer {
    const doc = this.openApiV3(groupVersionPath);
    if (!doc) return { status: 404 };
    if (hash !== undefined && hash !== '' && hash !== doc.hash) {
      return { status: 301, location: `/openapi/v3/${normalizeV3Path(groupVersionPath)}?hash=${doc.hash}` };
    }
    return { status: 200, json: doc.json, hash: doc.hash, immutable: hash !== undefined && hash !== '' };
  }
}
