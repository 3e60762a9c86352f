/**
 * Test support (never shipped): a fake of the Cloud SQL Admin API v1 over REST
 * (sqladmin.googleapis.com/v1), as much as CloudSQLInstance uses, with the documented state
 * machine: an inserted instance is PENDING_CREATE for `creatingLooks` reads, then RUNNABLE
 * (with a PRIMARY address); a patched one is MAINTENANCE for one read; a deleted one is
 * PENDING_DELETE for one read, then gone. Errors as Google answers them: an id taken → 409
 * ALREADY_EXISTS; an unknown region, tier or version → 400 INVALID_ARGUMENT; a database or
 * user call on an instance that is not RUNNABLE → 409 (invalidState); faults (429
 * RESOURCE_EXHAUSTED, …) injected with `fail`. Calls answer operations (`sql#operation`).
 */
import { FAKE_REGIONS, FakeHttpApi, googleError, json, parsed, type Reply, type SeenRequest } from './fake-gcp-http.js';

export interface FakeSqlInstance {
  body: Record<string, any>;
  state: string;
  looks: number;
  databases: Map<string, Record<string, any>>;
  users: Map<string, Record<string, any>>;
}

const TIER = /^db-(f1-micro|g1-small|custom-\d+-\d+)$/;
let operations = 0;
const operation = (project: string, instance: string, type: string) =>
  json({ kind: 'sql#operation', name: `op-${++operations}`, status: 'PENDING', operationType: type, targetId: instance, targetProject: project });

/** A FakeCloudSql is a running fake of the Cloud SQL Admin API. */
export class FakeCloudSql extends FakeHttpApi {
  readonly instances = new Map<string, FakeSqlInstance>();
  /** How many reads an instance stays PENDING_CREATE. */
  creatingLooks = 2;

  constructor() {
    super((req) => this.serve(req));
  }

  private instanceView(project: string, i: FakeSqlInstance): Record<string, any> {
    return {
      ...i.body,
      kind: 'sql#instance',
      project,
      state: i.state,
      connectionName: `${project}:${i.body.region}:${i.body.name}`,
      ...(i.state === 'RUNNABLE' || i.state === 'MAINTENANCE' ? { ipAddresses: [{ type: 'PRIMARY', ipAddress: '127.0.0.1' }] } : {}),
    };
  }

  private read(project: string, id: string): Reply {
    const i = this.instances.get(id);
    if (!i) return googleError(404, 'NOT_FOUND', 'The Cloud SQL instance does not exist.', 'instanceDoesNotExist');
    i.looks++;
    const view = this.instanceView(project, i);
    if (i.state === 'PENDING_CREATE' && i.looks >= this.creatingLooks) i.state = 'RUNNABLE';
    else if (i.state === 'MAINTENANCE') i.state = 'RUNNABLE';
    else if (i.state === 'PENDING_DELETE') this.instances.delete(id);
    return json(view);
  }

  private serve(req: SeenRequest): Reply | undefined {
    const m = /^\/v1\/projects\/([^/]+)\/instances(?:\/([^/]+))?(?:\/(databases|users)(?:\/([^/]+))?)?$/.exec(req.path);
    if (!m) return undefined;
    const [, project, id, sub, subName] = m;
    if (!id) {
      if (req.method !== 'POST') return undefined;
      const body = parsed(req);
      if (typeof body.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(body.name))
        return googleError(400, 'INVALID_ARGUMENT', 'Invalid request: instance name.', 'invalid');
      if (!FAKE_REGIONS.has(body.region))
        return googleError(400, 'INVALID_ARGUMENT', `Invalid request: region (${String(body.region)}) is not valid.`, 'invalid');
      if (!TIER.test(body.settings?.tier ?? '')) return googleError(400, 'INVALID_ARGUMENT', 'Invalid request: Invalid Tier for database version.', 'invalid');
      if (this.instances.has(body.name)) return googleError(409, 'ALREADY_EXISTS', 'The Cloud SQL instance already exists.', 'instanceAlreadyExists');
      this.instances.set(body.name, { body, state: 'PENDING_CREATE', looks: 0, databases: new Map(), users: new Map() });
      return operation(project, body.name, 'CREATE');
    }
    const instance = this.instances.get(id);
    if (!sub) {
      if (req.method === 'GET') return this.read(project, id);
      if (!instance) return googleError(404, 'NOT_FOUND', 'The Cloud SQL instance does not exist.', 'instanceDoesNotExist');
      if (req.method === 'DELETE') {
        instance.state = 'PENDING_DELETE';
        return operation(project, id, 'DELETE');
      }
      if (req.method === 'PATCH') {
        if (instance.state !== 'RUNNABLE')
          return googleError(409, 'FAILED_PRECONDITION', 'Operation failed because another operation was already in progress.', 'operationInProgress');
        const body = parsed(req);
        if (body.settings?.tier !== undefined && !TIER.test(body.settings.tier))
          return googleError(400, 'INVALID_ARGUMENT', 'Invalid request: Invalid Tier.', 'invalid');
        instance.body.settings = { ...instance.body.settings, ...body.settings };
        instance.state = 'MAINTENANCE';
        return operation(project, id, 'UPDATE');
      }
      return undefined;
    }
    if (!instance) return googleError(404, 'NOT_FOUND', 'The Cloud SQL instance does not exist.', 'instanceDoesNotExist');
    const things = sub === 'databases' ? instance.databases : instance.users;
    if (req.method === 'GET' && subName) {
      const thing = things.get(subName);
      if (!thing) return googleError(404, 'NOT_FOUND', `The ${sub === 'databases' ? 'database' : 'user'} does not exist.`, 'notFound');
      const { password: _password, ...shown } = thing;
      return json({ ...shown, instance: id, project });
    }
    if (req.method === 'POST' && !subName) {
      if (instance.state !== 'RUNNABLE')
        return googleError(409, 'FAILED_PRECONDITION', 'The instance or operation is not in an appropriate state to handle the request.', 'invalidState');
      const body = parsed(req);
      if (things.has(body.name)) return googleError(409, 'ALREADY_EXISTS', `The ${sub === 'databases' ? 'database' : 'user'} already exists.`, 'alreadyExists');
      things.set(body.name, body);
      return operation(project, id, sub === 'databases' ? 'CREATE_DATABASE' : 'CREATE_USER');
    }
    return undefined;
  }
}

/** startFakeCloudSql starts the fake on a free port. */
export function startFakeCloudSql(): Promise<FakeCloudSql> {
  return new FakeCloudSql().start();
}
