/**
 * Table layout for `kubectl get`. The server normally shows NAME first and AGE last around
 * a kind's printer columns; a few kinds differ (Events show LAST SEEN first and the name
 * only in wide output; CRDs show CREATED AT instead of AGE). Printer-column `cell`
 * functions of built-in kinds return the final cell value: the table code shows it as is.
 */
import type { ResourceType } from '../registry/resource-type.js';

/** A TableLayout says which of the server's standard columns surround a kind's printer columns. */
export interface TableLayout {
  /** Whether the server puts a NAME column first. */
  nameColumn: boolean;
  /** Whether the server puts an AGE column (from creationTimestamp) last. */
  ageColumn: boolean;
}

const standardLayout: TableLayout = { nameColumn: true, ageColumn: true };

const layouts: Record<string, TableLayout> = {
  '/Event': { nameColumn: false, ageColumn: false },
  'apiextensions.k8s.io/CustomResourceDefinition': { nameColumn: true, ageColumn: false },
  'rbac.authorization.k8s.io/Role': { nameColumn: true, ageColumn: false },
  'rbac.authorization.k8s.io/ClusterRole': { nameColumn: true, ageColumn: false },
};

/** The layout of a served type's table; CRD-served kinds always use the standard layout. */
export function tableLayoutFor(rt: Pick<ResourceType, 'group' | 'kind' | 'source'>): TableLayout {
  if (rt.source.type !== 'builtin') return { ...standardLayout };
  return { ...(layouts[`${rt.group}/${rt.kind}`] ?? standardLayout) };
}

/**
 * A short human form of a duration in milliseconds, as kubectl shows ages: "45s", "3m20s",
 * "5h", "3d4h", "2y31d". Negative durations within a second read "0s"; more negative "<invalid>".
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.floor(hours / 24);
    return h === 0 ? `${d}d` : `${d}d${h}h`;
  }
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** The age of an RFC 3339 timestamp relative to `now`, or "<unknown>" when there is none. */
export function timestampAge(ts: unknown, now: number = Date.now()): string {
  if (typeof ts !== 'string' || ts === '') return '<unknown>';
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now - t);
}
