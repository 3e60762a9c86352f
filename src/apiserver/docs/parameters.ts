/**
 * The request parameters the REST operations accept, described once and rendered into
 * OpenAPI v2 and v3 parameter objects.
 */

/** A ParamSpec describes one path or query parameter. */
export interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

const q = (name: string, type: ParamSpec['type'], description: string): ParamSpec => ({
  name,
  in: 'query',
  type,
  description,
});

/** QUERY describes every query parameter by name. */
export const QUERY = {
  allowWatchBookmarks: q(
    'allowWatchBookmarks',
    'boolean',
    'With watch, ask for BOOKMARK events that carry only a newer resourceVersion, so a watch can resume cheaply.',
  ),
  continue: q('continue', 'string', 'The token from the previous page of a list, to fetch the next page. Expires with compaction (410 Gone).'),
  dryRun: q('dryRun', 'string', 'When "All", the request is validated and admitted but not persisted. No other value is accepted.'),
  fieldManager: q(
    'fieldManager',
    'string',
    'The name of the actor making the change, recorded in managedFields. Required for apply patches; at most 128 printable characters.',
  ),
  fieldSelector: q('fieldSelector', 'string', 'Only return objects whose fields match, e.g. metadata.name=x. Defaults to everything.'),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'What to do with unknown or duplicate fields in the body: "Ignore" drops them silently, "Warn" drops them ' +
      'and returns a warning header per field, "Strict" fails the request naming them. Defaults to Warn.',
  ),
  force: q('force', 'boolean', 'For apply patches only: take ownership of fields other managers own instead of failing with a conflict.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'Seconds before the object is removed. 0 means at once; unset uses the default of the kind.'),
  ignoreStoreReadErrorWithClusterBreakingPotential: q(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Delete an object whose stored data cannot be read or decoded. Dangerous: skips finalizers and admission.',
  ),
  labelSelector: q('labelSelector', 'string', 'Only return objects whose labels match, e.g. app=web,tier!=cache. Defaults to everything.'),
  limit: q('limit', 'integer', 'The most items to return in one page. When more exist, metadata.continue is set to fetch the rest.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. When true, dependents are left in place.'),
  pretty: q('pretty', 'string', 'When "true", the output is indented.'),
  propagationPolicy: q('propagationPolicy', 'string', 'How dependents are garbage-collected: "Orphan", "Background" or "Foreground".'),
  resourceVersion: q(
    'resourceVersion',
    'string',
    'Constrains which version of the data a read may serve; with watch, the revision to start after. See the resource version semantics of the API.',
  ),
  resourceVersionMatch: q(
    'resourceVersionMatch',
    'string',
    'How resourceVersion applies to a list: "NotOlderThan" or "Exact". Only valid with resourceVersion set.',
  ),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'With watch, start with synthetic ADDED events for the current state, then a bookmark marking its end.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Ends a list or watch call after this many seconds.'),
  watch: q('watch', 'boolean', 'Watch for changes to the described objects and stream them as events, instead of listing them.'),
} satisfies Record<string, ParamSpec>;

export type QueryName = keyof typeof QUERY;

/** pathParam describes the `name` or `namespace` path parameter of an operation. */
export function pathParam(name: 'name' | 'namespace', kind: string): ParamSpec {
  return {
    name,
    in: 'path',
    type: 'string',
    required: true,
    description: name === 'name' ? `The name of the ${kind}.` : 'The namespace of the objects; an object name scope.',
  };
}
