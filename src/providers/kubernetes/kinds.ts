/**
 * kubernetes.conductor.io/v1alpha1 — the `kubernetes` provider's kind, defined once: CRD,
 * ResourceRef and TypeScript type. A KubernetesObject keeps one object (any kind, namespaced
 * or cluster-scoped) in the target cluster its Provider's credentials reach: the "external
 * resource" is that object. It implements Bucket and PostgreSQLInstance claims generically —
 * a class template names the object (an operator's custom resource) and says where the
 * connection details come from.
 */
import { s } from '../../apis/schema/builder.js';
import type { ObjectOf } from '../../apis/schema/kind.js';
import { BUCKET_CONNECTION_KEYS, bucketKind, postgresqlInstanceKind, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { V1ALPHA1 } from '../../apis/well-known.js';
import type { GroupKind } from '../spi.js';
import { defineProviderKind } from '../kind-definition.js';

export const KUBERNETES_GROUP = 'kubernetes.conductor.io';

/** The claim kinds a KubernetesObject implements. */
export const bucketClaimKind: GroupKind = { group: bucketKind.group, kind: bucketKind.kind };
export const postgresqlClaimKind: GroupKind = { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind };

const readiness = s
  .object({
    type: s
      .enumOf(['Conditions', 'JSONPath'] as const)
      .withDefault('Conditions')
      .describe(
        "Conditions: Ready when the object's condition `conditionType` is True (an object with no status, such as a ConfigMap, and a built-in kind without that condition, such as a Namespace, are Ready once they exist; a custom resource waits for the condition); JSONPath: Ready when the value at `jsonPath` equals `value`.",
      ),
    conditionType: s.string({ minLength: 1 }).describe('The condition that says the object is ready; default Ready.').optional(),
    jsonPath: s
      .string({ minLength: 1 })
      .describe('JSONPath: where in the object to look, e.g. .status.phase or {.status.conditions[?(@.type=="Available")].status}.')
      .optional(),
    value: s.string().describe('JSONPath: the value (as a string) that means ready, e.g. Running.').optional(),
  })
  .rules({ rule: "self.type != 'JSONPath' || (has(self.jsonPath) && has(self.value))", message: 'readiness type JSONPath needs jsonPath and value' })
  .describe('When the object in the target counts as ready; default: its Ready condition.');

const connectionDetail = s
  .object({
    toKey: s.string({ minLength: 1, maxLength: 253 }).describe('The key of the connection Secret the value is written to.'),
    fromField: s.string({ minLength: 1 }).describe('A JSONPath into the object in the target, e.g. .status.endpoint.').optional(),
    fromSecretKey: s.string({ minLength: 1, maxLength: 253 }).describe('A key of a Secret in the target (the one the operator writes).').optional(),
    secretName: s
      .string({ minLength: 1, maxLength: 253 })
      .describe("fromSecretKey: the Secret's name ($(object.name) stands for the object's name, e.g. $(object.name)-app); default the object's own name.")
      .optional(),
    secretNamespace: s
      .string({ minLength: 1, maxLength: 63 })
      .describe("fromSecretKey: the Secret's namespace; default the object's (required for a cluster-scoped object).")
      .optional(),
    fromConfigMapKey: s
      .string({ minLength: 1, maxLength: 253 })
      .describe('A key of a ConfigMap in the target (operators such as object bucket provisioners put the endpoint there).')
      .optional(),
    configMapName: s
      .string({ minLength: 1, maxLength: 253 })
      .describe("fromConfigMapKey: the ConfigMap's name ($(object.name) stands for the object's name); default the object's own name.")
      .optional(),
    configMapNamespace: s
      .string({ minLength: 1, maxLength: 63 })
      .describe("fromConfigMapKey: the ConfigMap's namespace; default the object's (required for a cluster-scoped object).")
      .optional(),
  })
  .rules({
    rule: '(has(self.fromField) ? 1 : 0) + (has(self.fromSecretKey) ? 1 : 0) + (has(self.fromConfigMapKey) ? 1 : 0) == 1',
    message: 'a connection detail takes exactly one of fromField, fromSecretKey and fromConfigMapKey',
  });

export const kubernetesObjectKind = defineProviderKind({
  group: KUBERNETES_GROUP,
  version: V1ALPHA1,
  kind: 'KubernetesObject',
  plural: 'kubernetesobjects',
  shortNames: ['kobj'],
  description:
    'A KubernetesObject keeps one object — spec.forProvider.manifest, of any kind, namespaced or cluster-scoped — in the target ' +
    'cluster its Provider (type kubernetes) reaches: created and corrected by server-side apply (field manager conductor), observed by ' +
    "comparing only the fields the manifest sets, deleted with propagation policy Background. It is ready by the object's conditions " +
    'or a JSONPath, and publishes connection details taken from fields of the object or keys of a Secret in the target. ' +
    "As a Bucket or PostgreSQLInstance claim's resource, a class template gives the manifest (an operator's custom resource) " +
    "and the connectionDetails that produce the claim kind's keys.",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [
    { claim: bucketKind, portableKeys: BUCKET_CONNECTION_KEYS, connectionSecretKeys: BUCKET_CONNECTION_KEYS },
    { claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: SQL_CONNECTION_KEYS },
  ],
  fields: {
    forProvider: s
      .object({
        manifest: s
          .freeform()
          .extend({ 'x-kubernetes-embedded-resource': true })
          .describe(
            'The object to keep in the target cluster: apiVersion, kind, metadata.name (and metadata.namespace for a namespaced kind; default "default") and the fields Conductor owns. Fields it leaves out belong to the target (defaults) and to other managers.',
          ),
        readiness: readiness.optional(),
        operatorBundle: s
          .object({
            manifests: s
              .array(s.freeform().extend({ 'x-kubernetes-embedded-resource': true }), { listType: 'atomic', maxItems: 64 })
              .describe(
                "The objects that install the operator: CustomResourceDefinitions, Namespaces, RBAC, its Deployment — applied in the target (CRDs first, then Namespaces, then in this order) when the target does not serve the manifest's kind; the object is created once the kind's CRD is Established. They are never deleted by Conductor (other objects may use the operator).",
              ),
          })
          .describe("An operator to install in the target when it lacks the manifest's kind (Automatic Operator Installation).")
          .optional(),
        connectionDetails: s
          .array(connectionDetail, { listType: 'atomic', maxItems: 64 })
          .describe('Where each connection detail comes from: a field of the object, or a key of a Secret or ConfigMap in the target.')
          .optional(),
      })
      .describe('What to keep in the target cluster, when it is ready and what it publishes.'),
  },
});
export type KubernetesObject = ObjectOf<typeof kubernetesObjectKind>;
export type KubernetesObjectSpec = KubernetesObject['spec'];
export type ForProvider = KubernetesObjectSpec['forProvider'];
export type Readiness = NonNullable<ForProvider['readiness']>;
export type ConnectionDetailSource = NonNullable<ForProvider['connectionDetails']>[number];

/** The kubernetes provider's ResourceRefs, by plural. */
export const kubernetesRefs = {
  kubernetesobjects: kubernetesObjectKind.ref,
} as const;
