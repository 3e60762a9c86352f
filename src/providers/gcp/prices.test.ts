import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PUBSUB_PRICES, SPANNER_PRICES } from './price-table.js';
import { priceStatus, pubSubMonthlyPrice, spannerMonthlyPrice } from './prices.js';

describe('gcp prices from the dated table', () => {
  test('Spanner: compute for the processing units plus storage, in the region', () => {
    const p = spannerMonthlyPrice(SPANNER_PRICES, 'us-central1', 100, '10Gi');
    assert.equal(p.amount, '68.93');
    assert.match(p.amount !== undefined ? p.basis : '', /^100 PU × 0.9 USD\/node-hour × 730 h \+ 10.74 GB × 0.3 USD\/GB-month \(us-central1\)$/);
    assert.match(p.amount !== undefined ? p.table : '', /^2024-06-30, unverified; https:\/\/cloud\.google\.com\/spanner\/pricing/);
    assert.equal(spannerMonthlyPrice(SPANNER_PRICES, 'us-central1', 1000, '0').amount, '657.00');
  });

  test('Spanner: no price without a region, for a region the table lacks, or without a size', () => {
    assert.deepEqual(spannerMonthlyPrice(SPANNER_PRICES, undefined, 100, '1Gi'), { reason: 'no region: set spec.forProvider.region to price it' });
    assert.match(spannerMonthlyPrice(SPANNER_PRICES, 'asia-east1', 100, '1Gi').amount ?? 'none', /none/);
    assert.deepEqual(priceStatus(spannerMonthlyPrice(SPANNER_PRICES, 'asia-east1', 100, '1Gi')), {
      priceNote: 'the price table of 2024-06-30 has no Spanner price for asia-east1',
    });
    assert.match(priceStatus(spannerMonthlyPrice(SPANNER_PRICES, 'us-east1', 100, undefined)).priceNote as string, /^no size/);
  });

  test('Pub/Sub: stored messages per GiB, one global price', () => {
    assert.equal(pubSubMonthlyPrice(PUBSUB_PRICES, '10Gi').amount, '2.70');
    assert.match(priceStatus(pubSubMonthlyPrice(PUBSUB_PRICES, 'lots')).priceNote as string, /"lots" is not a quantity/);
  });
});
