import type { Statement } from 'better-sqlite3';
import type { KeyValue } from '../types.js';
import type { Db } from './schema.js';

/** A CurrentRow is the live state of one key. */
export interface CurrentRow {
  value: string;
  createRevision: number;
  modRevision: number;
}

/** A HistoryRow is one log row with the value it replaced (when still retained). */
export interface HistoryRow {
  rev: number;
  key: string;
  deleted: 0 | 1;
  createRev: number;
  prevRev: number;
  value: string | null;
  prevValue: string | null;
  prevCreateRev: number | null;
}

type Bound = string | Buffer;
type MetaName = 'revision' | 'compacted' | 'compact_progress';

/**
 * Statements holds every statement the store runs, prepared once. List statements come in
 * pairs: `...From` starts at the prefix (inclusive), `...After` strictly after a key.
 */
export class Statements {
  readonly current: Statement<[string], CurrentRow>;
  readonly insertLog: Statement<[number, string, 0 | 1, number, number, string | null]>;
  readonly insertKv: Statement<[string, number, number]>;
  readonly updateKv: Statement<[number, string]>;
  readonly deleteKv: Statement<[string]>;
  readonly getMeta: Statement<[MetaName], number>;
  readonly setMeta: Statement<[number, MetaName]>;
  readonly insertRevTime: Statement<[number, number]>;
  readonly revisionAtOrBefore: Statement<[number], number>;

  /** (lower, upper, limit) — limit -1 means all. */
  readonly listLatestFrom: Statement<[string, Bound, number], KeyValue>;
  readonly listLatestAfter: Statement<[string, Bound, number], KeyValue>;
  /** (lower, upper, revision, limit). */
  readonly listAtFrom: Statement<[string, Bound, number, number], KeyValue>;
  readonly listAtAfter: Statement<[string, Bound, number, number], KeyValue>;
  /** (lower, upper). */
  readonly countLatestFrom: Statement<[string, Bound], number>;
  readonly countLatestAfter: Statement<[string, Bound], number>;
  /** (after, upper, revision). */
  readonly countAtAfter: Statement<[string, Bound, number], number>;

  /** (afterRev, upToRev, lower, upper). */
  readonly history: Statement<[number, number, string, Bound, number], HistoryRow>;

  /** (afterRev, upToRev): removes the rows that revisions in the range superseded. */
  readonly deleteSuperseded: Statement<[number, number]>;
  /** (afterRev, upToRev): removes the tombstones in the range. */
  readonly deleteTombstones: Statement<[number, number]>;
  readonly pruneRevTime: Statement<[number]>;

  constructor(db: Db) {
    this.current = db.prepare(
      `SELECT l.value AS value, k.create_rev AS createRevision, k.mod_rev AS modRevision
       FROM kv k JOIN log l ON l.rev = k.mod_rev WHERE k.key = ?`,
    );
    this.insertLog = db.prepare(`INSERT INTO log (rev, key, deleted, create_rev, prev_rev, value) VALUES (?, ?, ?, ?, ?, ?)`);
    this.insertKv = db.prepare(`INSERT INTO kv (key, create_rev, mod_rev) VALUES (?, ?, ?)`);
    this.updateKv = db.prepare(`UPDATE kv SET mod_rev = ? WHERE key = ?`);
    this.deleteKv = db.prepare(`DELETE FROM kv WHERE key = ?`);
    this.getMeta = db.prepare<[MetaName], number>(`SELECT value FROM meta WHERE name = ?`).pluck();
    this.setMeta = db.prepare(`UPDATE meta SET value = ? WHERE name = ?`);
    this.insertRevTime = db.prepare(`INSERT OR REPLACE INTO rev_time (rev, at_ms) VALUES (?, ?)`);
    this.revisionAtOrBefore = db.prepare<[number], number>(`SELECT rev FROM rev_time WHERE at_ms <= ? ORDER BY at_ms DESC, rev DESC LIMIT 1`).pluck();

    const latest = (op: '>=' | '>') =>
      db.prepare<[string, Bound, number], KeyValue>(
        `SELECT k.key AS key, l.value AS value, k.create_rev AS createRevision, k.mod_rev AS modRevision
         FROM kv k JOIN log l ON l.rev = k.mod_rev
         WHERE k.key ${op} ? AND k.key < ? ORDER BY k.key LIMIT ?`,
      );
    this.listLatestFrom = latest('>=');
    this.listLatestAfter = latest('>');
    // The newest row of each key at or below the revision, skipping tombstones. The inner
    // ORDER BY lets SQLite stream the groups in key order instead of sorting them.
    const at = (op: '>=' | '>') =>
      db.prepare<[string, Bound, number, number], KeyValue>(
        `SELECT l.key AS key, l.value AS value, l.create_rev AS createRevision, l.rev AS modRevision
         FROM (SELECT key, MAX(rev) AS rev FROM log WHERE key ${op} ? AND key < ? AND rev <= ?
               GROUP BY key ORDER BY key) g
         JOIN log l ON l.rev = g.rev
         WHERE l.deleted = 0 ORDER BY g.key LIMIT ?`,
      );
    this.listAtFrom = at('>=');
    this.listAtAfter = at('>');
    const countLatest = (op: '>=' | '>') => db.prepare<[string, Bound], number>(`SELECT COUNT(*) FROM kv WHERE key ${op} ? AND key < ?`).pluck();
    this.countLatestFrom = countLatest('>=');
    this.countLatestAfter = countLatest('>');
    this.countAtAfter = db
      .prepare<[string, Bound, number], number>(
        `SELECT COUNT(*) FROM (SELECT MAX(rev) AS rev FROM log WHERE key > ? AND key < ? AND rev <= ? GROUP BY key) g
         JOIN log l ON l.rev = g.rev WHERE l.deleted = 0`,
      )
      .pluck();

    this.history = db.prepare(
      `SELECT l.rev AS rev, l.key AS key, l.deleted AS deleted, l.create_rev AS createRev,
              l.prev_rev AS prevRev, l.value AS value, p.value AS prevValue, p.create_rev AS prevCreateRev
       FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
       WHERE l.rev > ? AND l.rev <= ? AND l.key >= ? AND l.key < ?
       ORDER BY l.rev LIMIT ?`,
    );

    this.deleteSuperseded = db.prepare(`DELETE FROM log WHERE rev IN (SELECT prev_rev FROM log WHERE rev > ? AND rev <= ? AND prev_rev > 0)`);
    this.deleteTombstones = db.prepare(`DELETE FROM log WHERE rev > ? AND rev <= ? AND deleted = 1`);
    this.pruneRevTime = db.prepare(`DELETE FROM rev_time WHERE rev < ?`);
  }
}
