import type { Queryable } from '../../db/store.ts';
import type { Channel, Environment } from '../../kernel/index.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import type { Checkout, CheckoutStatus } from './checkout-types.ts';

/**
 * Data access for checkouts. Every finder a merchant reaches takes the merchant and environment;
 * the payer's finder (`findCheckoutForPayer`) takes only the id, which the client secret then
 * authorises. Lock order: the checkout row, then its payments (as the payment lifecycle's hook does).
 */
type CheckoutRow = {
  id: string;
  merchant_id: string;
  environment: Environment;
  status: CheckoutStatus;
  amount_minor: bigint;
  currency: string;
  reference_no: string;
  description: string | null;
  email: string | null;
  metadata: Record<string, string>;
  callback_url: string | null;
  channels: Channel[];
  success_url: string | null;
  cancel_url: string | null;
  client_secret_hash: string;
  api_version: string;
  expires_at: Date;
  current_payment_id: string | null;
  completed_payment_id: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
  payer_data_erased_at: Date | null;
};

const COLUMNS = `id, merchant_id, environment, status, amount_minor, currency, reference_no, description, email, metadata,
  callback_url, channels, success_url, cancel_url, client_secret_hash, api_version, expires_at, current_payment_id,
  completed_payment_id, version, created_at, updated_at, closed_at, payer_data_erased_at`;

function checkoutFromRow(r: CheckoutRow): Checkout {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    environment: r.environment,
    status: r.status,
    amountMinor: BigInt(r.amount_minor),
    currency: r.currency as CurrencyCode,
    referenceNo: r.reference_no,
    description: r.description,
    email: r.email,
    metadata: r.metadata,
    callbackUrl: r.callback_url,
    channels: r.channels,
    successUrl: r.success_url,
    cancelUrl: r.cancel_url,
    clientSecretHash: r.client_secret_hash,
    apiVersion: r.api_version,
    expiresAt: r.expires_at,
    currentPaymentId: r.current_payment_id,
    completedPaymentId: r.completed_payment_id,
    version: Number(r.version),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    closedAt: r.closed_at,
    payerDataErasedAt: r.payer_data_erased_at,
  };
}

export async function insertCheckout(q: Queryable, c: Checkout): Promise<void> {
  await q.query(
    `INSERT INTO checkouts (${COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12::text[], $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`,
    [
      c.id,
      c.merchantId,
      c.environment,
      c.status,
      c.amountMinor,
      c.currency,
      c.referenceNo,
      c.description,
      c.email,
      JSON.stringify(c.metadata),
      c.callbackUrl,
      c.channels,
      c.successUrl,
      c.cancelUrl,
      c.clientSecretHash,
      c.apiVersion,
      c.expiresAt,
      c.currentPaymentId,
      c.completedPaymentId,
      c.version,
      c.createdAt,
      c.updatedAt,
      c.closedAt,
      c.payerDataErasedAt,
    ],
  );
}

