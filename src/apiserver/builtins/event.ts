/**
 * The core/v1 Event kind: a report of something that happened to an object, for humans
 * (`kubectl get events`, `kubectl describe`). Old-style events carry first/last timestamps
 * and a count; new-style ones carry eventTime, a series, and reporting fields that are
 * then required.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { PrinterColumn, ResourceType, Strategy } from '../registry/resource-type.js';
import { child, invalid, required } from './field-errors.js';
import { isQualifiedName } from './names.js';
import { objectReferenceSchema, resourceSchema } from './object-meta-schema.js';
import { int32, microTime, obj, str, time } from './schema-builders.js';
import { timestampAge } from './table.js';
import { verbsFor } from './verbs.js';

const reportingInstanceLimit = 128;
const actionLimit = 128;
const reasonLimit = 128;
const messageLimit = 1024;

function eventSchema() {
  return resourceSchema(
    'An Event reports something that happened to an object: a state change, an error, a decision. Events are kept for a limited time.',
    {
      involvedObject: objectReferenceSchema('The object this event is about.'),
      reason: str('A short CamelCase word for why the event happened, e.g. FailedScheduling; tools group events by it.'),
      message: str('A human-readable description of what happened.'),
      type: str('The severity: Normal for routine events, Warning for problems that may need attention.'),
      source: obj('The component that reported the event (old-style events).', {
        component: str('The name of the reporting component, e.g. scheduler.'),
        host: str('The host the reporting component runs on.'),
      }),
      count: int32('How many times this event has been seen (old-style events).'),
      firstTimestamp: time('When the event was first seen (old-style events).'),
      lastTimestamp: time('When the event was most recently seen (old-style events).'),
      eventTime: microTime('When the event was first observed, with microsecond precision (new-style events).'),
      series: obj('Data about a series of repeated events (new-style events); absent for a single event.', {
        count: int32('How many times the event has happened so far in this series.'),
        lastObservedTime: microTime('When the last event of the series was seen.'),
      }),
      action: str('What the reporting component did or failed to do about the object, e.g. Binding (new-style events).'),
      related: objectReferenceSchema('A second object involved in the event, e.g. the node a pod was bound to.'),
      reportingComponent: str('The controller that emitted the event, e.g. example.com/my-controller (new-style events).', {
        default: '',
      }),
      reportingInstance: str('The instance of the controller that emitted the event, e.g. its pod or host name (new-style events).', {
        default: '',
      }),
    },
    ['metadata', 'involvedObject'],
  );
}

function record(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function checkLength(causes: StatusCause[], field: string, value: string, limit: number): void {
  if (value.length > limit) causes.push(invalid(field, '', `can have at most ${limit} characters`));
}

/** Causes for an Event's own fields, following the rules of the core/v1 API. */
export function validateEvent(o: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const ns = o.metadata.namespace ?? '';
  const involvedNs = text(record(o.involvedObject).namespace);
  const nsPath = child('involvedObject', 'namespace');
  const mismatch = 'does not match event.namespace';
  if (!o.eventTime) {
    // Old-style event: the namespaces must agree (an event about a cluster-scoped object lives in "default").
    if (involvedNs === '') {
      if (ns !== '' && ns !== 'default') causes.push(invalid(nsPath, involvedNs, mismatch));
    } else if (ns !== involvedNs) {
      causes.push(invalid(nsPath, involvedNs, mismatch));
    }
    return causes;
  }
  if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') causes.push(invalid(nsPath, involvedNs, mismatch));
  const component = text(o.reportingComponent);
  if (component === '') causes.push(required('reportingComponent'));
  else for (const m of isQualifiedName(component)) causes.push(invalid('reportingComponent', component, m));
  const instance = text(o.reportingInstance);
  if (instance === '') causes.push(required('reportingInstance'));
  checkLength(causes, 'reportingInstance', instance, reportingInstanceLimit);
  const action = text(o.action);
  if (action === '') causes.push(required('action'));
  checkLength(causes, 'action', action, actionLimit);
  const reason = text(o.reason);
  if (reason === '') causes.push(required('reason'));
  checkLength(causes, 'reason', reason, reasonLimit);
  checkLength(causes, 'message', text(o.message), messageLimit);
  return causes;
}

