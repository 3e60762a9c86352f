/**
 * MemoryDatabases is the memory provider's "external system": a map, in the Conductor
 * process, from external name to a database record. Everything it does is instant and
 * idempotent — ensuring a record that exists updates it in place and keeps its password,
 * removing one that is gone succeeds — so it behaves like a well-mannered cloud API with no
 * latency. Records are immutable snapshots: a change replaces the record, so a caller never
 * sees one change under it. Nothing is persisted; a restarted process starts empty.
 */
import { randomBytes } from 'node:crypto';
import { shareName } from '../share-names.js';

/** A MemoryShare is one claim's own user and database on a Shared MemoryDatabase. */
export interface MemoryShare {
  /** The claim, as `namespace/name`. */
  readonly claim: string;
  readonly claimUid?: string;
  readonly username: string;
  readonly database: string;
  readonly password: string;
  readonly createdAt: string;
  /** How many times the share's data was erased (Recycle). */
  readonly resets: number;
}

/** A MemoryDatabaseRecord is one database as the "external system" holds it. */
export interface MemoryDatabaseRecord {
  /** The external identity: the concrete resource's `namespace/name` unless it was imported under another. */
  readonly externalName: string;
  readonly username: string;
  readonly database: string;
  readonly version?: string;
  readonly port?: number;
  readonly password: string;
  readonly createdAt: string;
  /** How many times its data was erased and its password rotated (Recycle). */
  readonly scrubs: number;
  /** Shared use: the claims' own users and databases, by claim (`namespace/name`). */
  readonly shares: ReadonlyMap<string, MemoryShare>;
}

/** The settings a record is made to have; what `ensure` converges to. */
export interface MemoryDatabaseSettings {
  username: string;
  database: string;
  version?: string;
  port?: number;
}

/** What a claim asks of its share; names are derived from the claim when not given. */
export interface MemoryShareRequest {
  /** The claim as `namespace/name`. */
  claim: string;
  claimUid?: string;
  username?: string;
  database?: string;
  /** A password handed out earlier for this claim: a share made anew keeps it (e.g. after a restart). */
  previousPassword?: string;
}

export interface MemoryDatabasesOptions {
  /** The clock of createdAt; default the system's. */
  now?: () => Date;
  /** Makes a new password; default 24 random URL-safe characters. */
  newPassword?: () => string;
}

/** randomPassword returns 24 URL-safe characters of cryptographic randomness. */
export function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}

const MAX_IDENTIFIER = 63;

/**
 * shareIdentifier derives a user and database name for a claim on a shared database:
 * `<namespace>_<name>_<16 hex>` — lower-case, characters other than [a-z0-9_] as `_`, cut to
 * fit 63 characters — where the hash (64 bits of the exact, length-prefixed namespace and
 * name; providers/share-names.ts) keeps claims whose names read alike once sanitized apart.
 * `claim` is `namespace/name`. A share made earlier keeps its names (shares are found by claim).
 */
export function shareIdentifier(claim: string): string {
  const slash = claim.indexOf('/');
  const parts = slash < 0 ? [claim] : [claim.slice(0, slash), claim.slice(slash + 1)];
  return shareName(parts, MAX_IDENTIFIER, 'identifier');
}

/** A MemoryDatabases holds the records of one memory provider. */
export class MemoryDatabases {
  private readonly records = new Map<string, MemoryDatabaseRecord>();
  private readonly now: () => Date;
  private readonly newPassword: () => string;

  constructor(options: MemoryDatabasesOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.newPassword = options.newPassword ?? randomPassword;
  }

  /** size is how many databases exist. */
  get size(): number {
    return this.records.size;
  }

  /** get returns the record of a database, or undefined when it does not exist. */
  get(externalName: string): MemoryDatabaseRecord | undefined {
    return this.records.get(externalName);
  }

  /** list returns every record, ordered by external name. */
  list(): MemoryDatabaseRecord[] {
    return [...this.records.values()].sort((a, b) => (a.externalName < b.externalName ? -1 : a.externalName > b.externalName ? 1 : 0));
  }

