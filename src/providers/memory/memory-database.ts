/**
 * MemoryDatabase: the memory provider's concrete kind. Its external client turns each
 * resource into a record of a MemoryDatabases map — create, observe, update and delete are
 * instant and idempotent — and synthesizes connection details (host `memory.invalid`, the
 * resource's user, database and port, and a random password kept in the record). Exclusive
 * resources serve one claim; Shared ones give each claim its own user, database and password.
 */
import type { KObject } from '../../machinery/object.js';
import {
  silentProviderLogger,
  type ClaimRef,
  type ConcreteKind,
  type ConnectionDetails,
  type DiscoveredResource,
  type ExternalCreation,
  type ExternalObservation,
  type ExternalUpdate,
  type ProviderLogger,
  type RebindPolicy,
  type SharedExternalClient,
} from '../spi.js';
import { sqlConnectionFormatter } from './connection.js';
import {
  claimSpec,
  defaultDatabase,
  defaultUsername,
  memoryDatabaseKind,
  memoryHost,
  mysqlClaimKind,
  nonEmpty,
  postgresqlClaimKind,
  specOf,
  sqlSecretKeys,
  type MemoryDatabase,
} from './kinds.js';
import { configureMemoryDatabase, matchMemoryDatabase } from './matchers.js';
import type { MemoryDatabaseRecord, MemoryDatabases, MemoryDatabaseSettings, MemoryShare } from './memory-databases.js';
import { releaseShare } from '../rebind.js';
import { kindNames } from '../kind-definition.js';

const EXTERNAL_NAME_ANNOTATION = 'conductor.io/external-name';

/**
 * externalNameOf is the record a resource stands for: its `conductor.io/external-name`
 * annotation when set (an imported database), else `<namespace>/<name>`.
 */
export function externalNameOf(resource: KObject): string {
  const annotated = resource.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  if (annotated) return annotated;
  const { namespace, name } = resource.metadata;
  if (!name) throw new Error('MemoryDatabase lacks metadata.name: want a name to key its record by');
  return `${namespace ?? ''}/${name}`;
}

/** desiredSettings reads what a resource's record should hold from its spec. */
export function desiredSettings(resource: KObject): MemoryDatabaseSettings {
  const spec = specOf(resource);
  const version = nonEmpty(spec.version);
  const port = typeof spec.port === 'number' && Number.isInteger(spec.port) ? spec.port : undefined;
  return {
    username: nonEmpty(spec.masterUsername) ?? defaultUsername,
    database: nonEmpty(spec.databaseName) ?? defaultDatabase,
    ...(version !== undefined ? { version } : {}),
    ...(port !== undefined ? { port } : {}),
  };
}

/** drift lists how a record differs from the settings, or returns undefined when it does not. */
export function drift(record: MemoryDatabaseRecord, want: MemoryDatabaseSettings): string | undefined {
  const differences: string[] = [];
  const show = (v: string | number | undefined) => (v === undefined ? 'unset' : JSON.stringify(v));
  if (record.username !== want.username) differences.push(`user is ${show(record.username)}, spec wants ${show(want.username)}`);
  if (record.database !== want.database) differences.push(`database is ${show(record.database)}, spec wants ${show(want.database)}`);
  if (record.version !== want.version) differences.push(`version is ${show(record.version)}, spec wants ${show(want.version)}`);
  if (record.port !== want.port) differences.push(`port is ${show(record.port)}, spec wants ${show(want.port)}`);
  return differences.length > 0 ? differences.join('; ') : undefined;
}

function endpoint(record: MemoryDatabaseRecord, who: { username: string; database: string; password: string }): ConnectionDetails {
  return {
    host: memoryHost,
    ...(record.port !== undefined ? { port: String(record.port) } : {}),
    username: who.username,
    password: who.password,
    database: who.database,
  };
}

/** connectionDetailsOf are a record's raw details: engine-neutral, port only when the spec sets one. */
export function connectionDetailsOf(record: MemoryDatabaseRecord): ConnectionDetails {
  return endpoint(record, record);
}

function shareDetails(record: MemoryDatabaseRecord, share: MemoryShare): ConnectionDetails {
  return endpoint(record, share);
}

function atProviderOf(record: MemoryDatabaseRecord) {
  return {
    externalName: record.externalName,
    host: memoryHost,
    username: record.username,
    database: record.database,
    ...(record.version !== undefined ? { version: record.version } : {}),
    ...(record.port !== undefined ? { port: record.port } : {}),
    createdAt: record.createdAt,
    scrubs: record.scrubs,
    shares: record.shares.size,
  };
}

