/** The list of every built-in kind the API server serves from this folder. */
import type { ResourceType } from '../registry/resource-type.js';
import { configMapResourceType } from './config-map.js';
import { crdResourceType } from './custom-resource-definition.js';
import { eventResourceType } from './event.js';
import { leaseResourceType } from './lease.js';
import { namespaceResourceType } from './namespace.js';
import { rbacResourceTypes } from './rbac.js';
import { secretResourceType } from './secret.js';
import { serviceAccountResourceType } from './service-account.js';

/** Fresh ResourceTypes of the built-in kinds: Namespace, Secret, ConfigMap, Event, ServiceAccount, Lease, CRD, and the RBAC kinds. */
export function builtinResourceTypes(): ResourceType[] {
  return [
    namespaceResourceType(),
    secretResourceType(),
    configMapResourceType(),
    eventResourceType(),
    serviceAccountResourceType(),
    leaseResourceType(),
    crdResourceType(),
    ...rbacResourceTypes(),
  ];
}
