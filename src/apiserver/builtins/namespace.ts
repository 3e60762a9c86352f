/**
 * The core/v1 Namespace kind: a cluster-scoped container for namespaced objects. New
 * namespaces start Active with the `kubernetes` finalizer (the namespace controller removes
 * it once the contents are gone); the spec finalizers change only through `/finalize` and
 * the phase only through `/status`.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { ResourceType, Strategy, ValidationContext } from '../registry/resource-type.js';
import { child, index, invalid } from './field-errors.js';
import { validateFinalizerName } from './object-meta.js';
import { resourceSchema } from './object-meta-schema.js';
import { atomicStringList, mapList, obj, str, time } from './schema-builders.js';
import { verbsFor } from './verbs.js';

/** The finalizer the server puts on every new namespace. */
export const kubernetesFinalizer = 'kubernetes';

/** The label the server keeps equal to a namespace's name, so selectors can match it. */
export const namespaceNameLabel = 'kubernetes.io/metadata.name';

function namespaceSchema() {
  return resourceSchema(
    'A Namespace gives names a scope: objects of namespaced kinds live in exactly one namespace, and deleting a namespace deletes everything in it.',
    {
      spec: obj('The desired state of the namespace.', {
        finalizers: atomicStringList(
          'Cleanup steps that must finish before the namespace is removed. The server adds `kubernetes`, which the namespace controller removes after deleting the contents. Changed only through the finalize subresource.',
          'A finalizer name.',
        ),
      }),
      status: obj('The observed state of the namespace.', {
        phase: str('The lifecycle phase: Active while in use, Terminating once deletion has started.', {
          enum: ['Active', 'Terminating'],
        }),
        conditions: mapList(
          'The latest observations about the namespace, e.g. whether its contents could be discovered and deleted.',
          obj(
            'A NamespaceCondition reports one aspect of the namespace state.',
            {
              type: str('The kind of condition, e.g. NamespaceDeletionContentFailure.'),
              status: str('Whether the condition holds: True, False or Unknown.'),
              lastTransitionTime: time('When the status last changed.'),
              reason: str('A CamelCase word saying why the condition is in this state.'),
              message: str('A human-readable explanation.'),
            },
            { required: ['type', 'status'] },
          ),
          ['type'],
        ),
      }),
    },
  );
}

function specOf(o: KObject): Record<string, unknown> {
  return isPlainObject(o.spec) ? o.spec : {};
}

function finalizersOf(o: KObject): unknown[] | undefined {
  const f = specOf(o).finalizers;
  return Array.isArray(f) ? f : undefined;
}

function setNameLabel(o: KObject): void {
  const name = o.metadata.name;
  if (!name) return;
  const labels = isPlainObject(o.metadata.labels) ? o.metadata.labels : {};
  o.metadata.labels = { ...labels, [namespaceNameLabel]: name };
}

function validateSpecFinalizers(o: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const base = child('spec', 'finalizers');
  (finalizersOf(o) ?? []).forEach((f, i) => {
    if (typeof f === 'string') causes.push(...validateFinalizerName(f, index(base, i), true));
  });
  return causes;
}

function validateStatusPhase(o: KObject): StatusCause[] {
  const status = isPlainObject(o.status) ? o.status : {};
  const phase = status.phase ?? '';
  const p = child('status', 'phase');
  if (!o.metadata.deletionTimestamp) {
    if (phase !== 'Active') return [invalid(p, phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  } else if (phase !== 'Terminating') {
    return [invalid(p, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  }
  return [];
}

/** A namespaceStrategy holds Namespace defaults and checks. */
export const namespaceStrategy: Strategy = {
  prepareForCreate(o: KObject): void {
    o.status = { phase: 'Active' };
    const spec = specOf(o);
    const finalizers = finalizersOf(o) ?? [];
    if (!finalizers.includes(kubernetesFinalizer)) finalizers.push(kubernetesFinalizer);
    o.spec = { ...spec, finalizers };
    setNameLabel(o);
  },
  prepareForUpdate(o: KObject, old: KObject): void {
    // The main resource cannot change the finalizers (that is /finalize) or the status.
    const spec = specOf(o);
    const oldFinalizers = finalizersOf(old);
    const next: Record<string, unknown> = { ...spec };
    if (oldFinalizers) next.finalizers = oldFinalizers;
    else delete next.finalizers;
    o.spec = next;
    if (old.status === undefined) delete o.status;
    else o.status = old.status;
    setNameLabel(o);
  },
  validate(o: KObject, ctx: ValidationContext): StatusCause[] {
    if (ctx.subresource === 'status') return validateStatusPhase(o);
    return validateSpecFinalizers(o);
  },
  selectableFields(o: KObject): Record<string, string> {
    const status = isPlainObject(o.status) ? o.status : {};
    return {
      'status.phase': typeof status.phase === 'string' ? status.phase : '',
      name: o.metadata.name ?? '',
    };
  },
};

/** The ResourceType of core/v1 Namespace. */
export function namespaceResourceType(): ResourceType {
  return {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    listKind: 'NamespaceList',
    resource: 'namespaces',
    singular: 'namespace',
    shortNames: ['ns'],
    categories: [],
    namespaced: false,
    subresources: { status: true },
    verbs: verbsFor('Namespace'),
    schema: namespaceSchema(),
    printerColumns: [
      {
        name: 'Status',
        type: 'string',
        description: 'The lifecycle phase of the namespace.',
        cell: (o) => (isPlainObject(o.status) && typeof o.status.phase === 'string' ? o.status.phase : ''),
      },
    ],
    tracksGeneration: false,
    structural: false,
    strategy: namespaceStrategy,
    source: { type: 'builtin' },
  };
}
