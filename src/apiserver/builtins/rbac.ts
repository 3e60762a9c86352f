/**
 * The rbac.authorization.k8s.io/v1 kinds: Role and ClusterRole (lists of policy rules) and
 * RoleBinding and ClusterRoleBinding (grant a role to users, groups and ServiceAccounts).
 * Validation follows Kubernetes: every rule names verbs; resource rules name API groups and
 * resources; non-resource URLs only in ClusterRoles and never mixed with resources;
 * subjects are User, Group or ServiceAccount; a binding's roleRef never changes.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { JSONSchemaProps, ResourceType, Strategy, ValidationContext } from '../registry/resource-type.js';
import { child, index, invalid, notSupported, required } from './field-errors.js';
import { resourceSchema } from './object-meta-schema.js';
import { arr, atomicStringList, obj, str } from './schema-builders.js';
import { timestampAge } from './table.js';
import { verbsFor } from './verbs.js';

/** The API group of the RBAC kinds. */
export const rbacGroup = 'rbac.authorization.k8s.io';

/** The subject kinds a binding may name. */
export const subjectKinds = ['ServiceAccount', 'User', 'Group'] as const;

function policyRuleSchema(): JSONSchemaProps {
  return obj(
    'A PolicyRule grants verbs on resources of API groups (optionally only some named objects), or on non-resource URLs.',
    {
      verbs: atomicStringList('The verbs granted, e.g. get, list, create; "*" is every verb.', 'A verb.'),
      apiGroups: atomicStringList('The API groups of the resources; "" is the core group and "*" every group.', 'An API group.'),
      resources: atomicStringList(
        'The resources, e.g. secrets, "pods/log" for a subresource, "*/status" for a subresource of every resource, "*" for all.',
        'A resource.',
      ),
      resourceNames: atomicStringList('When set, only the objects with these names.', 'An object name.'),
      nonResourceURLs: atomicStringList('Non-resource URL paths such as /healthz; a trailing "*" matches any suffix. Only in ClusterRoles.', 'A URL path.'),
    },
    { required: ['verbs'] },
  );
}

function rulesSchema(): JSONSchemaProps {
  return arr('The rules of the role.', policyRuleSchema(), { 'x-kubernetes-list-type': 'atomic' });
}

function labelSelectorSchema(): JSONSchemaProps {
  return obj('A label selector.', {
    matchLabels: { type: 'object', description: 'Labels that must all match.', additionalProperties: { type: 'string' } },
    matchExpressions: arr(
      'Label requirements that must all match.',
      obj(
        'A label requirement.',
        {
          key: str('The label key.'),
          operator: str('In, NotIn, Exists or DoesNotExist.'),
          values: atomicStringList('The values for In and NotIn.', 'A value.'),
        },
        { required: ['key', 'operator'] },
      ),
    ),
  });
}

function subjectSchema(): JSONSchemaProps {
  return obj(
    'A Subject is who a binding grants to: a User, a Group or a ServiceAccount.',
    {
      kind: str('User, Group or ServiceAccount.'),
      apiGroup: str('rbac.authorization.k8s.io for User and Group; "" for ServiceAccount.'),
      name: str('The name of the user, group or ServiceAccount.'),
      namespace: str("The namespace of a ServiceAccount; defaults to the binding's namespace in a RoleBinding."),
    },
    { required: ['kind', 'name'] },
  );
}

function roleRefSchema(): JSONSchemaProps {
  return obj(
    'The role granted. It cannot change after creation: delete and recreate the binding instead.',
    {
      apiGroup: str('rbac.authorization.k8s.io.'),
      kind: str('Role or ClusterRole (a ClusterRoleBinding may only refer to a ClusterRole).'),
      name: str('The name of the role.'),
    },
    { required: ['apiGroup', 'kind', 'name'], 'x-kubernetes-map-type': 'atomic' },
  );
}

function roleSchema(cluster: boolean): JSONSchemaProps {
  const props: Record<string, JSONSchemaProps> = { rules: rulesSchema() };
  if (cluster) {
    props.aggregationRule = obj('Selects ClusterRoles whose rules are aggregated into this one.', {
      clusterRoleSelectors: arr('Selectors of the ClusterRoles to aggregate.', labelSelectorSchema()),
    });
  }
  return resourceSchema(
    cluster
      ? 'A ClusterRole is a cluster-wide set of permissions, granted everywhere by a ClusterRoleBinding or in one namespace by a RoleBinding.'
      : 'A Role is a set of permissions within one namespace, granted by a RoleBinding.',
    props,
  );
}

