/**
 * HostPathPool: a directory an administrator registers on Conductor's machine, shared by
 * Volume claims. Each bound claim gets `<root>/<namespace>_<name>`; observe measures what
 * each claim's directory holds (status.atProvider) and reports a missing one as a broken
 * share, which the claim controller makes again through bindClaim; released claims' directories are kept (Retain), emptied
 * (Recycle) or removed (Delete). Conductor never creates or removes the root itself.
 */
import { chmod, lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { KObject } from '../../../machinery/object.js';
import type {
  BrokenShare,
  CallOptions,
  ClaimRef,
  ConcreteKind,
  ConnectionDetails,
  Connector,
  ExternalCreation,
  ExternalObservation,
  ExternalUpdate,
  RebindPolicy,
  SharedExternalClient,
} from '../../spi.js';
import { describeResource, instanceDirectoryName } from '../process/instance-names.js';
import { formatVolumeConnection, volumeDetails } from './connection.js';
import { defaultUsageScanLimit, hostPathPoolKind, parseMode, volumeClaim, volumeSecretKeys, type HostPathPool } from './kinds.js';
import { configureHostPathPool, matchHostPathPool } from './matchers.js';
import { measureUsage } from './usage.js';
import { releaseShare } from '../../rebind.js';
import { kindNames } from '../../kind-definition.js';

const describe = (resource: KObject) => describeResource('HostPathPool', resource);

/** claimDirectory is the directory of claim `namespace/name` in a pool rooted at `root`. */
export function claimDirectory(root: string, namespace: string, name: string): string {
  return join(resolve(root), instanceDirectoryName(namespace, name));
}

interface Bound {
  ref: ClaimRef;
  claim: string;
  path: string;
  requested?: string;
}

/** A HostPathPoolClient manages the claims' directories in registered pools. */
export class HostPathPoolClient implements SharedExternalClient<HostPathPool> {
  /** root checks that the pool's root is an existing directory and returns its absolute path. */
  private async root(resource: HostPathPool): Promise<string> {
    const root = resource.spec.root;
    if (!root || !isAbsolute(root)) throw new Error(`${describe(resource)} has spec.root "${root ?? ''}": want an absolute path`);
    let info;
    try {
      info = await stat(root);
    } catch (err) {
      throw new Error(`${describe(resource)}: root ${root} cannot be used: ${(err as Error).message}; want an existing directory`, { cause: err });
    }
    if (!info.isDirectory()) throw new Error(`${describe(resource)}: root ${root} is not a directory: want an existing directory`);
    return resolve(root);
  }

  /** dirOf is a claim's directory, checked to lie directly under the root. */
  private dirOf(root: string, claim: { namespace: string; name: string }): string {
    const dir = claimDirectory(root, claim.namespace, claim.name);
    const rel = relative(root, dir);
    if (rel === '' || rel.startsWith('..') || rel.includes(sep)) throw new Error(`claim directory ${dir} is not directly under ${root}`);
    return dir;
  }

  private bound(root: string, resource: HostPathPool): Bound[] {
    const out: Bound[] = [];
    for (const b of resource.status?.bindings ?? []) {
      const namespace = b.claimRef?.namespace;
      if (!namespace || !b.claimRef.name) continue;
      const requested = b.requests?.storage;
      out.push({
        ref: { namespace, name: b.claimRef.name, ...(b.claimRef.uid ? { uid: b.claimRef.uid } : {}) },
        claim: `${namespace}/${b.claimRef.name}`,
        path: this.dirOf(root, { namespace, name: b.claimRef.name }),
        ...(requested !== undefined ? { requested: String(requested) } : {}),
      });
    }
    return out;
  }

  /** ensureDir makes a claim's directory exist with the pool's mode (only when it makes it). */
  private async ensureDir(resource: HostPathPool, dir: string): Promise<void> {
    const info = await lstat(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (info?.isDirectory()) return;
    if (info) throw new Error(`${dir} exists but is not a directory: want the claim's directory there (remove it by hand)`);
    const mode = parseMode(resource.spec.directoryMode);
    await mkdir(dir, { mode });
    await chmod(dir, mode); // mkdir's mode is cut by the umask
  }

  async observe(resource: HostPathPool, options?: CallOptions): Promise<ExternalObservation> {
    const root = await this.root(resource);
    const limit = resource.spec.usageScanLimit ?? defaultUsageScanLimit;
    const volumes = [];
    const brokenShares: BrokenShare[] = [];
    let usedBytes = 0;
    for (const b of this.bound(root, resource)) {
      const info = await lstat(b.path).catch(() => undefined);
      if (!info?.isDirectory()) {
        brokenShares.push({ claim: b.ref, missing: info ? `directory ${b.path} (a file is in its place)` : `directory ${b.path}` });
        volumes.push({ claim: b.claim, path: b.path, present: false, ...(b.requested ? { requested: b.requested } : {}) });
        continue;
      }
      const usage = await measureUsage(b.path, limit, options?.signal);
      usedBytes += usage.bytes;
      volumes.push({
        claim: b.claim,
        path: b.path,
        present: true,
        usedBytes: usage.bytes,
        files: usage.files,
        complete: usage.complete,
        ...(b.requested ? { requested: b.requested } : {}),
      });
    }
    const atProvider = { root, usedBytes, volumes };
    // Missing claim directories are broken shares: the claim controller makes them again
    // through bindClaim (never update, which could race a release removing one).
    return { exists: true, upToDate: true, atProvider, connectionDetails: { server: volumeDetails(root).server }, brokenShares };
  }

  /** create only verifies the root: the pool is registered. */
  async create(resource: HostPathPool): Promise<ExternalCreation> {
    return { externalName: await this.root(resource) };
  }

  /** update only verifies the root: the claims' directories are made by bindClaim. */
  async update(resource: HostPathPool): Promise<ExternalUpdate> {
    await this.root(resource);
    return {};
  }

  /** delete forgets the pool; its root and the claims' directories stay. */
  async delete(): Promise<void> {}

  async bindClaim(resource: HostPathPool, claim: KObject): Promise<ConnectionDetails> {
    const { namespace, name } = claim.metadata;
    if (!namespace || !name) throw new Error('claim lacks metadata.namespace or metadata.name: want both to name its directory');
    const root = await this.root(resource);
    const dir = this.dirOf(root, { namespace, name });
    try {
      await this.ensureDir(resource, dir);
    } catch (err) {
      throw new Error(`cannot make the directory of claim ${namespace}/${name} in ${describe(resource)}: ${(err as Error).message}`, { cause: err });
    }
    return volumeDetails(dir);
  }

  async unbindClaim(resource: HostPathPool, claim: ClaimRef, policy: RebindPolicy): Promise<void> {
    if (policy === 'Retain') return;
    const root = await this.root(resource);
    const dir = this.dirOf(root, claim);
    const info = await lstat(dir).catch(() => undefined);
    if (!info) return; // nothing left to empty or remove
    await releaseShare(policy, {
      recycle: async () => {
        if (!info.isDirectory()) throw new Error(`cannot empty ${dir} of claim ${claim.namespace}/${claim.name}: it is not a directory`);
        const entries = await readdir(dir);
        for (const entry of entries) await rm(join(dir, entry), { recursive: true, force: true });
      },
      // rm removes a symbolic link itself, never what it points to.
      delete: () => rm(dir, { recursive: true, force: true }),
    });
  }
}

/** The connector needs nothing: the pool is a directory on this machine. */
export const hostPathPoolConnector: Connector<HostPathPool> = {
  async connect(): Promise<HostPathPoolClient> {
    return new HostPathPoolClient();
  },
};

/** The HostPathPool kind: shared, registered, one directory per claim. */
export const hostPathPoolConcreteKind: ConcreteKind<HostPathPool> = {
  ...kindNames(hostPathPoolKind),
  deterministicExternalNames: true,
  implements: [
    {
      claimKind: volumeClaim,
      connectionSecretKeys: volumeSecretKeys,
      match: matchHostPathPool,
      configure: configureHostPathPool,
      formatConnection: formatVolumeConnection,
    },
  ],
  connector: hostPathPoolConnector,
};
