import type { Queryable } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';
import { type Erasure, eraseInJson, eraseInNullableText, eraseInRawBody, eraseInText } from './scrub.ts';

/**
 * The SQL of the erasure, one function per table that can hold payer data (the inventory is
 * docs/payer-data.md). The erasure reaches across tables the other modules own on purpose: it is
 * one rule applied to every copy of the payer's data, and keeping every copy's SQL here keeps the
 * inventory and the code in one place. Every function takes the tenant and works on the ids of
 * one erasure unit (a payment, or a checkout and all its payments), inside the unit's transaction.
 */

export const FINAL_PAYMENT_STATUSES = ['succeeded', 'failed', 'expired', 'canceled', 'reversed'] as const;

export interface Tenant {
  merchantId: string;
  environment: Environment;
}

interface UnitPaymentRow {
  [key: string]: unknown;
  id: string;
  status: string;
  email: string | null;
  description: string | null;
  metadata: Record<string, string>;
  failure_message: string | null;
  payer_data_erased_at: Date | null;
}

interface UnitCheckoutRow {
  [key: string]: unknown;
  id: string;
  status: string;
  email: string | null;
  description: string | null;
  metadata: Record<string, string>;
  payer_data_erased_at: Date | null;
}

export interface LockedUnit {
  payments: UnitPaymentRow[];
  checkout: UnitCheckoutRow | undefined;
}

/**
 * Locks the erasure unit of a payment: the payment, or — when a checkout made it — the checkout's
 * payments (in id order, so two erasures of one unit cannot deadlock) and then the checkout (the
 * order of the payment lifecycle's success hook: payment, then checkout). Undefined when the
 * payment is not this tenant's.
 */
export async function lockUnit(tx: Queryable, tenant: Tenant, paymentId: string): Promise<LockedUnit | undefined> {
  const [found] = await tx.query<{ id: string; checkout_id: string | null }>(
    `SELECT p.id, (SELECT cp.checkout_id FROM checkout_payments cp WHERE cp.payment_id = p.id) AS checkout_id
       FROM payments p WHERE p.id = $1 AND p.merchant_id = $2 AND p.environment = $3`,
    [paymentId, tenant.merchantId, tenant.environment],
  );
  if (found === undefined) return undefined;
  const checkoutId = found.checkout_id;
  const ids =
    checkoutId === null
      ? [paymentId]
      : (
          await tx.query<{ payment_id: string }>('SELECT payment_id FROM checkout_payments WHERE checkout_id = $1', [checkoutId])
        ).map((r) => r.payment_id);
  const payments = await tx.query<UnitPaymentRow>(
    `SELECT id, status, email, description, metadata, failure_message, payer_data_erased_at FROM payments
      WHERE id = ANY($1::text[]) AND merchant_id = $2 AND environment = $3 ORDER BY id FOR UPDATE`,
    [ids, tenant.merchantId, tenant.environment],
  );
  const [checkout] =
    checkoutId === null
      ? [undefined]
      : await tx.query<UnitCheckoutRow>(
          `SELECT id, status, email, description, metadata, payer_data_erased_at FROM checkouts
            WHERE id = $1 AND merchant_id = $2 AND environment = $3 FOR UPDATE`,
          [checkoutId, tenant.merchantId, tenant.environment],
        );
  return { payments, checkout };
}

/** Lets this transaction rewrite stored event payloads (migration 0017's exception to immutability). */
export async function allowEventErasure(tx: Queryable): Promise<void> {
  await tx.query("SELECT set_config('tributary.payer_data_erasure', 'on', true)");
}

export async function erasePaymentRows(tx: Queryable, unit: LockedUnit, erasure: Erasure, now: Date): Promise<void> {
  for (const p of unit.payments) {
    await tx.query(
      `UPDATE payments SET email = NULL, description = $2, metadata = $3::jsonb, failure_message = $4,
         payer_data_erased_at = $5, updated_at = $5, version = version + 1
       WHERE id = $1 AND payer_data_erased_at IS NULL`,
      [
        p.id,
        eraseInNullableText(p.description, erasure.emails),
        JSON.stringify(eraseInJson(p.metadata, erasure, true)),
        eraseInNullableText(p.failure_message, erasure.emails),
        now,
      ],
    );
  }
  const attempts = await tx.query<{ id: string; error_message: string }>(
    'SELECT id, error_message FROM payment_attempts WHERE payment_id = ANY($1::text[]) AND error_message IS NOT NULL',
    [unit.payments.map((p) => p.id)],
  );
  for (const a of attempts) {
    const erased = eraseInText(a.error_message, erasure.emails);
    if (erased !== a.error_message)
      await tx.query('UPDATE payment_attempts SET error_message = $2 WHERE id = $1', [a.id, erased]);
  }
}

export async function eraseCheckoutRow(tx: Queryable, checkout: UnitCheckoutRow, erasure: Erasure, now: Date): Promise<void> {
  await tx.query(
    `UPDATE checkouts SET email = NULL, description = $2, metadata = $3::jsonb, payer_data_erased_at = $4, updated_at = $4,
       version = version + 1
     WHERE id = $1 AND payer_data_erased_at IS NULL`,
    [
      checkout.id,
      eraseInNullableText(checkout.description, erasure.emails),
      JSON.stringify(eraseInJson(checkout.metadata, erasure, true)),
      now,
    ],
  );
}

/**
 * The stored events of the unit's objects (their payloads are the payment and checkout views,
 * `email` included): rewritten erased. Returns their ids, whose webhook attempts come next.
 * Refund events name the payment in `data.object.payment_id` but carry no payer data.
 */
