import type { Queryable } from '../../db/store.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import type { RefundHoldSource } from '../ledger/index.ts';
import type { Refund, RefundReason, RefundStatus } from './refund-types.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Data access for refunds. Every finder takes the merchant and the environment: another tenant's
 * id finds nothing. Lock order everywhere: the payment row first, then its refunds.
 */
interface RefundRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_id: string;
  attempt_id: string;
  connector: string;
  amount_minor: bigint;
  currency: string;
  status: RefundStatus;
  reason: RefundReason | null;
  failure_code: string | null;
  failure_message: string | null;
  provider_refund_id: string | null;
  held_from: RefundHoldSource;
  version: number;
  next_sync_at: Date | null;
  sync_count: number;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  [key: string]: unknown;
}

function refundFromRow(r: RefundRow): Refund {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    environment: r.environment,
    paymentId: r.payment_id,
    attemptId: r.attempt_id,
    connector: r.connector,
    amountMinor: r.amount_minor,
    currency: r.currency as CurrencyCode,
    status: r.status,
    reason: r.reason,
    failureCode: r.failure_code,
    failureMessage: r.failure_message,
    providerRefundId: r.provider_refund_id,
    heldFrom: r.held_from,
    version: r.version,
    nextSyncAt: r.next_sync_at,
    syncCount: r.sync_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

export async function insertRefund(q: Queryable, r: Refund): Promise<void> {
  await q.query(
    `INSERT INTO refunds (id, merchant_id, environment, payment_id, attempt_id, connector, amount_minor, currency, status,
       reason, failure_code, failure_message, provider_refund_id, held_from, version, next_sync_at, sync_count, created_at,
       updated_at, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
    [
      r.id,
      r.merchantId,
      r.environment,
      r.paymentId,
      r.attemptId,
      r.connector,
      r.amountMinor,
      r.currency,
      r.status,
      r.reason,
      r.failureCode,
      r.failureMessage,
      r.providerRefundId,
      r.heldFrom,
      r.version,
      r.nextSyncAt,
      r.syncCount,
      r.createdAt,
      r.updatedAt,
      r.completedAt,
    ],
  );
}

export async function findRefund(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<Refund | undefined> {
  const rows = await q.query<RefundRow>('SELECT * FROM refunds WHERE id = $1 AND merchant_id = $2 AND environment = $3', [
    id,
    merchantId,
    environment,
  ]);
  return rows[0] === undefined ? undefined : refundFromRow(rows[0]);
}

/** A payment's refunds, oldest first (the dashboard's payment timeline). */
export async function listRefundsOfPayment(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentId: string,
): Promise<Refund[]> {
  const rows = await q.query<RefundRow>(
    'SELECT * FROM refunds WHERE payment_id = $1 AND merchant_id = $2 AND environment = $3 ORDER BY created_at, id',
    [paymentId, merchantId, environment],
  );
  return rows.map(refundFromRow);
}

/** The refund, locked for the rest of the transaction (lock its payment first). */
export async function lockRefund(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<Refund | undefined> {
  const rows = await q.query<RefundRow>(
    'SELECT * FROM refunds WHERE id = $1 AND merchant_id = $2 AND environment = $3 FOR UPDATE',
    [id, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : refundFromRow(rows[0]);
}

/** What of a payment is refunded or being refunded: succeeded plus pending refunds. */

/** Writes the refund's new state (fenced by version; the caller holds the row lock). */
export async function updateRefund(q: Queryable, before: Refund, after: Refund): Promise<boolean> {
  const rows = await q.query(
    `UPDATE refunds SET status = $3, version = $4, failure_code = $5, failure_message = $6, provider_refund_id = $7,
       next_sync_at = $8, sync_count = $9, updated_at = $10, completed_at = $11
     WHERE id = $1 AND version = $2 RETURNING id`,
    [
      after.id,
      before.version,
      after.status,
      after.version,
      after.failureCode,
      after.failureMessage,
      after.providerRefundId,
      after.nextSyncAt,
      after.syncCount,
      after.updatedAt,
      after.completedAt,
    ],
  );
  return rows.length === 1;
}

/** Adds a succeeded refund to the payment (version + 1; the caller holds the payment lock). */
export async function addRefundedToPayment(q: Queryable, paymentId: string, amountMinor: bigint, now: Date): Promise<void> {
  await q.query(
    `UPDATE payments SET amount_refunded_minor = amount_refunded_minor + $2, version = version + 1, updated_at = $3
     WHERE id = $1`,
    [paymentId, amountMinor, now],
  );
}

export interface DueRefundSync {
  id: string;
  merchantId: string;
  environment: Environment;
  syncCount: number;
}

/** Pending refunds whose next provider check is due, oldest first (the sync job's list; all tenants). */
export async function findDueRefundSyncs(q: Queryable, now: Date, limit: number): Promise<DueRefundSync[]> {
  const rows = await q.query<{ id: string; merchant_id: string; environment: Environment; sync_count: number }>(
    `SELECT id, merchant_id, environment, sync_count FROM refunds
     WHERE status = 'pending' AND next_sync_at <= $1 ORDER BY next_sync_at, id LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, environment: r.environment, syncCount: r.sync_count }));
}

/** Moves a still-pending refund's next check (a refund that ended keeps next_sync_at null). */
export async function rescheduleRefundSync(q: Queryable, id: string, nextSyncAt: Date): Promise<void> {
  await q.query(`UPDATE refunds SET next_sync_at = $2, sync_count = sync_count + 1 WHERE id = $1 AND status = 'pending'`, [
    id,
    nextSyncAt,
  ]);
}

/**
 * Whose refund a provider notification is about (system-level: the notification is signed by the
 * provider, and the refund must have been sent to that same connector).
 */
export async function findRefundOwner(
  q: Queryable,
  refundId: string,
  connector: string,
): Promise<{ merchantId: string; environment: Environment; paymentId: string; attemptId: string } | undefined> {
  const rows = await q.query<{ merchant_id: string; environment: Environment; payment_id: string; attempt_id: string }>(
    'SELECT merchant_id, environment, payment_id, attempt_id FROM refunds WHERE id = $1 AND connector = $2',
    [refundId, connector],
  );
  const r = rows[0];
  return r === undefined
    ? undefined
    : { merchantId: r.merchant_id, environment: r.environment, paymentId: r.payment_id, attemptId: r.attempt_id };
}
