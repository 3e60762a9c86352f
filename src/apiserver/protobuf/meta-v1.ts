/**
 * Wire layout of the meta/v1 messages Kubernetes objects embed (ObjectMeta and its parts,
 * LabelSelector) and of DeleteOptions, the one options type sent as a request body.
 * Field numbers are Kubernetes' (k8s.io/apimachinery/pkg/apis/meta/v1).
 */
import { dict, many, message, one } from './message-type.js';

export const OwnerReference = message('OwnerReference', {
  5: one('apiVersion', 'string', { keep: true }),
  1: one('kind', 'string', { keep: true }),
  3: one('name', 'string', { keep: true }),
  4: one('uid', 'string', { keep: true }),
  6: one('controller', 'bool', { keep: true }),
  7: one('blockOwnerDeletion', 'bool', { keep: true }),
});

export const ManagedFieldsEntry = message('ManagedFieldsEntry', {
  1: one('manager', 'string'),
  2: one('operation', 'string'),
  3: one('apiVersion', 'string'),
  4: one('time', 'time'),
  6: one('fieldsType', 'string'),
  7: one('fieldsV1', 'fieldsV1'),
  8: one('subresource', 'string'),
});

export const ObjectMeta = message('ObjectMeta', {
  1: one('name', 'string'),
  2: one('generateName', 'string'),
  3: one('namespace', 'string'),
  4: one('selfLink', 'string'),
  5: one('uid', 'string'),
  6: one('resourceVersion', 'string'),
  7: one('generation', 'int64'),
  8: one('creationTimestamp', 'time'),
  9: one('deletionTimestamp', 'time'),
  10: one('deletionGracePeriodSeconds', 'int64', { keep: true }),
  11: dict('labels', 'string'),
  12: dict('annotations', 'string'),
  13: many('ownerReferences', OwnerReference),
  14: many('finalizers', 'string'),
  17: many('managedFields', ManagedFieldsEntry),
});

export const LabelSelectorRequirement = message('LabelSelectorRequirement', {
  1: one('key', 'string', { keep: true }),
  2: one('operator', 'string', { keep: true }),
  3: many('values', 'string'),
});

export const LabelSelector = message('LabelSelector', {
  1: dict('matchLabels', 'string'),
  2: many('matchExpressions', LabelSelectorRequirement),
});

export const Preconditions = message('Preconditions', {
  1: one('uid', 'string', { keep: true }),
  2: one('resourceVersion', 'string', { keep: true }),
});

export const DeleteOptions = message('DeleteOptions', {
  1: one('gracePeriodSeconds', 'int64', { keep: true }),
  2: one('preconditions', Preconditions),
  3: one('orphanDependents', 'bool', { keep: true }),
  4: one('propagationPolicy', 'string', { keep: true }),
  5: many('dryRun', 'string'),
  6: one('ignoreStoreReadErrorWithClusterBreakingPotential', 'bool', { keep: true }),
});