function bindingSchema(cluster: boolean): JSONSchemaProps {
  return resourceSchema(
    cluster
      ? 'A ClusterRoleBinding grants a ClusterRole to subjects in every namespace and at the cluster scope.'
      : "A RoleBinding grants a Role or ClusterRole to subjects within the binding's namespace.",
    {
      subjects: arr('Who is granted the role.', subjectSchema(), { 'x-kubernetes-list-type': 'atomic' }),
      roleRef: roleRefSchema(),
    },
    ['roleRef'],
  );
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Causes for the rules of a Role (`cluster` false) or ClusterRole. */
export function validateRules(o: KObject, cluster: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(o.rules)) return causes;
  o.rules.forEach((r, i) => {
    if (!isPlainObject(r)) return;
    const p = index('rules', i);
    const urls = strings(r.nonResourceURLs);
    const groups = strings(r.apiGroups);
    const resources = strings(r.resources);
    if (strings(r.verbs).length === 0) causes.push(required(child(p, 'verbs'), 'verbs must contain at least one value'));
    if (urls.length > 0) {
      if (!cluster) {
        causes.push(invalid(child(p, 'nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'));
      } else if (groups.length > 0 || resources.length > 0 || strings(r.resourceNames).length > 0) {
        causes.push(invalid(child(p, 'nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      for (const [j, u] of urls.entries()) {
        if (u !== '*' && !u.startsWith('/')) causes.push(invalid(index(child(p, 'nonResourceURLs'), j), u, 'must be "*" or begin with "/"'));
      }
      return;
    }
    if (groups.length === 0) causes.push(required(child(p, 'apiGroups'), 'resource rules must supply at least one api group'));
    if (resources.length === 0) causes.push(required(child(p, 'resources'), 'resource rules must supply at least one resource'));
  });
  return causes;
}

const pathSegmentBad = /[/%]/;

/** Causes for a RoleBinding (`cluster` false) or ClusterRoleBinding. */
export function validateBinding(o: KObject, cluster: boolean, old?: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const ref = isPlainObject(o.roleRef) ? o.roleRef : undefined;
  if (!ref) {
    causes.push(required('roleRef', 'a binding must name the role it grants'));
  } else {
    const kinds = cluster ? ['ClusterRole'] : ['Role', 'ClusterRole'];
    if (ref.apiGroup !== rbacGroup) causes.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [rbacGroup]));
    if (typeof ref.kind !== 'string' || !kinds.includes(ref.kind)) causes.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
    if (typeof ref.name !== 'string' || ref.name === '') causes.push(required('roleRef.name'));
    else if (pathSegmentBad.test(ref.name) || ref.name === '.' || ref.name === '..') {
      causes.push(invalid('roleRef.name', ref.name, 'may not be "." or ".." and may not contain "/" or "%"'));
    }
  }
  if (old && JSON.stringify(old.roleRef) !== JSON.stringify(o.roleRef)) {
    causes.push(invalid('roleRef', o.roleRef ?? null, 'cannot change roleRef'));
  }
  if (Array.isArray(o.subjects)) {
    o.subjects.forEach((s, i) => {
      if (!isPlainObject(s)) return;
      const p = index('subjects', i);
      if (typeof s.name !== 'string' || s.name === '') causes.push(required(child(p, 'name')));
      switch (s.kind) {
        case 'ServiceAccount':
          if (s.apiGroup !== undefined && s.apiGroup !== '') causes.push(notSupported(child(p, 'apiGroup'), s.apiGroup, ['']));
          if (cluster && (typeof s.namespace !== 'string' || s.namespace === '')) causes.push(required(child(p, 'namespace')));
          break;
        case 'User':
        case 'Group':
          if (s.apiGroup !== rbacGroup) causes.push(notSupported(child(p, 'apiGroup'), s.apiGroup ?? '', [rbacGroup]));
          break;
        default:
          causes.push(notSupported(child(p, 'kind'), s.kind ?? '', subjectKinds));
      }
    });
  }
  return causes;
}

/** Fills the subject API group kubectl and client libraries leave out (User/Group). */
function defaultSubjects(o: KObject): void {
  if (!Array.isArray(o.subjects)) return;
  for (const s of o.subjects) {
    if (isPlainObject(s) && (s.kind === 'User' || s.kind === 'Group') && (s.apiGroup === undefined || s.apiGroup === '')) s.apiGroup = rbacGroup;
  }
}

function roleStrategy(cluster: boolean): Strategy {
  return { validate: (o) => validateRules(o, cluster), selectableFields: () => ({}) };
}

function bindingStrategy(cluster: boolean): Strategy {
  return {
    prepareForCreate: defaultSubjects,
    prepareForUpdate: (o) => defaultSubjects(o),
    validate: (o, ctx: ValidationContext) => validateBinding(o, cluster, ctx.old),
    selectableFields: () => ({}),
  };
}

function subjectNames(o: KObject, kind: string): string {
  if (!Array.isArray(o.subjects)) return '';
  return o.subjects
    .filter((s): s is Record<string, unknown> => isPlainObject(s) && s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${typeof s.namespace === 'string' ? s.namespace : ''}/${String(s.name)}` : String(s.name)))
    .join(', ');
}

function roleOf(o: KObject): string {
  const r = isPlainObject(o.roleRef) ? o.roleRef : {};
  return `${String(r.kind ?? '')}/${String(r.name ?? '')}`;
}

function roleType(cluster: boolean): ResourceType {
  const kind = cluster ? 'ClusterRole' : 'Role';
  return {
    group: rbacGroup,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource: cluster ? 'clusterroles' : 'roles',
    singular: cluster ? 'clusterrole' : 'role',
    shortNames: [],
    categories: [],
    namespaced: !cluster,
    subresources: { status: false },
    verbs: verbsFor(kind),
    schema: roleSchema(cluster),
    printerColumns: [
      {
        // kubectl shows the creation time itself for roles, not an age.
        name: 'Created At',
        type: 'string',
        format: 'date-time',
        description: 'When the role was created (RFC 3339).',
        jsonPath: '.metadata.creationTimestamp',
        cell: (o) => o.metadata.creationTimestamp ?? '',
      },
    ],
    tracksGeneration: false,
    structural: false,
    strategy: roleStrategy(cluster),
    source: { type: 'builtin' },
  };
}

function bindingType(cluster: boolean): ResourceType {
  const kind = cluster ? 'ClusterRoleBinding' : 'RoleBinding';
  return {
    group: rbacGroup,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource: cluster ? 'clusterrolebindings' : 'rolebindings',
    singular: cluster ? 'clusterrolebinding' : 'rolebinding',
    shortNames: [],
    categories: [],
    namespaced: !cluster,
    subresources: { status: false },
    verbs: verbsFor(kind),
    schema: bindingSchema(cluster),
    printerColumns: [
      { name: 'Role', type: 'string', description: 'The role granted, as Kind/name.', cell: roleOf },
      // kubectl shows AGE before the wide-only subject columns for bindings.
      {
        name: 'Age',
        type: 'date',
        description: 'Time since the binding was created.',
        jsonPath: '.metadata.creationTimestamp',
        cell: (o) => timestampAge(o.metadata.creationTimestamp),
      },
      { name: 'Users', type: 'string', priority: 1, description: 'The users granted the role.', cell: (o) => subjectNames(o, 'User') },
      { name: 'Groups', type: 'string', priority: 1, description: 'The groups granted the role.', cell: (o) => subjectNames(o, 'Group') },
      {
        name: 'ServiceAccounts',
        type: 'string',
        priority: 1,
        description: 'The ServiceAccounts granted the role, as namespace/name.',
        cell: (o) => subjectNames(o, 'ServiceAccount'),
      },
    ],
    tracksGeneration: false,
    structural: false,
    strategy: bindingStrategy(cluster),
    source: { type: 'builtin' },
  };
}

/** The ResourceType of rbac.authorization.k8s.io/v1 Role. */
export function roleResourceType(): ResourceType {
  return roleType(false);
}

/** The ResourceType of rbac.authorization.k8s.io/v1 ClusterRole. */
export function clusterRoleResourceType(): ResourceType {
  return roleType(true);
}

/** The ResourceType of rbac.authorization.k8s.io/v1 RoleBinding. */
export function roleBindingResourceType(): ResourceType {
  return bindingType(false);
}

/** The ResourceType of rbac.authorization.k8s.io/v1 ClusterRoleBinding. */
export function clusterRoleBindingResourceType(): ResourceType {
  return bindingType(true);
}

/** The four RBAC ResourceTypes. */
export function rbacResourceTypes(): ResourceType[] {
  return [roleResourceType(), clusterRoleResourceType(), roleBindingResourceType(), clusterRoleBindingResourceType()];
}
