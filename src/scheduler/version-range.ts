/**
 * Versions as administrators and developers write them: claims ask for a semver range
 * (`>= 5.6`, `5.7`, `15`, `^8.0`) and resources state loose versions (`5.7`, a YAML number
 * 5.9, `MYSQL_5_7`, `POSTGRES_15`, `8.0.35-log`), which are coerced to full versions.
 * Parsed values are cached: matchers run once per candidate.
 */
import semver from 'semver';

const CACHE_LIMIT = 4096;
const versions = new Map<string, semver.SemVer | null>();
const ranges = new Map<string, semver.Range | null>();

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

/** versionText turns a version field (string or YAML number) into text, or undefined when absent or blank. */
export function versionText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return undefined;
}

/**
 * coerceVersion reads a loose version: the first `major[.minor[.patch]]` in the text, with
 * `_` accepted as the separator (`MYSQL_5_7` is 5.7.0, `15` is 15.0.0). Undefined when the
 * text holds no version.
 */
export function coerceVersion(value: unknown): semver.SemVer | undefined {
  const text = versionText(value);
  if (text === undefined) return undefined;
  const hit = versions.get(text);
  if (hit !== undefined) return hit ?? undefined;
  const v = semver.coerce(text.replace(/_/g, '.'), { loose: true });
  return remember(versions, text, v) ?? undefined;
}

/**
 * parseVersionRange reads a range the way npm does, loosely: `>= 5.6`, `5.7` (any 5.7.x),
 * `15` (any 15.x), `^8.0`, `>=5.6 <8 || 9`. Undefined when it is not a range.
 */
export function parseVersionRange(value: unknown): semver.Range | undefined {
  const text = versionText(value);
  if (text === undefined) return undefined;
  const hit = ranges.get(text);
  if (hit !== undefined) return hit ?? undefined;
  let r: semver.Range | null;
  try {
    r = new semver.Range(text, { loose: true });
  } catch {
    r = null;
  }
  return remember(ranges, text, r) ?? undefined;
}

/** versionInRange says whether a loose version satisfies a range; undefined when either cannot be read. */
export function versionInRange(version: unknown, range: unknown): boolean | undefined {
  const v = coerceVersion(version);
  const r = parseVersionRange(range);
  if (v === undefined || r === undefined) return undefined;
  return r.test(v);
}
