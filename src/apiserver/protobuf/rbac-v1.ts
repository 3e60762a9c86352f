/**
 * Wire layout of rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding (`kubectl create role|clusterrole|rolebinding|clusterrolebinding`
 * send these as protobuf).
 */
import { many, message, one } from './message-type.js';
import { LabelSelector, ObjectMeta } from './meta-v1.js';

export const PolicyRule = message('PolicyRule', {
  1: many('verbs', 'string'),
  2: many('apiGroups', 'string'),
  3: many('resources', 'string'),
  4: many('resourceNames', 'string'),
  5: many('nonResourceURLs', 'string'),
});

export const AggregationRule = message('AggregationRule', {
  1: many('clusterRoleSelectors', LabelSelector),
});

export const Subject = message('Subject', {
  1: one('kind', 'string', { keep: true }),
  2: one('apiGroup', 'string'),
  3: one('name', 'string', { keep: true }),
  4: one('namespace', 'string'),
});

export const RoleRef = message('RoleRef', {
  1: one('apiGroup', 'string', { keep: true }),
  2: one('kind', 'string', { keep: true }),
  3: one('name', 'string', { keep: true }),
});

export const Role = message('Role', {
  1: one('metadata', ObjectMeta),
  2: many('rules', PolicyRule),
});

export const ClusterRole = message('ClusterRole', {
  1: one('metadata', ObjectMeta),
  2: many('rules', PolicyRule),
  3: one('aggregationRule', AggregationRule),
});

export const RoleBinding = message('RoleBinding', {
  1: one('metadata', ObjectMeta),
  2: many('subjects', Subject),
  3: one('roleRef', RoleRef),
});

export const ClusterRoleBinding = message('ClusterRoleBinding', {
  1: one('metadata', ObjectMeta),
  2: many('subjects', Subject),
  3: one('roleRef', RoleRef),
});
