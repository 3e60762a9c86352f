import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../machinery/object.js';
import type { Readiness } from './kinds.js';
import { readinessOf, type ReadinessVerdict } from './readiness.js';

const ready: ReadinessVerdict = { ready: true };
const withConditions = (...conditions: JsonObject[]): JsonObject => ({ status: { conditions } });

describe('readinessOf', () => {
  const cases: { reason: string; live: JsonObject; readiness?: Readiness; want: ReadinessVerdict | RegExp }[] = [
    { reason: 'an object with no status at all (a ConfigMap) is ready once it exists', live: { data: { a: 'b' } }, want: ready },
    { reason: 'condition Ready True is ready', live: withConditions({ type: 'Ready', status: 'True' }), want: ready },
    {
      reason: 'condition Ready False is not, with its reason and message',
      live: withConditions({ type: 'Ready', status: 'False', reason: 'Provisioning', message: 'creating pods' }),
      want: { ready: false, why: 'its Ready condition is False (Provisioning: creating pods)' },
    },
    {
      reason: 'a custom resource whose status lacks the condition is not ready yet',
      live: { apiVersion: 'postgresql.cnpg.io/v1', status: { phase: 'Pending' } },
      want: { ready: false, why: 'it has no Ready condition yet' },
    },
    {
      reason: 'a built-in kind without the condition (a Namespace, a Deployment) is ready once it exists',
      live: { apiVersion: 'apps/v1', status: { conditions: [{ type: 'Available', status: 'True' }] } },
      want: ready,
    },
    { reason: 'a core kind with a status but no conditions is ready', live: { apiVersion: 'v1', status: { phase: 'Active' } }, want: ready },
    {
      reason: 'a built-in kind that has the condition is judged by it',
      live: { apiVersion: 'v1', status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      want: { ready: false, why: 'its Ready condition is False' },
    },
    {
      reason: 'another condition type may be named',
      live: withConditions({ type: 'Ready', status: 'False' }, { type: 'Available', status: 'True' }),
      readiness: { type: 'Conditions', conditionType: 'Available' },
      want: ready,
    },
    {
      reason: 'a JSONPath equal to the value is ready',
      live: { status: { phase: 'Running' } },
      readiness: { type: 'JSONPath', jsonPath: '.status.phase', value: 'Running' },
      want: ready,
    },
    {
      reason: 'a JSONPath with another value is not, saying what it found',
      live: { status: { phase: 'Pending' } },
      readiness: { type: 'JSONPath', jsonPath: '.status.phase', value: 'Running' },
      want: { ready: false, why: '.status.phase is Pending, want "Running"' },
    },
    {
      reason: 'a JSONPath that selects nothing is not ready',
      live: {},
      readiness: { type: 'JSONPath', jsonPath: '{.status.readyReplicas}', value: '3' },
      want: { ready: false, why: '{.status.readyReplicas} is unset, want "3"' },
    },
    {
      reason: 'a number compares as its text',
      live: { status: { readyReplicas: 3 } },
      readiness: { type: 'JSONPath', jsonPath: '.status.readyReplicas', value: '3' },
      want: ready,
    },
    {
      reason: 'a JSONPath that does not parse is an error naming it',
      live: {},
      readiness: { type: 'JSONPath', jsonPath: 'status.phase', value: 'x' },
      want: /JSONPath "status.phase" does not parse at character 1/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.want instanceof RegExp) assert.throws(() => readinessOf(c.live, c.readiness), c.want);
      else assert.deepEqual(readinessOf(c.live, c.readiness), c.want);
    });
  }
});