function describe(resource: KObject): string {
  return `MemoryDatabase ${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
}

/** A MemoryDatabaseClient is the external client of every MemoryDatabase of one provider. */
export class MemoryDatabaseClient implements SharedExternalClient<MemoryDatabase> {
  constructor(
    readonly databases: MemoryDatabases,
    private readonly log: ProviderLogger = silentProviderLogger,
  ) {}

  async observe(resource: MemoryDatabase): Promise<ExternalObservation> {
    const record = this.databases.get(externalNameOf(resource));
    if (!record) return { exists: false, upToDate: false };
    const difference = drift(record, desiredSettings(resource));
    const atProvider = atProviderOf(record);
    if (difference) return { exists: true, upToDate: false, atProvider, drift: difference };
    return { exists: true, upToDate: true, atProvider, connectionDetails: connectionDetailsOf(record) };
  }

  async create(resource: MemoryDatabase): Promise<ExternalCreation> {
    const externalName = externalNameOf(resource);
    const record = this.databases.ensure(externalName, desiredSettings(resource));
    this.log.debug(
      { kind: memoryDatabaseKind.kind, namespace: resource.metadata.namespace, name: resource.metadata.name, externalName },
      'memory database created',
    );
    return { externalName, connectionDetails: connectionDetailsOf(record) };
  }

  async update(resource: MemoryDatabase): Promise<ExternalUpdate> {
    const record = this.databases.ensure(externalNameOf(resource), desiredSettings(resource));
    return { connectionDetails: connectionDetailsOf(record) };
  }

  async delete(resource: MemoryDatabase): Promise<void> {
    const externalName = externalNameOf(resource);
    if (this.databases.remove(externalName)) {
      this.log.debug(
        { kind: memoryDatabaseKind.kind, namespace: resource.metadata.namespace, name: resource.metadata.name, externalName },
        'memory database deleted',
      );
    }
  }

  /** scrub erases the data and rotates the password; a database that does not exist holds no data to erase. */
  async scrub(resource: MemoryDatabase): Promise<void> {
    this.databases.scrub(externalNameOf(resource));
  }

  async discover(): Promise<DiscoveredResource[]> {
    return this.databases.list().map((r) => {
      const slash = r.externalName.indexOf('/');
      const namespace = slash > 0 ? r.externalName.slice(0, slash) : undefined;
      const name = slash >= 0 ? r.externalName.slice(slash + 1) : r.externalName;
      return {
        externalName: r.externalName,
        ...(namespace !== undefined ? { namespace } : {}),
        name,
        spec: {
          masterUsername: r.username,
          databaseName: r.database,
          ...(r.version !== undefined ? { version: r.version } : {}),
          ...(r.port !== undefined ? { port: r.port } : {}),
        },
        atProvider: atProviderOf(r),
      };
    });
  }

  /**
   * bindClaim gives the claim its own user and database on a Shared MemoryDatabase: the
   * claim's masterUsername and databaseName when it sets them, else
   * `<namespace>_<name>_<hash>` (shareIdentifier). A repeated bind returns the same details;
   * a share made anew (after a restart) keeps the password published before.
   */
  async bindClaim(resource: MemoryDatabase, claim: KObject, previous?: ConnectionDetails): Promise<ConnectionDetails> {
    const externalName = externalNameOf(resource);
    const record = this.databases.get(externalName);
    if (!record) throw new Error(`cannot bind a claim to ${describe(resource)}: its database does not exist yet`);
    const wanted = claimSpec(claim);
    const share = this.databases.ensureShare(externalName, {
      claim: `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`,
      ...(claim.metadata.uid !== undefined ? { claimUid: claim.metadata.uid } : {}),
      ...(nonEmpty(wanted.masterUsername) ? { username: wanted.masterUsername } : {}),
      ...(nonEmpty(wanted.databaseName) ? { database: wanted.databaseName } : {}),
      ...(nonEmpty(previous?.password) ? { previousPassword: previous!.password } : {}),
    });
    return shareDetails(this.databases.get(externalName)!, share);
  }

  /** unbindClaim applies the rebind policy to the claim's share: Retain keeps it, Recycle erases its data, Delete removes it. */
  async unbindClaim(resource: MemoryDatabase, claim: ClaimRef, policy: RebindPolicy): Promise<void> {
    const externalName = externalNameOf(resource);
    const key = `${claim.namespace}/${claim.name}`;
    await releaseShare(policy, {
      recycle: () => this.databases.resetShare(externalName, key),
      delete: () => this.databases.removeShare(externalName, key),
    });
  }
}

/** memoryDatabaseConcreteKind builds the MemoryDatabase kind around a provider's records. */
export function memoryDatabaseConcreteKind(databases: MemoryDatabases, log: ProviderLogger = silentProviderLogger): ConcreteKind<MemoryDatabase> {
  // The client holds no per-resource state, so one serves every resource.
  const client = new MemoryDatabaseClient(databases, log);
  return {
    ...kindNames(memoryDatabaseKind),
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: postgresqlClaimKind,
        connectionSecretKeys: sqlSecretKeys,
        match: matchMemoryDatabase,
        configure: configureMemoryDatabase,
        formatConnection: sqlConnectionFormatter('postgresql'),
      },
      {
        claimKind: mysqlClaimKind,
        connectionSecretKeys: sqlSecretKeys,
        match: matchMemoryDatabase,
        configure: configureMemoryDatabase,
        formatConnection: sqlConnectionFormatter('mysql'),
      },
    ],
    connector: {
      async connect() {
        return client;
      },
    },
  };
}
