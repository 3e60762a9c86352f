/**
 * A provider kind the claim controller cannot serve is a start-up error naming the kind and
 * what to do — never a kind silently left out (its claims would stay Pending with no word).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { postgresqlInstanceKind } from '../../apis/index.js';
import { memoryDatabaseKind } from '../../providers/memory/kinds.js';
import { catalog } from '../../conductor/catalog.js';

const lookup = (group: string, kind: string) => catalog.findKind(group, kind);
import { FakeClient } from '../../client/testing/fake-client.js';
import type { ConcreteKind } from '../../providers/spi.js';
import { ClaimController } from './claim-controller.js';
import { ProviderAccess } from './provider-access.js';
import { servedKinds, UnservedKindError } from './served-kinds.js';
import { FakeProvider } from './testing/harness.js';

const served = new FakeProvider().kind();
const undefinedKind: ConcreteKind = { ...served, group: 'database.nowhere.conductor.io', kind: 'GhostDatabase', plural: 'ghostdatabases' };
const strayImpl: ConcreteKind = { ...served, implements: [{ ...served.implements[0], claimKind: { group: 'storage.conductor.io', kind: 'TeapotInstance' } }] };

describe('servedKinds', () => {
  const cases: { reason: string; kinds: ConcreteKind[]; want: string[] | { concretes: string[] } }[] = [
    {
      reason: 'a defined kind implementing a defined claim kind is served',
      kinds: [served],
      want: { concretes: [`${memoryDatabaseKind.group}/${memoryDatabaseKind.kind}`] },
    },
    {
      reason: 'a concrete kind with no kind definition is refused, by name',
      kinds: [served, undefinedKind],
      want: [
        'concrete kind GhostDatabase (database.nowhere.conductor.io) has no kind definition, so no CRD is installed for it and its resources can be neither watched nor bound',
      ],
    },
    {
      reason: 'a kind implementing a claim kind with no definition is refused, by name',
      kinds: [strayImpl],
      want: [
        'concrete kind MemoryDatabase (database.memory.conductor.io) implements TeapotInstance (storage.conductor.io), which has no claim kind definition, so such claims can never be made or scheduled',
      ],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      let got: string[] | { concretes: string[] };
      try {
        got = { concretes: servedKinds(c.kinds, lookup, catalog.claimKinds).concretes.map((k) => `${k.def.group}/${k.def.kind}`) };
      } catch (err) {
        if (!(err instanceof UnservedKindError)) throw err;
        got = [...err.problems];
        assert.match(err.message, /cannot serve a kind: .*Define each kind with the provider/);
      }
      assert.deepEqual(got, c.want);
    });
  }

  test('the claim kinds served are the catalog’s', () => {
    assert.ok(servedKinds([served], lookup, catalog.claimKinds).claims.some((d) => d.kind === postgresqlInstanceKind.kind));
  });
});

describe('ClaimController start-up', () => {
  test('a provider kind with no definition stops the controller from being made, and is logged', () => {
    const client = new FakeClient();
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    assert.throws(
      () => new ClaimController(client, new ProviderAccess(client, [{ type: 'local', kinds: [served, undefinedKind] }]), { logger, kinds: catalog }),
      UnservedKindError,
    );
    assert.equal(logged.length, 1);
    assert.match(JSON.parse(logged[0]).msg as string, /GhostDatabase/);
  });
});
