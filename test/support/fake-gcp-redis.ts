/**
 * Test support (never shipped): a fake of the Memorystore for Redis API v1 over REST
 * (redis.googleapis.com/v1), as much as MemorystoreInstance uses, with the documented state
 * machine: a created instance is CREATING for `creatingLooks` reads, then READY (host and port:
 * by default 127.0.0.1 and `redisPort`, so a test may put a real redis-server there); a
 * patched one is UPDATING for one read; a deleted one DELETING for one read, then gone. Errors
 * as Google answers them: an id taken → 409 ALREADY_EXISTS; an unknown location, a tier or size
 * not offered → 400 INVALID_ARGUMENT; faults injected with `fail`. Calls answer long-running
 * operations (`projects/…/locations/…/operations/…`).
 */
import { FAKE_REGIONS, FakeHttpApi, googleError, json, parsed, type Reply, type SeenRequest } from './fake-gcp-http.js';

export interface FakeRedisInstance {
  body: Record<string, any>;
  state: string;
  looks: number;
  authString: string;
}

let operations = 0;

/** A FakeMemorystore is a running fake of the Memorystore for Redis API. */
export class FakeMemorystore extends FakeHttpApi {
  /** By full name: projects/P/locations/L/instances/I. */
  readonly instances = new Map<string, FakeRedisInstance>();
  creatingLooks = 2;
  /** The port READY instances report (a test may run a real Redis there). */
  redisPort = 6379;
  /** The AUTH string new instances get when authEnabled. */
  nextAuthString = 'fake-auth-string-0001';

  constructor() {
    super((req) => this.serve(req));
  }

  private operation(parent: string, verb: string, target: string): Reply {
    return json({
      name: `${parent}/operations/operation-${++operations}`,
      done: false,
      metadata: { '@type': 'type.googleapis.com/google.cloud.redis.v1.OperationMetadata', verb, target },
    });
  }

  private serve(req: SeenRequest): Reply | undefined {
    const m = /^\/v1\/(projects\/[^/]+\/locations\/([^/]+))\/instances(?:\/([^/:]+))?(\/authString)?$/.exec(req.path);
    if (!m) return undefined;
    const [, parent, location, id, auth] = m;
    if (!FAKE_REGIONS.has(location)) return googleError(400, 'INVALID_ARGUMENT', `Location ${location} is not found or access is unauthorized.`, 'badRequest');
    if (!id) {
      if (req.method !== 'POST') return undefined;
      const instanceId = req.query.get('instanceId') ?? '';
      const body = parsed(req);
      const name = `${parent}/instances/${instanceId}`;
      const tier = body.tier === 1 || body.tier === 'BASIC' ? 'BASIC' : body.tier === 3 || body.tier === 'STANDARD_HA' ? 'STANDARD_HA' : undefined;
      if (!tier) return googleError(400, 'INVALID_ARGUMENT', 'Invalid value at instance.tier.', 'badRequest');
      const size = Number(body.memorySizeGb);
      if (!Number.isInteger(size) || size < 1 || size > 300)
        return googleError(400, 'INVALID_ARGUMENT', `memory_size_gb must be between 1 and 300, got ${String(body.memorySizeGb)}.`, 'badRequest');
      if (this.instances.has(name)) return googleError(409, 'ALREADY_EXISTS', `Resource '${name}' already exists.`, 'alreadyExists');
      this.instances.set(name, { body: { ...body, tier, memorySizeGb: size }, state: 'CREATING', looks: 0, authString: this.nextAuthString });
      return this.operation(parent, 'create', name);
    }
    const name = `${parent}/instances/${id}`;
    const instance = this.instances.get(name);
    if (!instance) return googleError(404, 'NOT_FOUND', `Resource '${name}' was not found`, 'notFound');
    if (auth) {
      if (req.method !== 'GET') return undefined;
      return json(instance.body.authEnabled ? { authString: instance.authString } : {});
    }
    if (req.method === 'GET') {
      instance.looks++;
      const ready = instance.state !== 'CREATING';
      const view = {
        ...instance.body,
        name,
        locationId: `${location}-a`,
        state: instance.state,
        ...(ready ? { host: '127.0.0.1', port: this.redisPort } : {}),
        transitEncryptionMode:
          instance.body.transitEncryptionMode === 1 || instance.body.transitEncryptionMode === 'SERVER_AUTHENTICATION' ? 'SERVER_AUTHENTICATION' : 'DISABLED',
      };
      if (instance.state === 'CREATING' && instance.looks >= this.creatingLooks) instance.state = 'READY';
      else if (instance.state === 'UPDATING') instance.state = 'READY';
      else if (instance.state === 'DELETING') this.instances.delete(name);
      return json(view);
    }
    if (req.method === 'DELETE') {
      instance.state = 'DELETING';
      return this.operation(parent, 'delete', name);
    }
    if (req.method === 'PATCH') {
      if (instance.state !== 'READY') return googleError(400, 'FAILED_PRECONDITION', 'The instance is not ready.', 'failedPrecondition');
      const body = parsed(req);
      const mask = (req.query.get('updateMask') ?? '').split(',').filter((f) => f !== '');
      for (const field of mask) {
        const key = field.replace(/_([a-z])/g, (_m: string, c: string) => c.toUpperCase());
        instance.body[key] = key === 'memorySizeGb' ? Number(body[key]) : body[key];
      }
      instance.state = 'UPDATING';
      return this.operation(parent, 'update', name);
    }
    return undefined;
  }
}

/** startFakeMemorystore starts the fake on a free port. */
export function startFakeMemorystore(): Promise<FakeMemorystore> {
  return new FakeMemorystore().start();
}
