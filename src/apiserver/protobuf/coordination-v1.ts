/**
 * Wire layout of coordination.k8s.io/v1 Lease. Every LeaseSpec field is a pointer in
 * Kubernetes, so a field present on the wire is kept even when zero.
 */
import { message, one } from './message-type.js';
import { ObjectMeta } from './meta-v1.js';

export const LeaseSpec = message('LeaseSpec', {
  1: one('holderIdentity', 'string', { keep: true }),
  2: one('leaseDurationSeconds', 'int32', { keep: true }),
  3: one('acquireTime', 'microTime', { keep: true }),
  4: one('renewTime', 'microTime', { keep: true }),
  5: one('leaseTransitions', 'int32', { keep: true }),
  // Coordinated leader election (alpha in Kubernetes 1.31+).
  6: one('strategy', 'string', { keep: true }),
  7: one('preferredHolder', 'string', { keep: true }),
});

export const Lease = message('Lease', {
  1: one('metadata', ObjectMeta),
  2: one('spec', LeaseSpec),
});