/** The fields an Event can be selected by besides its name and namespace. */
export function eventSelectableFields(o: KObject): Record<string, string> {
  const inv = record(o.involvedObject);
  const source = text(record(o.source).component) || text(o.reportingComponent);
  return {
    'involvedObject.kind': text(inv.kind),
    'involvedObject.namespace': text(inv.namespace),
    'involvedObject.name': text(inv.name),
    'involvedObject.uid': text(inv.uid),
    'involvedObject.apiVersion': text(inv.apiVersion),
    'involvedObject.resourceVersion': text(inv.resourceVersion),
    'involvedObject.fieldPath': text(inv.fieldPath),
    reason: text(o.reason),
    reportingComponent: text(o.reportingComponent),
    source,
    type: text(o.type),
  };
}

/** An eventStrategy holds Event checks. */
export const eventStrategy: Strategy = {
  validate: (o) => validateEvent(o),
  selectableFields: eventSelectableFields,
};

function firstSeen(o: KObject, now: number): string {
  return o.firstTimestamp ? timestampAge(o.firstTimestamp, now) : timestampAge(o.eventTime, now);
}

function lastSeen(o: KObject, now: number): string {
  const series = record(o.series);
  if (isPlainObject(o.series)) return timestampAge(series.lastObservedTime, now);
  return o.lastTimestamp ? timestampAge(o.lastTimestamp, now) : firstSeen(o, now);
}

function eventCount(o: KObject): number {
  if (isPlainObject(o.series) && typeof o.series.count === 'number') return o.series.count;
  return typeof o.count === 'number' && o.count > 0 ? o.count : 1;
}

function eventObject(o: KObject): string {
  const inv = record(o.involvedObject);
  const kind = text(inv.kind).toLowerCase();
  const name = text(inv.name);
  return name ? `${kind}/${name}` : kind;
}

function eventSource(o: KObject): string {
  const src = record(o.source);
  const component = text(src.component) || text(o.reportingComponent);
  const instance = text(src.host) || text(o.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

/**
 * The Event columns, in kubectl's order: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, and in
 * wide output also SUBOBJECT, SOURCE, FIRST SEEN, COUNT and NAME. Events use the table
 * layout without the standard NAME and AGE columns (see `tableLayoutFor`).
 */
export function eventPrinterColumns(): PrinterColumn[] {
  return [
    { name: 'Last Seen', type: 'string', description: 'How long ago the event was last seen.', cell: (o) => lastSeen(o, Date.now()) },
    { name: 'Type', type: 'string', description: 'Normal or Warning.', cell: (o) => text(o.type) },
    { name: 'Reason', type: 'string', description: 'Why the event happened.', cell: (o) => text(o.reason) },
    { name: 'Object', type: 'string', description: 'The object the event is about, as kind/name.', cell: eventObject },
    {
      name: 'Subobject',
      type: 'string',
      priority: 1,
      description: 'The part of the object the event is about.',
      cell: (o) => text(record(o.involvedObject).fieldPath),
    },
    { name: 'Source', type: 'string', priority: 1, description: 'The component that reported the event.', cell: eventSource },
    { name: 'Message', type: 'string', description: 'What happened.', cell: (o) => text(o.message).trim() },
    { name: 'First Seen', type: 'string', priority: 1, description: 'How long ago the event was first seen.', cell: (o) => firstSeen(o, Date.now()) },
    { name: 'Count', type: 'integer', priority: 1, description: 'How many times the event was seen.', cell: eventCount },
    { name: 'Name', type: 'string', priority: 1, description: 'The name of the event object.', cell: (o) => o.metadata.name ?? '' },
  ];
}

/** The ResourceType of core/v1 Event. */
export function eventResourceType(): ResourceType {
  return {
    group: '',
    version: 'v1',
    kind: 'Event',
    listKind: 'EventList',
    resource: 'events',
    singular: 'event',
    shortNames: ['ev'],
    categories: [],
    namespaced: true,
    subresources: { status: false },
    verbs: verbsFor('Event'),
    schema: eventSchema(),
    printerColumns: eventPrinterColumns(),
    tracksGeneration: false,
    structural: false,
    strategy: eventStrategy,
    source: { type: 'builtin' },
  };
}
