/**
 * The kinds whose protobuf bodies Conductor decodes, keyed by apiVersion and kind.
 * DeleteOptions is special: Go clients encode it with the apiVersion of whichever API
 * group they talk to, so it is recognised under any apiVersion.
 */
import type { MessageType } from './message-type.js';
import { ConfigMap, Event, Namespace, Secret, ServiceAccount } from './core-v1.js';
import { Lease } from './coordination-v1.js';
import { DeleteOptions } from './meta-v1.js';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './rbac-v1.js';
import { SelfSubjectAccessReview, SelfSubjectReview, SelfSubjectRulesReview, TokenRequest } from './auth-v1.js';

/** A DecodableKind names one kind this folder decodes and its message table. */
export interface DecodableKind {
  apiVersion: string;
  kind: string;
  type: MessageType;
}

const table: DecodableKind[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', type: ConfigMap },
  { apiVersion: 'v1', kind: 'Secret', type: Secret },
  { apiVersion: 'v1', kind: 'Namespace', type: Namespace },
  { apiVersion: 'v1', kind: 'ServiceAccount', type: ServiceAccount },
  { apiVersion: 'v1', kind: 'Event', type: Event },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', type: Lease },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', type: Role },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', type: ClusterRole },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', type: RoleBinding },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', type: ClusterRoleBinding },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', type: SelfSubjectAccessReview },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', type: SelfSubjectRulesReview },
  { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', type: SelfSubjectReview },
  { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', type: TokenRequest },
];

const byKey = new Map(table.map((k) => [`${k.apiVersion}|${k.kind}`, k.type]));

/** Every apiVersion/kind pair with a decoder (DeleteOptions listed once, under any apiVersion). */
export const decodableKinds: readonly DecodableKind[] = [...table, { apiVersion: '*', kind: 'DeleteOptions', type: DeleteOptions }];

/** The message table for a kind, or undefined when this folder does not decode it. */
export function messageTypeFor(apiVersion: string, kind: string): MessageType | undefined {
  if (kind === 'DeleteOptions') return DeleteOptions;
  return byKey.get(`${apiVersion}|${kind}`);
}
