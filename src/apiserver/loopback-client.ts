/**
 * A LoopbackClient is the in-process Client: controllers in the server's process call the
 * REST handlers directly — same authorization, validation and admission as HTTP, no
 * sockets, no serialisation of requests.
 */
import type { KList, KObject } from '../machinery/object.js';
import { errors } from '../machinery/errors.js';
import type {
  Client,
  DeleteOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceRef,
  WatchHandle,
  WatchHandlers,
  WatchOptions,
  WriteOptions,
} from '../client/types.js';
import type { Authorizer } from './authz/types.js';
import { forbiddenMessage } from './authz/types.js';
import type { ResourceRegistry } from './registry/registry.js';
import type { ResourceType } from './registry/resource-type.js';
import type { RequestContext, UserInfo } from './rest/context.js';
import type { RestHandlers } from './rest/handlers.js';
import type { DeleteParams, ListParams, WriteParams } from './rest/params.js';
import { startWatch, type WatchOptions as ServerWatchOptions } from './rest/watch.js';

export class LoopbackClient implements Client {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly rest: RestHandlers,
    private readonly authorizer: Authorizer,
    private readonly user: UserInfo,
    private readonly userAgent = 'conductor-loopback',
    private readonly watchOptions: ServerWatchOptions = {},
  ) {}

  /** A client acting as another identity (e.g. one controller's service account). */
  as(user: UserInfo, userAgent = this.userAgent): LoopbackClient {
    return new LoopbackClient(this.registry, this.rest, this.authorizer, user, userAgent, this.watchOptions);
  }

  private async begin(
    ref: ResourceRef,
    verb: string,
    namespace: string | undefined,
    name: string,
    subresource = '',
  ): Promise<{ rt: ResourceType; ctx: RequestContext }> {
    const rt = this.registry.get(ref.group, ref.version, ref.resource);
    if (!rt) throw errors.pathNotFound(`${ref.group || 'core'}/${ref.version}/${ref.resource}`);
    if (!rt.verbs.includes(verb)) throw errors.methodNotAllowed(rt.refusedVerbMessage ?? `${verb} is not supported on ${rt.resource}`);
    const attrs = {
      user: this.user,
      verb,
      resourceRequest: true,
      group: rt.group,
      version: rt.version,
      resource: rt.resource,
      subresource,
      namespace: namespace ?? '',
      name,
      path: '',
    };
    const d = await this.authorizer.authorize(attrs);
    if (!d.allowed) throw errors.forbidden(forbiddenMessage(attrs, d.reason), { group: rt.group, resource: rt.resource }, name || undefined);
    return { rt, ctx: { user: this.user, userAgent: this.userAgent, warnings: [] } };
  }

  private ns(rt: ResourceType, namespace: string | undefined): string | undefined {
    return rt.namespaced ? namespace : undefined;
  }

  async get<T extends KObject = KObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> {
    const { rt } = await this.begin(ref, 'get', namespace, name);
    return (await this.rest.get(rt, this.ns(rt, namespace), name)).obj() as T;
  }

  async list<T extends KObject = KObject>(ref: ResourceRef, o: ListOptions = {}): Promise<KList<T>> {
    const { rt } = await this.begin(ref, 'list', o.namespace, '');
    const res = await this.rest.list(rt, this.ns(rt, o.namespace), listParams(o));
    return { apiVersion: res.apiVersion, kind: res.kind, metadata: res.metadata, items: res.items.map((i) => i.obj() as T) };
  }

  watch<T extends KObject = KObject>(ref: ResourceRef, o: WatchOptions, h: WatchHandlers<T>): WatchHandle {
    let stopped = false;
    let active: { stop(): void } | undefined;
    const handle: WatchHandle = {
      stop: () => {
        stopped = true;
        active?.stop();
      },
    };
    (async () => {
      const { rt } = await this.begin(ref, 'watch', o.namespace, '');
      active = await startWatch(
        this.rest,
        rt,
        this.ns(rt, o.namespace),
        {
          labelSelector: o.labelSelector ?? '',
          fieldSelector: o.fieldSelector ?? '',
          resourceVersion: o.resourceVersion ?? '',
          resourceVersionMatch: o.sendInitialEvents ? 'NotOlderThan' : '',
          allowWatchBookmarks: o.allowWatchBookmarks ?? false,
          timeoutSeconds: o.timeoutSeconds ?? 0,
          sendInitialEvents: o.sendInitialEvents,
        },
        {
          event: (type, obj) => {
            // Watchers share the event's object; each loopback consumer gets its own copy,
            // unless it promised to only read it.
            if (stopped) return;
            if (type === 'ADDED' && o.skipAdded) {
              const text = obj.heldText();
              if (text !== undefined && o.skipAdded(text)) return;
            }
            h.onEvent({ type, object: (o.readOnly ? obj.obj() : obj.copy()) as T });
          },
          error: (status) => {
            if (!stopped) h.onEvent({ type: 'ERROR', object: status as unknown as T });
          },
          end: () => {
            if (!stopped) {
              stopped = true;
              h.onClose();
            }
          },
        },
        this.watchOptions,
      );
      if (stopped) active.stop();
    })().catch((err: unknown) => {
      if (!stopped) {
        stopped = true;
        h.onClose(err instanceof Error ? err : new Error(String(err)));
      }
    });
    return handle;
  }

  async create<T extends KObject = KObject>(ref: ResourceRef, obj: T, o: WriteOptions = {}): Promise<T> {
    const namespace = obj.metadata?.namespace;
    const { rt, ctx } = await this.begin(ref, 'create', namespace, '');
    return (await this.rest.create(ctx, rt, this.ns(rt, namespace), obj, writeParams(o, this.userAgent))) as T;
  }

  async update<T extends KObject = KObject>(ref: ResourceRef, obj: T, o: WriteOptions = {}): Promise<T> {
    return this.put(ref, obj, '', o);
  }

  async updateStatus<T extends KObject = KObject>(ref: ResourceRef, obj: T, o: WriteOptions = {}): Promise<T> {
    return this.put(ref, obj, 'status', o);
  }

  async updateSubresource<T extends KObject = KObject>(ref: ResourceRef, obj: T, subresource: string, o: WriteOptions = {}): Promise<T> {
    return this.put(ref, obj, subresource, o);
  }

  private async put<T extends KObject>(ref: ResourceRef, obj: T, subresource: string, o: WriteOptions): Promise<T> {
    const { namespace, name } = obj.metadata ?? {};
    if (!name) throw errors.badRequest('metadata.name is required to update an object');
    const { rt, ctx } = await this.begin(ref, 'update', namespace, name, subresource);
    return (await this.rest.update(ctx, rt, this.ns(rt, namespace), name, obj, subresource, writeParams(o, this.userAgent))) as T;
  }

  async patch<T extends KObject = KObject>(ref: ResourceRef, name: string, type: PatchType, patch: unknown, o: PatchOptions = {}): Promise<T> {
    const { rt, ctx } = await this.begin(ref, 'patch', o.namespace, name, o.subresource ?? '');
    const res = await this.rest.patch(ctx, rt, this.ns(rt, o.namespace), name, type, structuredClone(patch), o.subresource ?? '', {
      ...writeParams(o, this.userAgent),
      force: o.force ?? false,
      fieldManagerGiven: !!o.fieldManager,
    });
    return res.obj as T;
  }

  async delete(ref: ResourceRef, name: string, o: DeleteOptions = {}): Promise<KObject> {
    const { rt, ctx } = await this.begin(ref, 'delete', o.namespace, name);
    return (await this.rest.delete(ctx, rt, this.ns(rt, o.namespace), name, deleteParams(o))).obj;
  }

  async deleteCollection(ref: ResourceRef, o: ListOptions & DeleteOptions = {}): Promise<void> {
    const { rt, ctx } = await this.begin(ref, 'deletecollection', o.namespace, '');
    await this.rest.deleteCollection(ctx, rt, this.ns(rt, o.namespace), listParams(o), deleteParams(o));
  }
}

function listParams(o: ListOptions): ListParams {
  return {
    labelSelector: o.labelSelector ?? '',
    fieldSelector: o.fieldSelector ?? '',
    limit: o.limit ?? 0,
    continueToken: o.continue ?? '',
    resourceVersion: o.resourceVersion ?? '',
    resourceVersionMatch: o.resourceVersionMatch ?? '',
  };
}

function writeParams(o: WriteOptions, userAgent: string): WriteParams {
  return { dryRun: o.dryRun ?? false, fieldManager: o.fieldManager ?? userAgent, fieldValidation: o.fieldValidation ?? 'Strict' };
}

function deleteParams(o: DeleteOptions): DeleteParams {
  return {
    dryRun: o.dryRun ?? false,
    propagationPolicy: o.propagationPolicy,
    gracePeriodSeconds: o.gracePeriodSeconds,
    preconditions: o.preconditions ?? {},
  };
}
