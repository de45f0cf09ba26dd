import type { Queryable } from '../../db/store.ts';
import { insertEvent } from '../events/index.ts';
import type { Checkout } from './checkout-types.ts';

/** Writes `checkout.completed` / `checkout.expired` in the caller's transaction (the outbox). */
export async function insertCheckoutEvent(
  tx: Queryable,
  type: 'checkout.completed' | 'checkout.expired',
  before: Checkout,
  after: Checkout,
  view: Record<string, unknown>,
): Promise<void> {
  await insertEvent(tx, {
    merchantId: after.merchantId,
    environment: after.environment,
    type,
    objectType: 'checkout',
    objectId: after.id,
    objectVersion: after.version,
    apiVersion: after.apiVersion,
    object: view,
    previousAttributes: { status: before.status },
    now: after.updatedAt,
  });
}