export async function findCheckout(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<Checkout | undefined> {
  const rows = await q.query<CheckoutRow>(
    `SELECT ${COLUMNS} FROM checkouts WHERE id = $1 AND merchant_id = $2 AND environment = $3`,
    [id, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : checkoutFromRow(rows[0]);
}

/** The payer's lookup: by id alone (the client secret authorises what follows). */
export async function findCheckoutForPayer(q: Queryable, id: string): Promise<Checkout | undefined> {
  const rows = await q.query<CheckoutRow>(`SELECT ${COLUMNS} FROM checkouts WHERE id = $1`, [id]);
  return rows[0] === undefined ? undefined : checkoutFromRow(rows[0]);
}

export async function lockCheckout(tx: Queryable, id: string): Promise<Checkout | undefined> {
  const rows = await tx.query<CheckoutRow>(`SELECT ${COLUMNS} FROM checkouts WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] === undefined ? undefined : checkoutFromRow(rows[0]);
}

export type CheckoutPage = { ok: true; checkouts: Checkout[]; hasMore: boolean } | { ok: false; reason: 'unknown_cursor' };

/** Newest first, by (created_at, id); one row more than asked tells whether another page exists. */
export async function listCheckouts(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  page: { limit: number; startingAfter?: string; status?: CheckoutStatus },
): Promise<CheckoutPage> {
  const params: unknown[] = [merchantId, environment];
  const where = ['c.merchant_id = $1', 'c.environment = $2'];
  if (page.startingAfter !== undefined) {
    const cursor = await findCheckout(q, merchantId, environment, page.startingAfter);
    if (cursor === undefined) return { ok: false, reason: 'unknown_cursor' };
    params.push(cursor.createdAt, cursor.id);
    where.push(`(c.created_at, c.id) < ($${params.length - 1}, $${params.length})`);
  }
  if (page.status !== undefined) {
    params.push(page.status);
    where.push(`c.status = $${params.length}`);
  }
  params.push(page.limit + 1);
  const rows = await q.query<CheckoutRow>(
    `SELECT ${COLUMNS} FROM checkouts c WHERE ${where.join(' AND ')} ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`,
    params,
  );
  return { ok: true, checkouts: rows.slice(0, page.limit).map(checkoutFromRow), hasMore: rows.length > page.limit };
}

/** The payments selections made, oldest first (a crashed selection's id may name no payment). */
export async function checkoutPaymentIds(q: Queryable, checkoutId: string): Promise<string[]> {
  const rows = await q.query<{ payment_id: string }>(
    'SELECT payment_id FROM checkout_payments WHERE checkout_id = $1 ORDER BY seq',
    [checkoutId],
  );
  return rows.map((r) => r.payment_id);
}

/** The payments of several checkouts at once (a list page), each oldest first. */
export async function paymentIdsOfCheckouts(q: Queryable, checkoutIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await q.query<{ checkout_id: string; payment_id: string }>(
    'SELECT checkout_id, payment_id FROM checkout_payments WHERE checkout_id = ANY($1::text[]) ORDER BY checkout_id, seq',
    [checkoutIds],
  );
  const byCheckout = new Map<string, string[]>(checkoutIds.map((id) => [id, []]));
  for (const r of rows) byCheckout.get(r.checkout_id)?.push(r.payment_id);
  return byCheckout;
}

export async function checkoutIdOfPayment(q: Queryable, paymentId: string): Promise<string | undefined> {
  const rows = await q.query<{ checkout_id: string }>('SELECT checkout_id FROM checkout_payments WHERE payment_id = $1', [
    paymentId,
  ]);
  return rows[0]?.checkout_id;
}

/**
 * Takes the selection lease on an open checkout and appends the payment the selection will create,
 * in the caller's transaction (the row is locked first). Returns the previous selection's payment
 * id, or a refusal: the checkout is not open (or past its expiry), or another selection holds it.
 */
export async function takeSelectLease(
  tx: Queryable,
  w: { checkoutId: string; token: string; leasedUntil: Date; paymentId: string; now: Date; expectedVersion: number | undefined },
): Promise<
  | { kind: 'leased'; checkout: Checkout; previousPaymentId: string | null }
  | { kind: 'changed'; version: number }
  | { kind: 'not_open'; checkout: Checkout }
  | { kind: 'busy'; retryAfterSeconds: number }
  | { kind: 'not_found' }
> {
  const rows = await tx.query<CheckoutRow & { select_leased_until: Date | null }>(
    `SELECT ${COLUMNS}, select_leased_until FROM checkouts WHERE id = $1 FOR UPDATE`,
    [w.checkoutId],
  );
  const row = rows[0];
  if (row === undefined) return { kind: 'not_found' };
  const checkout = checkoutFromRow(row);
  if (checkout.status !== 'open' || checkout.expiresAt <= w.now) return { kind: 'not_open', checkout };
  if (w.expectedVersion !== undefined && checkout.version !== w.expectedVersion)
    return { kind: 'changed', version: checkout.version };
  if (row.select_leased_until !== null && row.select_leased_until > w.now) {
    return {
      kind: 'busy',
      retryAfterSeconds: Math.max(1, Math.ceil((row.select_leased_until.getTime() - w.now.getTime()) / 1000)),
    };
  }
  await tx.query('UPDATE checkouts SET select_lease_token = $2, select_leased_until = $3 WHERE id = $1', [
    w.checkoutId,
    w.token,
    w.leasedUntil,
  ]);
  const previous = await tx.query<{ payment_id: string; seq: number }>(
    'SELECT payment_id, seq FROM checkout_payments WHERE checkout_id = $1 ORDER BY seq DESC LIMIT 1',
    [w.checkoutId],
  );
  const last = previous[0];
  await tx.query('INSERT INTO checkout_payments (checkout_id, seq, payment_id, created_at) VALUES ($1, $2, $3, $4)', [
    w.checkoutId,
    (last === undefined ? 0 : Number(last.seq)) + 1,
    w.paymentId,
    w.now,
  ]);
  return { kind: 'leased', checkout, previousPaymentId: last?.payment_id ?? null };
}

/** Whether a selection holds the checkout now (the hosted page then says it is preparing). */
export async function selectionInProgress(q: Queryable, checkoutId: string, now: Date): Promise<boolean> {
  const rows = await q.query<{ busy: boolean }>(
    'SELECT select_leased_until IS NOT NULL AND select_leased_until > $2 AS busy FROM checkouts WHERE id = $1',
    [checkoutId, now],
  );
  return rows[0]?.busy === true;
}

/** Ends a selection: the new current payment, fenced by our lease and `open`. False: we lost it. */
export async function finishSelect(
  q: Queryable,
  w: { checkoutId: string; token: string; paymentId: string; now: Date },
): Promise<Checkout | undefined> {
  const rows = await q.query<CheckoutRow>(
    `UPDATE checkouts SET current_payment_id = $3, version = version + 1, updated_at = $4,
       select_lease_token = NULL, select_leased_until = NULL
     WHERE id = $1 AND select_lease_token = $2 AND status = 'open' RETURNING ${COLUMNS}`,
    [w.checkoutId, w.token, w.paymentId, w.now],
  );
  return rows[0] === undefined ? undefined : checkoutFromRow(rows[0]);
}

/** Gives the lease back (a selection that stopped before creating anything). */
export async function releaseSelectLease(q: Queryable, checkoutId: string, token: string): Promise<void> {
  await q.query(
    `UPDATE checkouts SET select_lease_token = NULL, select_leased_until = NULL
     WHERE id = $1 AND select_lease_token = $2 AND status = 'open'`,
    [checkoutId, token],
  );
}

/** Closes an open checkout (the caller holds its lock); the new version is returned. */
export async function closeCheckout(
  tx: Queryable,
  before: Checkout,
  to: { status: 'completed'; paymentId: string } | { status: 'expired' },
  now: Date,
): Promise<Checkout> {
  const completed = to.status === 'completed' ? to.paymentId : null;
  const rows = await tx.query<CheckoutRow>(
    `UPDATE checkouts SET status = $2, completed_payment_id = $3, current_payment_id = COALESCE($3, current_payment_id),
       version = version + 1, updated_at = $4, closed_at = $4, select_lease_token = NULL, select_leased_until = NULL
     WHERE id = $1 AND status = 'open' RETURNING ${COLUMNS}`,
    [before.id, to.status, completed, now],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`checkout ${before.id} was not open under its lock`);
  return checkoutFromRow(row);
}

/** Open checkouts past their expiry, oldest first (the expiry sweeper). */
export async function dueCheckouts(
  q: Queryable,
  now: Date,
  limit: number,
): Promise<{ id: string; merchantId: string; environment: Environment }[]> {
  const rows = await q.query<{ id: string; merchant_id: string; environment: Environment }>(
    `SELECT id, merchant_id, environment FROM checkouts WHERE status = 'open' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, environment: r.environment }));
}
