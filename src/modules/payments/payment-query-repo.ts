import type { Instructions } from '../../connectors/core/connector.ts';
import type { Queryable } from '../../db/store.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { isIdOf } from '../../lib/ids.ts';
import { paymentFromRow } from './payment-repo.ts';
import type { PaymentStatus } from './payment-states.ts';
import type { Payment } from './payment-types.ts';
import type { Channel, Environment } from '../../kernel/index.ts';

/**
 * Read-only queries behind the list endpoint and the payer page. Kept apart from payment-repo.ts
 * (the create path's writes) so the two grow independently.
 */
type PaymentRow = Parameters<typeof paymentFromRow>[0];

export interface PaymentListFilter {
  status?: PaymentStatus;
  referenceNo?: string;
  channel?: Channel;
  createdGte?: Date;
  createdLte?: Date;
}

export type PaymentPage = { ok: true; payments: Payment[]; hasMore: boolean } | { ok: false; reason: 'unknown_cursor' };

/**
 * One page of a merchant's payments in one environment, newest first: `created_at DESC, id DESC`,
 * the order of the index `payments_by_merchant_created`.
 *
 * Keyset pagination: the next page is "strictly after the cursor row in that order", compared as
 * the row value `(created_at, id)`. Unlike OFFSET, rows inserted while a client pages through the
 * list never shift later pages, so nothing is listed twice and nothing is skipped; the id breaks
 * ties between payments created in the same millisecond. The cursor row's own `created_at` is read
 * in SQL (never round-tripped through a JS Date, which would drop microseconds) and is immutable
 * (the update trigger refuses to change it), so a cursor stays valid for ever.
 *
 * The cursor must be one of this merchant's payments in this environment; any other id (unknown,
 * another merchant's, the other environment's) is the same `unknown_cursor`, so nothing leaks.
 */
export async function listPayments(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  filter: PaymentListFilter,
  page: { limit: number; startingAfter?: string },
): Promise<PaymentPage> {
  const params: unknown[] = [merchantId, environment];
  const where = ['p.merchant_id = $1', 'p.environment = $2'];
  const add = (sql: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (page.startingAfter !== undefined) {
    const cursor = await q.query('SELECT 1 FROM payments WHERE id = $1 AND merchant_id = $2 AND environment = $3', [
      page.startingAfter,
      merchantId,
      environment,
    ]);
    if (cursor.length === 0) return { ok: false, reason: 'unknown_cursor' };
    add(
      (c) =>
        `(p.created_at, p.id) < (SELECT c.created_at, c.id FROM payments c WHERE c.id = ${c} AND c.merchant_id = $1 AND c.environment = $2)`,
      page.startingAfter,
    );
  }
  if (filter.status !== undefined) add((v) => `p.status = ${v}`, filter.status);
  if (filter.referenceNo !== undefined) add((v) => `p.reference_no = ${v}`, filter.referenceNo);
  if (filter.channel !== undefined) add((v) => `p.channel = ${v}`, filter.channel);
  if (filter.createdGte !== undefined) add((v) => `p.created_at >= ${v}`, filter.createdGte);
  if (filter.createdLte !== undefined) add((v) => `p.created_at <= ${v}`, filter.createdLte);
  // One row more than asked tells whether another page exists without a second query.
  params.push(page.limit + 1);
  const rows = await q.query<PaymentRow>(
    `SELECT p.* FROM payments p WHERE ${where.join(' AND ')} ORDER BY p.created_at DESC, p.id DESC LIMIT $${params.length}`,
    params,
  );
  const hasMore = rows.length > page.limit;
  return { ok: true, payments: rows.slice(0, page.limit).map(paymentFromRow), hasMore };
}

/** What the hosted payer page may know about a payment: no email, metadata, reference or URLs. */
export interface PayerPayment {
  id: string;
  environment: Environment;
  status: PaymentStatus;
  amountMinor: bigint;
  currency: CurrencyCode;
  description: string | null;
  channel: Channel | null;
  instructions: Instructions | null;
  merchantName: string;
  expiresAt: Date;
  succeededAt: Date | null;
  closedAt: Date | null;
}

interface PayerRow {
  id: string;
  environment: Environment;
  status: PaymentStatus;
  amount_minor: bigint;
  currency: string;
  description: string | null;
  channel: Channel | null;
  instructions: Instructions | null;
  merchant_name: string;
  expires_at: Date;
  succeeded_at: Date | null;
  closed_at: Date | null;
  [key: string]: unknown;
}

/**
 * The payer page's read. It is the one finder not scoped by merchant and environment, on
 * purpose: the payer has no API key, and the payment id (80 random bits) is the capability, like
 * a hosted-checkout URL (docs/decisions/payer-page-capability.md). It selects only the columns the
 * page shows, so the page cannot leak what it never loaded.
 */
export async function findPaymentForPayer(q: Queryable, id: string): Promise<PayerPayment | undefined> {
  // A malformed id cannot exist: answer like an unknown one without asking the database.
  if (!isIdOf('payment', id)) return undefined;
  const rows = await q.query<PayerRow>(
    `SELECT p.id, p.environment, p.status, p.amount_minor, p.currency, p.description, p.channel, p.instructions,
            m.name AS merchant_name, p.expires_at, p.succeeded_at, p.closed_at
       FROM payments p JOIN merchants m ON m.id = p.merchant_id
      WHERE p.id = $1`,
    [id],
  );
  const r = rows[0];
  if (r === undefined) return undefined;
  return {
    id: r.id,
    environment: r.environment,
    status: r.status,
    amountMinor: r.amount_minor,
    currency: r.currency as CurrencyCode,
    description: r.description,
    channel: r.channel,
    instructions: r.instructions,
    merchantName: r.merchant_name,
    expiresAt: r.expires_at,
    succeededAt: r.succeeded_at,
    closedAt: r.closed_at,
  };
}