export async function eraseEvents(
  tx: Queryable,
  tenant: Tenant,
  objectIds: readonly string[],
  erasure: Erasure,
): Promise<string[]> {
  const events = await tx.query<{ id: string; payload: unknown }>(
    'SELECT id, payload FROM events WHERE object_id = ANY($1::text[]) AND merchant_id = $2 AND environment = $3',
    [objectIds, tenant.merchantId, tenant.environment],
  );
  for (const e of events) {
    const erased = eraseInJson(e.payload, erasure);
    if (JSON.stringify(erased) !== JSON.stringify(e.payload)) {
      await tx.query('UPDATE events SET payload = $2::jsonb WHERE id = $1', [e.id, JSON.stringify(erased)]);
    }
  }
  return events.map((e) => e.id);
}

/**
 * What the merchant's endpoints answered to the unit's events (`GET /event/{id}/deliveries` shows
 * the first 2 KiB): a receiver that echoes the body echoed the e-mail. The deliveries themselves
 * left the system; only our copies of the answers are erased.
 */
export async function eraseWebhookAttempts(tx: Queryable, eventIds: readonly string[], erasure: Erasure): Promise<void> {
  if (eventIds.length === 0 || erasure.emails.length === 0) return;
  const attempts = await tx.query<{ id: string; response_body: string | null; error: string | null }>(
    `SELECT a.id, a.response_body, a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE d.event_id = ANY($1::text[]) AND (a.response_body IS NOT NULL OR a.error IS NOT NULL)`,
    [eventIds],
  );
  for (const a of attempts) {
    const body = eraseInNullableText(a.response_body, erasure.emails);
    const error = eraseInNullableText(a.error, erasure.emails);
    if (body !== a.response_body || error !== a.error) {
      await tx.query('UPDATE webhook_attempts SET response_body = $2, error = $3 WHERE id = $1', [a.id, body, error]);
    }
  }
}

/**
 * Stored API answers (idempotency keys keep the exact response to replay it): a replayed create
 * or cancel must not bring the e-mail back. Keys name their payment or checkout in resource_id.
 */
export async function eraseStoredResponses(
  tx: Queryable,
  tenant: Tenant,
  resourceIds: readonly string[],
  erasure: Erasure,
): Promise<void> {
  const keys = await tx.query<{ operation: string; key: string; response_body: string }>(
    `SELECT operation, key, response_body FROM idempotency_keys
      WHERE resource_id = ANY($1::text[]) AND status = 'finished' AND merchant_id = $2 AND environment = $3`,
    [resourceIds, tenant.merchantId, tenant.environment],
  );
  for (const k of keys) {
    const erased = eraseInRawBody(k.response_body, erasure);
    if (erased === k.response_body) continue;
    await tx.query(
      `UPDATE idempotency_keys SET response_body = $5
        WHERE merchant_id = $1 AND environment = $2 AND operation = $3 AND key = $4`,
      [tenant.merchantId, tenant.environment, k.operation, k.key, erased],
    );
  }
}

/**
 * Provider notifications about the unit's payments, stored raw: the payer's fields (names, phone
 * numbers, e-mails under PROVIDER_PERSONAL_KEYS) nulled and e-mails in the text replaced. The
 * signature over the raw bytes was checked on arrival; after this it no longer verifies, which is
 * the point.
 */
export async function eraseNotifications(
  tx: Queryable,
  tenant: Tenant,
  paymentIds: readonly string[],
  erasure: Erasure,
  now: Date,
): Promise<void> {
  const notifications = await tx.query<{ id: string; raw_body: string; payer_data_erased_at: Date | null }>(
    `SELECT id, raw_body, payer_data_erased_at FROM provider_notifications
      WHERE merchant_id = $1 AND environment = $2 AND payment_id = ANY($3::text[])`,
    [tenant.merchantId, tenant.environment, paymentIds],
  );
  for (const n of notifications) {
    const erased = eraseInRawBody(n.raw_body, erasure);
    if (erased === n.raw_body && n.payer_data_erased_at !== null) continue;
    await tx.query('UPDATE provider_notifications SET raw_body = $2, payer_data_erased_at = $3 WHERE id = $1', [
      n.id,
      erased,
      n.payer_data_erased_at ?? now,
    ]);
  }
}

/**
 * The retention job's next payments: final, not erased, last changed before the cutoff — and, for
 * a checkout's payment, only once the checkout is closed and every payment of it is final and
 * past the cutoff too (the unit is erased together). Oldest first, at most `limit`.
 */
export async function findDuePayments(
  q: Queryable,
  cutoff: Date,
  limit: number,
): Promise<{ id: string; merchant_id: string; environment: Environment }[]> {
  return q.query(
    `SELECT p.id, p.merchant_id, p.environment FROM payments p
      WHERE p.payer_data_erased_at IS NULL AND p.status NOT IN ('processing', 'pending') AND p.updated_at < $1
        AND NOT EXISTS (
          SELECT 1 FROM checkout_payments cp JOIN checkouts c ON c.id = cp.checkout_id
           WHERE cp.payment_id = p.id
             AND (c.status = 'open' OR c.updated_at >= $1 OR EXISTS (
               SELECT 1 FROM checkout_payments sib JOIN payments s ON s.id = sib.payment_id
                WHERE sib.checkout_id = c.id AND (s.status IN ('processing', 'pending') OR s.updated_at >= $1))))
      ORDER BY p.updated_at, p.id
      LIMIT $2`,
    [cutoff, limit],
  );
}
