/**
 * Shared fixtures of the apply tests: a custom kind's schema covering every list and map
 * semantic, and object builders.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import type { KObject, ManagedFieldsEntry } from '../object.js';

export const widgetSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        image: { type: 'string' },
        note: { type: 'string', nullable: true },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        args: { type: 'array', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string' } },
          },
        },
        containers: {
          type: 'array',
          'x-kubernetes-patch-merge-key': 'name',
          'x-kubernetes-patch-strategy': 'merge',
          items: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' } } },
        },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

export const configMapSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    data: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

export const widgetVersion = 'example.com/v1';

/** A Widget named `w` with the given spec and extra metadata. */
export function widget(spec: Record<string, unknown> | undefined, meta: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: widgetVersion,
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', ...meta },
    ...(spec !== undefined ? { spec } : {}),
  };
}

/** A ConfigMap named `cm` with the given data and extra metadata. */
export function configMap(data: Record<string, string> | undefined, meta: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', ...meta }, ...(data ? { data } : {}) };
}

/** The managers and their fieldsV1 of a managedFields list, in order (what most tests check). */
export function owners(managedFields: ManagedFieldsEntry[] | undefined): { manager: string; operation: string; fields: unknown }[] {
  return (managedFields ?? []).map((e) => ({ manager: e.manager, operation: e.operation, fields: e.fieldsV1 }));
}

export const t0 = new Date('2024-01-01T00:00:00Z');
export const t1 = new Date('2024-01-01T00:01:00Z');
export const t2 = new Date('2024-01-01T00:02:00Z');
