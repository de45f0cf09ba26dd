import type { Queryable } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Read-only queries the dashboard needs and the API does not (docs/dashboard.md): which checkout
 * made a payment, and when each selection of a checkout was made. Both join `checkouts` so that
 * they answer only for the merchant and environment asked about, like every finder a merchant
 * reaches; kept apart from checkout-repo.ts (the API's reads and the selection's writes).
 */

/** The checkouts that made these payments (a page of the payment list): payment id → checkout id. */
export async function checkoutIdsOfPayments(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentIds: readonly string[],
): Promise<Map<string, string>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await q.query<{ payment_id: string; checkout_id: string }>(
    `SELECT cp.payment_id, cp.checkout_id FROM checkout_payments cp JOIN checkouts c ON c.id = cp.checkout_id
     WHERE cp.payment_id = ANY($1::text[]) AND c.merchant_id = $2 AND c.environment = $3`,
    [paymentIds, merchantId, environment],
  );
  return new Map(rows.map((r) => [r.payment_id, r.checkout_id]));
}

/** One selection of a checkout: the payment id it chose (that payment may never have been created). */
export interface CheckoutSelection {
  seq: number;
  paymentId: string;
  createdAt: Date;
}

/** A checkout's selections, oldest first, at most `limit` (the caller asks one more to see a cut). */
export async function listCheckoutSelections(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  checkoutId: string,
  limit: number,
): Promise<CheckoutSelection[]> {
  const rows = await q.query<{ seq: number; payment_id: string; created_at: Date }>(
    `SELECT cp.seq, cp.payment_id, cp.created_at FROM checkout_payments cp JOIN checkouts c ON c.id = cp.checkout_id
     WHERE cp.checkout_id = $1 AND c.merchant_id = $2 AND c.environment = $3 ORDER BY cp.seq LIMIT $4`,
    [checkoutId, merchantId, environment, limit],
  );
  return rows.map((r) => ({ seq: Number(r.seq), paymentId: r.payment_id, createdAt: r.created_at }));
}