  /**
   * ensure makes the database exist with these settings: a new one gets a new password; an
   * existing one takes the settings and keeps its password, creation time and shares.
   */
  ensure(externalName: string, settings: MemoryDatabaseSettings): MemoryDatabaseRecord {
    const old = this.records.get(externalName);
    const record: MemoryDatabaseRecord = Object.freeze({
      externalName,
      username: settings.username,
      database: settings.database,
      ...(settings.version !== undefined ? { version: settings.version } : {}),
      ...(settings.port !== undefined ? { port: settings.port } : {}),
      password: old?.password ?? this.newPassword(),
      createdAt: old?.createdAt ?? this.timestamp(),
      scrubs: old?.scrubs ?? 0,
      shares: old?.shares ?? new Map<string, MemoryShare>(),
    });
    this.records.set(externalName, record);
    return record;
  }

  /** remove deletes the database; it returns whether it existed (removing what is gone is fine). */
  remove(externalName: string): boolean {
    return this.records.delete(externalName);
  }

  /**
   * scrub erases the database's data and gives it a new password, so the claim that used it
   * cannot reach the next one's data. Scrubbing a database that does not exist does nothing.
   */
  scrub(externalName: string): MemoryDatabaseRecord | undefined {
    const old = this.records.get(externalName);
    if (!old) return undefined;
    return this.replace({ ...old, password: this.newPassword(), scrubs: old.scrubs + 1 });
  }

  /**
   * ensureShare makes the claim's own user and database exist on a shared database and
   * returns the share. An existing share is returned as it is; a new one uses the requested
   * (or derived) names and the previous password when one is given. It throws when the
   * database does not exist, or when another claim's share already uses the names.
   */
  ensureShare(externalName: string, request: MemoryShareRequest): MemoryShare {
    const db = this.records.get(externalName);
    if (!db) throw new Error(`memory database "${externalName}" does not exist: want it created before claims bind to it`);
    const existing = db.shares.get(request.claim);
    if (existing) return existing;
    const username = request.username || shareIdentifier(request.claim);
    const database = request.database || shareIdentifier(request.claim);
    for (const other of db.shares.values()) {
      if (other.username === username)
        throw new Error(
          `memory database "${externalName}": user "${username}" already belongs to claim ${other.claim}; want a user name no other claim on it uses`,
        );
      if (other.database === database)
        throw new Error(
          `memory database "${externalName}": database "${database}" already belongs to claim ${other.claim}; want a database name no other claim on it uses`,
        );
    }
    const share: MemoryShare = Object.freeze({
      claim: request.claim,
      ...(request.claimUid !== undefined ? { claimUid: request.claimUid } : {}),
      username,
      database,
      password: request.previousPassword || this.newPassword(),
      createdAt: this.timestamp(),
      resets: 0,
    });
    const shares = new Map(db.shares);
    shares.set(request.claim, share);
    this.replace({ ...db, shares });
    return share;
  }

  /** resetShare erases a share's data, keeping its user and password; a missing share or database is fine. */
  resetShare(externalName: string, claim: string): void {
    const db = this.records.get(externalName);
    const share = db?.shares.get(claim);
    if (!db || !share) return;
    const shares = new Map(db.shares);
    shares.set(claim, Object.freeze({ ...share, resets: share.resets + 1 }));
    this.replace({ ...db, shares });
  }

  /** removeShare drops a claim's user and database; a missing share or database is fine. */
  removeShare(externalName: string, claim: string): void {
    const db = this.records.get(externalName);
    if (!db || !db.shares.has(claim)) return;
    const shares = new Map(db.shares);
    shares.delete(claim);
    this.replace({ ...db, shares });
  }

  /** clear forgets every database (tests, or a provider that stops). */
  clear(): void {
    this.records.clear();
  }

  private replace(record: MemoryDatabaseRecord): MemoryDatabaseRecord {
    const frozen = Object.freeze(record);
    this.records.set(record.externalName, frozen);
    return frozen;
  }

  private timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }
}
