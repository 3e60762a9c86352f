/**
 * The REST operations of a resource type, described independently of the OpenAPI version
 * so the v2 and v3 builders render the same set: paths, methods, actions, parameters,
 * request bodies and responses.
 */
import type { ResourceType } from '../registry/resource-type.js';
import { metaName, operationIdOf, schemaName, tagOf } from './names.js';
import { pathParam, QUERY, type ParamSpec, type QueryName } from './parameters.js';
import { subresourcesOf } from './served-set.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** An OperationSpec is one HTTP operation on one path. */
export interface OperationSpec {
  method: HttpMethod;
  /** The `x-kubernetes-action` value: get, list, post, put, patch, delete, deletecollection. */
  action: string;
  operationId: string;
  description: string;
  tag: string;
  gvk: { group: string; version: string; kind: string };
  query: ParamSpec[];
  /** The request body: a schema name and the content types it may be sent as. */
  body?: { schema: string; contentTypes: string[] };
  /** Responses by status code: the schema name of the body, if any. */
  responses: Record<string, { description: string; schema?: string }>;
}

/** A PathSpec is a path with its path-level parameters and operations. */
export interface PathSpec {
  path: string;
  params: ParamSpec[];
  operations: OperationSpec[];
}

const LIST_QUERY: QueryName[] = ['continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch'];
const WATCH_QUERY: QueryName[] = ['allowWatchBookmarks', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const WRITE_QUERY: QueryName[] = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE_QUERY: QueryName[] = ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy'];

function queryOf(names: QueryName[]): ParamSpec[] {
  return [...new Set(names)].sort().map((n) => QUERY[n]);
}

/** patchContentTypes lists the patch formats a kind accepts: strategic merge only for built-ins. */
export function patchContentTypes(rt: ResourceType): string[] {
  return rt.source.type === 'builtin'
    ? [PATCH_TYPES.apply, PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.strategic]
    : [PATCH_TYPES.apply, PATCH_TYPES.json, PATCH_TYPES.merge];
}

/** basePath is where a group-version's resources live: `/api/v1` or `/apis/<group>/<version>`. */
export function basePath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** pathsOf describes every path and operation a resource type serves, per its verbs. */
export function pathsOf(rt: ResourceType): PathSpec[] {
  const verbs = new Set(rt.verbs);
  const kindName = schemaName(rt, rt.kind);
  const listName = schemaName(rt, rt.listKind);
  const statusName = metaName('Status');
  const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
  const tag = tagOf(rt.group, rt.version);
  const ns = rt.namespaced;
  const base = basePath(rt.group, rt.version);
  const collection = ns ? `${base}/namespaces/{namespace}/${rt.resource}` : `${base}/${rt.resource}`;
  const item = `${collection}/{name}`;
  const pretty = QUERY.pretty;
  const nsParams = ns ? [pathParam('namespace', rt.kind)] : [];
  const nameParams = [pathParam('name', rt.kind), ...nsParams];
  const op = (o: Omit<OperationSpec, 'tag' | 'gvk'>): OperationSpec => ({ ...o, tag, gvk });
  const listQuery = queryOf(verbs.has('watch') ? [...LIST_QUERY, ...WATCH_QUERY] : [...LIST_QUERY, 'timeoutSeconds']);
  const ok = (schema: string) => ({ description: 'OK', schema });
  const unauthorized = { description: 'Unauthorized' };
  const patchTypes = patchContentTypes(rt);

  const out: PathSpec[] = [];

  // The collection: list, create, deletecollection.
  const collectionOps: OperationSpec[] = [];
  if (verbs.has('list')) {
    collectionOps.push(
      op({
        method: 'get',
        action: 'list',
        operationId: operationIdOf('list', rt, { namespaced: ns }),
        description: `list or watch objects of kind ${rt.kind}`,
        query: listQuery,
        responses: { '200': ok(listName), '401': unauthorized },
      }),
    );
  }
  if (verbs.has('create')) {
    collectionOps.push(
      op({
        method: 'post',
        action: 'post',
        operationId: operationIdOf('create', rt, { namespaced: ns }),
        description: `create a ${rt.kind}`,
        query: queryOf(WRITE_QUERY),
        body: { schema: kindName, contentTypes: ['*/*'] },
        responses: {
          '200': ok(kindName),
          '201': { description: 'Created', schema: kindName },
          '202': { description: 'Accepted', schema: kindName },
          '401': unauthorized,
        },
      }),
    );
  }
  if (verbs.has('deletecollection')) {
    collectionOps.push(
      op({
        method: 'delete',
        action: 'deletecollection',
        operationId: operationIdOf('deleteCollection', rt, { namespaced: ns }),
        description: `delete a collection of ${rt.kind}`,
        query: queryOf([...LIST_QUERY, ...DELETE_QUERY, 'sendInitialEvents', 'timeoutSeconds']),
        body: { schema: metaName('DeleteOptions'), contentTypes: ['*/*'] },
        responses: { '200': ok(statusName), '401': unauthorized },
      }),
    );
  }
  if (collectionOps.length > 0) out.push({ path: collection, params: [...nsParams, pretty], operations: collectionOps });

  // Namespaced kinds can also be listed across all namespaces.
  if (ns && verbs.has('list')) {
    out.push({
      path: `${base}/${rt.resource}`,
      params: [pretty],
      operations: [
        op({
          method: 'get',
          action: 'list',
          operationId: operationIdOf('list', rt, { namespaced: false, allNamespaces: true }),
          description: `list or watch objects of kind ${rt.kind} in every namespace`,
          query: listQuery,
          responses: { '200': ok(listName), '401': unauthorized },
        }),
      ],
    });
  }

  // The object: read, replace, patch, delete.
  const itemOps: OperationSpec[] = [];
  if (verbs.has('get')) {
    itemOps.push(
      op({
        method: 'get',
        action: 'get',
        operationId: operationIdOf('read', rt, { namespaced: ns }),
        description: `read the specified ${rt.kind}`,
        query: queryOf(['resourceVersion']),
        responses: { '200': ok(kindName), '401': unauthorized },
      }),
    );
  }
  if (verbs.has('update')) {
    itemOps.push(
      op({
        method: 'put',
        action: 'put',
        operationId: operationIdOf('replace', rt, { namespaced: ns }),
        description: `replace the specified ${rt.kind}`,
        query: queryOf(WRITE_QUERY),
        body: { schema: kindName, contentTypes: ['*/*'] },
        responses: { '200': ok(kindName), '201': { description: 'Created', schema: kindName }, '401': unauthorized },
      }),
    );
  }
  if (verbs.has('patch')) {
    itemOps.push(
      op({
        method: 'patch',
        action: 'patch',
        operationId: operationIdOf('patch', rt, { namespaced: ns }),
        description: `partially update the specified ${rt.kind}`,
        query: queryOf([...WRITE_QUERY, 'force']),
        body: { schema: metaName('Patch'), contentTypes: patchTypes },
        responses: { '200': ok(kindName), '201': { description: 'Created', schema: kindName }, '401': unauthorized },
      }),
    );
  }
  if (verbs.has('delete')) {
    itemOps.push(
      op({
        method: 'delete',
        action: 'delete',
        operationId: operationIdOf('delete', rt, { namespaced: ns }),
        description: `delete the specified ${rt.kind}`,
        query: queryOf(DELETE_QUERY),
        body: { schema: metaName('DeleteOptions'), contentTypes: ['*/*'] },
        responses: { '200': ok(statusName), '202': { description: 'Accepted', schema: statusName }, '401': unauthorized },
      }),
    );
  }
  if (itemOps.length > 0) out.push({ path: item, params: [...nameParams, pretty], operations: itemOps });

  // Subresources: status (get, put, patch) and the extras such as namespaces/finalize.
  for (const sub of subresourcesOf(rt)) {
    const subVerbs = new Set(sub.verbs);
    const subName = schemaName(rt, sub.kind);
    const subOpts = { namespaced: ns, subresource: sub.name };
    const subOps: OperationSpec[] = [];
    if (subVerbs.has('get')) {
      subOps.push(
        op({
          method: 'get',
          action: 'get',
          operationId: operationIdOf('read', rt, subOpts),
          description: `read ${sub.name} of the specified ${rt.kind}`,
          query: queryOf(['resourceVersion']),
          responses: { '200': ok(subName), '401': unauthorized },
        }),
      );
    }
    if (subVerbs.has('update')) {
      subOps.push(
        op({
          method: 'put',
          action: 'put',
          operationId: operationIdOf('replace', rt, subOpts),
          description: `replace ${sub.name} of the specified ${rt.kind}`,
          query: queryOf(WRITE_QUERY),
          body: { schema: subName, contentTypes: ['*/*'] },
          responses: { '200': ok(subName), '201': { description: 'Created', schema: subName }, '401': unauthorized },
        }),
      );
    }
    if (subVerbs.has('patch')) {
      subOps.push(
        op({
          method: 'patch',
          action: 'patch',
          operationId: operationIdOf('patch', rt, subOpts),
          description: `partially update ${sub.name} of the specified ${rt.kind}`,
          query: queryOf([...WRITE_QUERY, 'force']),
          body: { schema: metaName('Patch'), contentTypes: patchTypes },
          responses: { '200': ok(subName), '201': { description: 'Created', schema: subName }, '401': unauthorized },
        }),
      );
    }
    if (subOps.length > 0) out.push({ path: `${item}/${sub.name}`, params: [...nameParams, pretty], operations: subOps });
  }
  return out;
}
