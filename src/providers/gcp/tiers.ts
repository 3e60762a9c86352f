/**
 * The machine tiers Cloud SQL offers (Enterprise edition): the shared-core `db-f1-micro` and
 * `db-g1-small` (MySQL and PostgreSQL), and `db-custom-<vCPUs>-<memory MiB>` — 1 vCPU or an
 * even number up to 96, 0.9 to 6.5 GiB of memory per vCPU, memory a multiple of 256 MiB and at
 * least 3840 MiB. A tier outside these is refused before Google is asked.
 */

/** The schema pattern of a tier (the finer rules are checked by cloudSqlTierOf). */
export const CLOUD_SQL_TIER_PATTERN = '^db-(f1-micro|g1-small|custom-[0-9]{1,2}-[0-9]{3,6})$';

export type CloudSqlTier = { shared: 'db-f1-micro' | 'db-g1-small' } | { shared?: undefined; vcpus: number; memoryGb: number };

/** cloudSqlTierOf reads a tier name, or says why Cloud SQL does not offer it. */
export function cloudSqlTierOf(tier: string): CloudSqlTier | { problem: string } {
  if (tier === 'db-f1-micro' || tier === 'db-g1-small') return { shared: tier };
  const m = /^db-custom-(\d{1,2})-(\d{3,6})$/.exec(tier);
  if (!m) return { problem: `tier "${tier}" is not a Cloud SQL tier: want db-f1-micro, db-g1-small or db-custom-<vCPUs>-<memory MiB> (e.g. db-custom-2-7680)` };
  const vcpus = Number(m[1]);
  const mib = Number(m[2]);
  if (vcpus < 1 || vcpus > 96 || (vcpus > 1 && vcpus % 2 !== 0)) return { problem: `tier "${tier}": Cloud SQL offers 1 vCPU or an even number up to 96` };
  if (mib % 256 !== 0 || mib < 3840) return { problem: `tier "${tier}": memory must be a multiple of 256 MiB and at least 3840 MiB` };
  const perVcpu = mib / 1024 / vcpus;
  if (perVcpu < 0.9 || perVcpu > 6.5) return { problem: `tier "${tier}": memory must be 0.9 to 6.5 GiB per vCPU (this is ${perVcpu.toFixed(2)})` };
  return { vcpus, memoryGb: mib / 1024 };
}
