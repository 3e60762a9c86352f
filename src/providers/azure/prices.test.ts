import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AZURE_LOCATIONS, BLOB_HOT_PRICES, QUEUE_PRICES, type PriceTable } from './price-table.js';
import { monthlyPrice } from './prices.js';

const table: PriceTable = {
  asOf: '2025-01-01',
  currency: 'USD',
  source: 'https://example.test/prices',
  verified: true,
  perGbMonth: { westeurope: { LRS: 0.02, GRS: 0.04 } },
};

describe('monthlyPrice', () => {
  const cases: { reason: string; args: Parameters<typeof monthlyPrice>; want: { amount?: string; reason?: RegExp; basis?: string } }[] = [
    { reason: '100 GB at 0.02', args: [table, 'westeurope', 'LRS', '100G'], want: { amount: '2.00', basis: '100 GB × 0.02 USD/GB-month (westeurope, LRS)' } },
    {
      reason: 'binary units, rounded up to the cent',
      args: [table, 'westeurope', 'GRS', '10Gi'],
      want: { amount: '0.43', basis: '10.74 GB × 0.04 USD/GB-month (westeurope, GRS)' },
    },
    { reason: 'no price for the region', args: [table, 'eastus', 'LRS', '1Gi'], want: { reason: /the price table of 2025-01-01 has no LRS price for eastus/ } },
    { reason: 'no price for the redundancy', args: [table, 'westeurope', 'ZRS', '1Gi'], want: { reason: /no ZRS price for westeurope/ } },
    { reason: 'no location', args: [table, undefined, 'LRS', '1Gi'], want: { reason: /no location: set spec.forProvider.location/ } },
    { reason: 'no size', args: [table, 'westeurope', 'LRS', undefined], want: { reason: /no size: set spec.capabilities.capacity.storage/ } },
    { reason: 'a size that is no quantity', args: [table, 'westeurope', 'LRS', 'lots'], want: { reason: /"lots" is not a quantity/ } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = monthlyPrice(...c.args);
      if (c.want.amount !== undefined) {
        assert.equal(got.amount, c.want.amount);
        assert.ok(got.amount !== undefined);
        assert.equal(got.basis, c.want.basis);
        assert.equal(got.table, '2025-01-01; https://example.test/prices');
      } else {
        assert.equal(got.amount, undefined);
        assert.match((got as { reason: string }).reason, c.want.reason!);
      }
    });
  }

  test('the shipped tables are dated, name their source and price only known locations', () => {
    for (const t of [BLOB_HOT_PRICES, QUEUE_PRICES]) {
      assert.match(t.asOf, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(t.source, /^https:\/\/azure\.microsoft\.com\/pricing\//);
      for (const [location, rates] of Object.entries(t.perGbMonth)) {
        assert.ok((AZURE_LOCATIONS as readonly string[]).includes(location), location);
        for (const rate of Object.values(rates ?? {})) assert.ok(rate > 0 && rate < 1, `${location}: ${rate}`);
      }
    }
  });
});
