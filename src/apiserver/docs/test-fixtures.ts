/**
 * Fake resource types for the tests of this folder: a namespaced CRD kind with a status
 * subresource, a cluster-scoped CRD kind, and built-in ConfigMap and Namespace.
 */
import type { JSONSchemaProps, ResourceType } from '../registry/resource-type.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function base(overrides: Partial<ResourceType> & Pick<ResourceType, 'group' | 'version' | 'kind' | 'resource'>): ResourceType {
  return {
    listKind: `${overrides.kind}List`,
    singular: overrides.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    namespaced: true,
    subresources: { status: false },
    verbs: ALL_VERBS,
    schema: { type: 'object' },
    printerColumns: [],
    tracksGeneration: false,
    structural: false,
    strategy: {},
    source: { type: 'builtin' },
    ...overrides,
  };
}

const objectMetaInline: JSONSchemaProps = { type: 'object', properties: { name: { type: 'string' } } };

export function mysqlInstance(version = 'v1alpha1', storage = true, extraSpec: Record<string, JSONSchemaProps> = {}): ResourceType {
  return base({
    group: 'storage.conductor.io',
    version,
    kind: 'MySQLInstance',
    resource: 'mysqlinstances',
    singular: 'mysqlinstance',
    shortNames: ['mysql'],
    categories: ['claim', 'all'],
    subresources: { status: true },
    tracksGeneration: true,
    structural: true,
    source: { type: 'crd', crdName: 'mysqlinstances.storage.conductor.io', storage },
    schema: {
      type: 'object',
      description: 'A MySQLInstance claims a MySQL database.',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: objectMetaInline,
        spec: {
          type: 'object',
          description: 'The desired database.',
          required: ['version'],
          properties: {
            version: { type: 'string', description: 'A semver range of acceptable MySQL versions.' },
            masterUsername: { type: 'string', nullable: true },
            requirements: {
              type: 'object',
              properties: {
                capacity: {
                  type: 'object',
                  additionalProperties: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                },
                region: { type: 'string', enum: ['north-america', 'europe'] },
              },
            },
            ...extraSpec,
          },
        },
        status: {
          type: 'object',
          properties: { phase: { type: 'string', enum: ['Pending', 'Bound', 'Lost'] } },
        },
      },
    },
  });
}

export function providerKind(): ResourceType {
  return base({
    group: 'core.conductor.io',
    version: 'v1alpha1',
    kind: 'ClusterProfile',
    resource: 'clusterprofiles',
    namespaced: false,
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    source: { type: 'crd', crdName: 'clusterprofiles.core.conductor.io', storage: true },
    schema: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        weights: { type: 'object', additionalProperties: { type: 'integer' } },
      },
    },
  });
}

export function configMap(): ResourceType {
  return base({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    resource: 'configmaps',
    shortNames: ['cm'],
    schema: {
      type: 'object',
      description: 'ConfigMap holds configuration data.',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        data: { type: 'object', additionalProperties: { type: 'string' } },
        binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
        immutable: { type: 'boolean' },
      },
    },
  });
}

export function namespace(): ResourceType {
  return base({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    resource: 'namespaces',
    shortNames: ['ns'],
    namespaced: false,
    subresources: { status: true },
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    schema: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          properties: {
            finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
          },
        },
        status: { type: 'object', properties: { phase: { type: 'string' } } },
      },
    },
  });
}

/** fixtureTypes is a small served set: two built-ins and two CRD kinds. */
export function fixtureTypes(): ResourceType[] {
  return [mysqlInstance(), providerKind(), configMap(), namespace()];
}
