/**
 * The listing cache hint's arithmetic (src/mcpl/listing-expiry.ts): the stalest page wins,
 * malformed hints are ignored, and the re-list waits at least MIN_LISTING_REFRESH_MS and at
 * most MAX_LISTING_REFRESH_MS. The hint followed end to end: test/serve/cache-hints.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListingExpiry, MAX_LISTING_REFRESH_MS, MIN_LISTING_REFRESH_MS, listingTtl } from '../../src/mcpl/listing-expiry.ts';

test('listingTtl: the smallest valid ttlMs of the pages; none for no valid hint', () => {
  assert.equal(listingTtl([{ ttlMs: 5_000 }, { ttlMs: 1_000 }, {}]), 1_000);
  assert.equal(listingTtl([{ ttlMs: 0 }]), 0);
  assert.equal(listingTtl([{}, { ttlMs: -1 }, { ttlMs: '60' }, { ttlMs: Number.NaN }, { ttlMs: Infinity }]), undefined);
});

test('ListingExpiry: due no sooner than the floor and no later than the ceiling; no hint, nothing due; clear forgets', () => {
  const expiry = new ListingExpiry();
  const never = () => assert.fail('a cleared schedule must not fire');
  const at = Date.now();
  expiry.schedule(0, never);
  assert.ok(expiry.freshUntil! >= at + MIN_LISTING_REFRESH_MS && expiry.freshUntil! <= Date.now() + MIN_LISTING_REFRESH_MS);
  expiry.schedule(10 * MAX_LISTING_REFRESH_MS, never);
  assert.ok(expiry.freshUntil! <= Date.now() + MAX_LISTING_REFRESH_MS);
  expiry.schedule(undefined, never);
  assert.equal(expiry.freshUntil, undefined);
  expiry.schedule(5_000, never);
  expiry.clear();
  assert.equal(expiry.freshUntil, undefined);
});
