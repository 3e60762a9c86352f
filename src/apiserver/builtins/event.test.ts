import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { eventResourceType } from './event.js';
import { tableLayoutFor } from './table.js';

const rt = eventResourceType();

function event(fields: Record<string, unknown>, namespace = 'ns'): KObject {
  return { apiVersion: 'v1', kind: 'Event', metadata: { name: 'pod-a.17', namespace }, ...fields };
}

function summary(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field ?? ''} ${c.reason}`);
}

const newStyle = {
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingComponent: 'example.com/controller',
  reportingInstance: 'host-1',
  action: 'Binding',
  reason: 'Scheduled',
};

describe('Event validation', () => {
  const cases: { reason: string; obj: KObject; want: string[] }[] = [
    {
      reason: 'an old-style event about an object in its namespace is valid',
      obj: event({ involvedObject: { kind: 'Pod', name: 'a', namespace: 'ns' }, reason: 'Started' }),
      want: [],
    },
    {
      reason: 'an old-style event about another namespace is invalid',
      obj: event({ involvedObject: { kind: 'Pod', name: 'a', namespace: 'other' } }),
      want: ['involvedObject.namespace FieldValueInvalid'],
    },
    { reason: 'an event about a cluster-scoped object lives in default', obj: event({ involvedObject: { kind: 'Node', name: 'n1' } }, 'default'), want: [] },
    {
      reason: 'an event about a cluster-scoped object cannot live elsewhere',
      obj: event({ involvedObject: { kind: 'Node', name: 'n1' } }),
      want: ['involvedObject.namespace FieldValueInvalid'],
    },
    { reason: 'a complete new-style event is valid', obj: event({ ...newStyle, involvedObject: { kind: 'Pod', name: 'a', namespace: 'ns' } }), want: [] },
    {
      reason: 'a new-style event needs its reporting fields, action and reason',
      obj: event({ eventTime: '2024-01-01T00:00:00.000000Z', involvedObject: { kind: 'Pod', name: 'a', namespace: 'ns' } }),
      want: ['reportingComponent FieldValueRequired', 'reportingInstance FieldValueRequired', 'action FieldValueRequired', 'reason FieldValueRequired'],
    },
    {
      reason: 'a new-style reporting component must be a qualified name',
      obj: event({ ...newStyle, reportingComponent: 'not a name', involvedObject: { namespace: 'ns' } }),
      want: ['reportingComponent FieldValueInvalid'],
    },
    {
      reason: 'new-style fields have length limits',
      obj: event({ ...newStyle, reason: 'r'.repeat(129), message: 'm'.repeat(1025), involvedObject: { namespace: 'ns' } }),
      want: ['reason FieldValueInvalid', 'message FieldValueInvalid'],
    },
    {
      reason: 'a new-style event about a cluster object may live in kube-system',
      obj: event({ ...newStyle, involvedObject: { kind: 'Node' } }, 'kube-system'),
      want: [],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summary(rt.strategy.validate!(c.obj, { operation: 'create', subresource: '' })), c.want));
  }
});

describe('Event selectors', () => {
  test('every documented field is selectable', () => {
    const e = event({
      involvedObject: { kind: 'Pod', namespace: 'ns', name: 'a', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
      reason: 'Started',
      type: 'Normal',
      reportingComponent: 'kubelet',
    });
    assert.deepEqual(rt.strategy.selectableFields!(e), {
      'involvedObject.kind': 'Pod',
      'involvedObject.namespace': 'ns',
      'involvedObject.name': 'a',
      'involvedObject.uid': 'u',
      'involvedObject.apiVersion': 'v1',
      'involvedObject.resourceVersion': '7',
      'involvedObject.fieldPath': 'spec.containers{c}',
      reason: 'Started',
      reportingComponent: 'kubelet',
      source: 'kubelet',
      type: 'Normal',
    });
  });
  test('source prefers source.component', () => {
    const e = event({ source: { component: 'scheduler' }, reportingComponent: 'other' });
    assert.equal(rt.strategy.selectableFields!(e).source, 'scheduler');
  });
});

describe('Event table', () => {
  const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
  const cell = (name: string, e: KObject) => rt.printerColumns.find((c) => c.name === name)!.cell!(e);

  test('columns follow kubectl: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE by default', () => {
    assert.deepEqual(
      rt.printerColumns.filter((c) => !c.priority).map((c) => c.name),
      ['Last Seen', 'Type', 'Reason', 'Object', 'Message'],
    );
    assert.deepEqual(
      rt.printerColumns.filter((c) => c.priority).map((c) => c.name),
      ['Subobject', 'Source', 'First Seen', 'Count', 'Name'],
    );
  });
  test('the server omits its own NAME and AGE columns for events', () => {
    assert.deepEqual(tableLayoutFor(rt), { nameColumn: false, ageColumn: false });
  });
  const cases: { reason: string; obj: () => KObject; column: string; want: unknown }[] = [
    { reason: 'last seen uses lastTimestamp', obj: () => event({ lastTimestamp: ago(300), firstTimestamp: ago(900) }), column: 'Last Seen', want: '5m' },
    { reason: 'last seen falls back to the first time', obj: () => event({ firstTimestamp: ago(45) }), column: 'Last Seen', want: '45s' },
    {
      reason: 'last seen uses the series when there is one',
      obj: () => event({ eventTime: ago(7200), series: { count: 3, lastObservedTime: ago(60) } }),
      column: 'Last Seen',
      want: '60s',
    },
    { reason: 'a missing time reads <unknown>', obj: () => event({}), column: 'Last Seen', want: '<unknown>' },
    { reason: 'the object is kind/name in lower case', obj: () => event({ involvedObject: { kind: 'Pod', name: 'web' } }), column: 'Object', want: 'pod/web' },
    {
      reason: 'the source joins component and host',
      obj: () => event({ source: { component: 'kubelet', host: 'n1' } }),
      column: 'Source',
      want: 'kubelet, n1',
    },
    { reason: 'the count defaults to one', obj: () => event({}), column: 'Count', want: 1 },
    { reason: 'the count comes from the series', obj: () => event({ count: 2, series: { count: 9 } }), column: 'Count', want: 9 },
    { reason: 'the message is trimmed', obj: () => event({ message: '  hello \n' }), column: 'Message', want: 'hello' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(cell(c.column, c.obj()), c.want));
});
