import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { SHARE_HASH_LENGTH, claimShareName, shareName, sharePartsHash } from './share-names.js';
import { claimIdentifier as pgIdentifier, legacyClaimIdentifier as pgLegacy, recordedIdentifier as pgRecorded } from './local/postgresql/names.js';
import { claimIdentifier as mysqlIdentifier, legacyClaimIdentifier as mysqlLegacy, maxUserLength } from './local/mysql/names.js';
import { bucketName, bucketNameProblem, legacyBucketName } from './local/s3/names.js';
import { shareIdentifier } from './memory/memory-databases.js';

/**
 * Two claims of two tenants whose names earlier versions mapped to the same share on every
 * engine: namespaces agreeing in their first 56 characters (all the readable part there was
 * room for) and names found by a birthday search over the 32-bit hash.
 */
const collidingClaims = [
  { namespace: `tenant-${'x'.repeat(49)}-a`, name: 'db-216053' },
  { namespace: `tenant-${'x'.repeat(49)}-b`, name: 'db-23649' },
] as const;

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
const subdomain = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/);
const anyPart = fc.string({ maxLength: 80 });

describe('sharePartsHash', () => {
  test('is 64 bits of SHA-256 over the length-prefixed parts', () => {
    const want = createHash('sha256').update('3:a-b;1:c;').digest('hex').slice(0, 16);
    assert.equal(sharePartsHash(['a-b', 'c']), want);
    assert.equal(SHARE_HASH_LENGTH, 16);
  });

  test('the split between parts counts (no separator can be forged)', () => {
    assert.notEqual(sharePartsHash(['a/b', 'c']), sharePartsHash(['a', 'b/c']));
    assert.notEqual(sharePartsHash(['a', '']), sharePartsHash(['', 'a']));
    assert.notEqual(sharePartsHash(['1:a;', 'b']), sharePartsHash(['1', 'a;1:b']));
  });
});

describe('shareName', () => {
  for (const [style, limit] of [
    ['identifier', 32],
    ['identifier', 63],
    ['label', 63],
  ] as const) {
    test(`${style} names up to ${limit}: distinct parts give distinct names, within the limit and the charset`, () => {
      fc.assert(
        fc.property(fc.array(anyPart, { minLength: 1, maxLength: 3 }), fc.array(anyPart, { minLength: 1, maxLength: 3 }), (a, b) => {
          const x = shareName(a, limit, style);
          assert.ok(x.length <= limit, x);
          assert.equal(x, shareName(a, limit, style));
          assert.ok(x.endsWith(sharePartsHash(a)), x);
          if (style === 'identifier') assert.match(x, /^[a-z][a-z0-9_]*$/);
          else assert.equal(bucketNameProblem(x), undefined, x);
          if (style === 'identifier') assert.ok(!x.startsWith('pg_'), x);
          if (JSON.stringify(a) !== JSON.stringify(b)) assert.notEqual(x, shareName(b, limit, style));
        }),
        { numRuns: 500 },
      );
    });
  }

  test('readable part is kept where there is room, then cut', () => {
    assert.match(claimShareName({ namespace: 'Team-A', name: 'orders.v2' }, 63), /^team_a_orders_v2_[0-9a-f]{16}$/);
    assert.match(claimShareName({ namespace: 'team', name: 'photos' }, 63, 'label'), /^team-photos-[0-9a-f]{16}$/);
    assert.match(claimShareName({ namespace: 'n'.repeat(63), name: 'x' }, 32), /^n{15}_[0-9a-f]{16}$/);
    assert.match(claimShareName({ namespace: '9lives', name: 'x' }, 63), /^c_9lives_x_[0-9a-f]{16}$/);
    assert.match(claimShareName({ namespace: 'pg', name: 'x' }, 63), /^c_pg_x_[0-9a-f]{16}$/);
    assert.match(shareName(['--', '..'], 63, 'label'), /^claim-[0-9a-f]{16}$/);
  });

  test('a limit with no room for the hash is refused', () => {
    assert.throws(() => shareName(['a'], 18, 'identifier'), /too small/);
  });
});

describe('engine names carry the 64-bit hash of the exact namespace and name', () => {
  test('claims of Kubernetes names: every engine name is distinct, within its limit', () => {
    fc.assert(
      fc.property(label, subdomain, label, subdomain, (ns1, n1, ns2, n2) => {
        fc.pre(ns1 !== ns2 || n1 !== n2);
        const a = { namespace: ns1, name: n1 };
        const b = { namespace: ns2, name: n2 };
        for (const [f, limit] of [
          [(c: typeof a) => pgIdentifier(c.namespace, c.name), 63],
          [(c: typeof a) => mysqlIdentifier(c.namespace, c.name), maxUserLength],
          [(c: typeof a) => bucketName(c.namespace, c.name), 63],
          [(c: typeof a) => shareIdentifier(`${c.namespace}/${c.name}`), 63],
        ] as const) {
          assert.ok(f(a).length <= limit);
          assert.ok(f(a).endsWith(sharePartsHash([a.namespace, a.name])), f(a));
          assert.notEqual(f(a), f(b));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('two tenants whose earlier names coincided on every engine now get distinct names', () => {
    const [a, b] = collidingClaims;
    // What earlier versions gave them: the same database, user, prefix, account and bucket.
    assert.equal(pgLegacy(a.namespace, a.name), pgLegacy(b.namespace, b.name));
    assert.equal(mysqlLegacy(a.namespace, a.name), mysqlLegacy(b.namespace, b.name));
    assert.equal(legacyBucketName(a.namespace, a.name), legacyBucketName(b.namespace, b.name));
    assert.notEqual(pgIdentifier(a.namespace, a.name), pgIdentifier(b.namespace, b.name));
    assert.notEqual(mysqlIdentifier(a.namespace, a.name), mysqlIdentifier(b.namespace, b.name));
    assert.notEqual(bucketName(a.namespace, a.name), bucketName(b.namespace, b.name));
    assert.notEqual(shareIdentifier(`${a.namespace}/${a.name}`), shareIdentifier(`${b.namespace}/${b.name}`));
  });

  test('a recorded earlier name is kept only for the claim it was derived for', () => {
    const [a, b] = collidingClaims;
    const old = pgLegacy(a.namespace, a.name);
    assert.equal(pgRecorded(a.namespace, a.name, { username: old, database: old }), old);
    assert.equal(pgRecorded('other', 'claim', { username: old, database: old }), pgIdentifier('other', 'claim'));
    assert.equal(pgRecorded(a.namespace, a.name, { username: old, database: 'elsewhere' }), pgIdentifier(a.namespace, a.name));
    assert.equal(pgRecorded(a.namespace, a.name), pgIdentifier(a.namespace, a.name));
    // (b's earlier name is the same string: b keeps it only if its own binding records it.)
    assert.equal(pgRecorded(b.namespace, b.name), pgIdentifier(b.namespace, b.name));
  });
});
