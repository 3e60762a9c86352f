/**
 * Keeps an RbacIndex current with one informer per RBAC kind (list + watch through a
 * client, normally the server's loopback client).
 */
import { dropUnreadFields, Informer, resourceRef, type Client, type Logger, type ResourceRef } from '../../client/index.js';
import type { KObject } from '../../machinery/object.js';
import { RBAC_GROUP, type RbacIndex, type RbacKind } from './rbac-index.js';

/** The resources of the RBAC kinds. */
export const rbacRefs: Record<RbacKind, ResourceRef> = {
  Role: resourceRef(`${RBAC_GROUP}/v1`, 'Role', 'roles', true),
  ClusterRole: resourceRef(`${RBAC_GROUP}/v1`, 'ClusterRole', 'clusterroles', false),
  RoleBinding: resourceRef(`${RBAC_GROUP}/v1`, 'RoleBinding', 'rolebindings', true),
  ClusterRoleBinding: resourceRef(`${RBAC_GROUP}/v1`, 'ClusterRoleBinding', 'clusterrolebindings', false),
};

/** Running RBAC informers. */
export interface RbacInformers {
  stop(): void;
}

/**
 * Starts the informers feeding `index` and resolves once all of them have listed, so the
 * first decisions already see every stored object.
 */
export async function startRbacInformers(client: Client, index: RbacIndex, opts: { logger?: Logger; signal?: AbortSignal } = {}): Promise<RbacInformers> {
  const informers: Informer[] = [];
  for (const kind of Object.keys(rbacRefs) as RbacKind[]) {
    const inf = new Informer(client, rbacRefs[kind], { logger: opts.logger, transform: dropUnreadFields });
    inf.addHandler({
      onAdd: (o: KObject) => index.set(kind, o),
      onUpdate: (_old: KObject, o: KObject) => index.set(kind, o),
      onDelete: (o: KObject) => index.remove(kind, o),
    });
    informers.push(inf.start());
  }
  const stop = () => informers.forEach((i) => i.stop());
  const synced = await Promise.all(informers.map((i) => i.waitForSync(opts.signal)));
  if (!synced.every(Boolean)) {
    stop();
    throw new Error('cannot start RBAC informers: they stopped before listing every RBAC object');
  }
  return { stop };
}
