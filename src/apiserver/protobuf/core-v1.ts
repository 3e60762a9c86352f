/**
 * Wire layout of the core/v1 kinds Conductor serves: ConfigMap, Secret, Namespace,
 * ServiceAccount and Event. Field numbers are Kubernetes' (k8s.io/api/core/v1).
 */
import { dict, many, message, one } from './message-type.js';
import { ObjectMeta } from './meta-v1.js';

export const ObjectReference = message('ObjectReference', {
  1: one('kind', 'string'),
  2: one('namespace', 'string'),
  3: one('name', 'string'),
  4: one('uid', 'string'),
  5: one('apiVersion', 'string'),
  6: one('resourceVersion', 'string'),
  7: one('fieldPath', 'string'),
});

export const LocalObjectReference = message('LocalObjectReference', {
  1: one('name', 'string'),
});

export const ConfigMap = message('ConfigMap', {
  1: one('metadata', ObjectMeta),
  2: dict('data', 'string'),
  3: dict('binaryData', 'bytes'),
  4: one('immutable', 'bool', { keep: true }),
});

export const Secret = message('Secret', {
  1: one('metadata', ObjectMeta),
  2: dict('data', 'bytes'),
  3: one('type', 'string'),
  4: dict('stringData', 'string'),
  5: one('immutable', 'bool', { keep: true }),
});

export const NamespaceCondition = message('NamespaceCondition', {
  1: one('type', 'string', { keep: true }),
  2: one('status', 'string', { keep: true }),
  4: one('lastTransitionTime', 'time'),
  5: one('reason', 'string'),
  6: one('message', 'string'),
});

export const Namespace = message('Namespace', {
  1: one('metadata', ObjectMeta),
  2: one('spec', message('NamespaceSpec', { 1: many('finalizers', 'string') })),
  3: one(
    'status',
    message('NamespaceStatus', {
      1: one('phase', 'string'),
      2: many('conditions', NamespaceCondition),
    }),
  ),
});

export const ServiceAccount = message('ServiceAccount', {
  1: one('metadata', ObjectMeta),
  2: many('secrets', ObjectReference),
  3: many('imagePullSecrets', LocalObjectReference),
  4: one('automountServiceAccountToken', 'bool', { keep: true }),
});

export const EventSource = message('EventSource', {
  1: one('component', 'string'),
  2: one('host', 'string'),
});

export const EventSeries = message('EventSeries', {
  1: one('count', 'int32'),
  2: one('lastObservedTime', 'microTime'),
});

export const Event = message('Event', {
  1: one('metadata', ObjectMeta),
  2: one('involvedObject', ObjectReference),
  3: one('reason', 'string'),
  4: one('message', 'string'),
  5: one('source', EventSource),
  6: one('firstTimestamp', 'time'),
  7: one('lastTimestamp', 'time'),
  8: one('count', 'int32'),
  9: one('type', 'string'),
  10: one('eventTime', 'microTime'),
  11: one('series', EventSeries),
  12: one('action', 'string'),
  13: one('related', ObjectReference),
  14: one('reportingComponent', 'string', { keep: true }),
  15: one('reportingInstance', 'string', { keep: true }),
});
