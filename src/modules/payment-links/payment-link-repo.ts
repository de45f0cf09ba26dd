import type { Queryable } from '../../db/store.ts';
import type { Channel, Environment } from '../../kernel/index.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { EMPTY_SUMMARY, type PaymentLink, type PaymentLinkSummary } from './payment-link-types.ts';

/**
 * Data access for payment links. Every finder a merchant reaches takes the merchant and
 * environment; the payer's finder (`findPaymentLinkForPayer`) takes only the id, which is the
 * capability of a public link. Lock order: the link row, then (in createCheckout, after our
 * transaction) the checkout.
 */
type LinkRow = {
  id: string;
  merchant_id: string;
  environment: Environment;
  active: boolean;
  amount_minor: bigint | null;
  amount_min_minor: bigint | null;
  amount_max_minor: bigint | null;
  currency: string;
  description: string | null;
  channels: Channel[] | null;
  success_url: string | null;
  cancel_url: string | null;
  max_uses: number | null;
  expires_at: Date | null;
  checkout_expires_in: number;
  api_version: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
};

const COLUMNS = `id, merchant_id, environment, active, amount_minor, amount_min_minor, amount_max_minor, currency,
  description, channels, success_url, cancel_url, max_uses, expires_at, checkout_expires_in, api_version, version,
  created_at, updated_at, deactivated_at`;

function linkFromRow(r: LinkRow): PaymentLink {
  const amount =
    r.amount_minor !== null
      ? { kind: 'fixed' as const, amountMinor: BigInt(r.amount_minor) }
      : {
          kind: 'payer_entered' as const,
          minMinor: BigInt(r.amount_min_minor as bigint),
          maxMinor: BigInt(r.amount_max_minor as bigint),
        };
  return {
    id: r.id,
    merchantId: r.merchant_id,
    environment: r.environment,
    active: r.active,
    amount,
    currency: r.currency as CurrencyCode,
    description: r.description,
    channels: r.channels,
    successUrl: r.success_url,
    cancelUrl: r.cancel_url,
    maxUses: r.max_uses === null ? null : Number(r.max_uses),
    expiresAt: r.expires_at,
    checkoutExpiresInSeconds: Number(r.checkout_expires_in),
    apiVersion: r.api_version,
    version: Number(r.version),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deactivatedAt: r.deactivated_at,
  };
}

export async function insertPaymentLink(q: Queryable, l: PaymentLink): Promise<void> {
  const fixed = l.amount.kind === 'fixed' ? l.amount.amountMinor : null;
  const min = l.amount.kind === 'payer_entered' ? l.amount.minMinor : null;
  const max = l.amount.kind === 'payer_entered' ? l.amount.maxMinor : null;
  await q.query(
    `INSERT INTO payment_links (${COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
    [
      l.id,
      l.merchantId,
      l.environment,
      l.active,
      fixed,
      min,
      max,
      l.currency,
      l.description,
      l.channels,
      l.successUrl,
      l.cancelUrl,
      l.maxUses,
      l.expiresAt,
      l.checkoutExpiresInSeconds,
      l.apiVersion,
      l.version,
      l.createdAt,
      l.updatedAt,
      l.deactivatedAt,
    ],
  );
}

export async function findPaymentLink(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<PaymentLink | undefined> {
  const rows = await q.query<LinkRow>(
    `SELECT ${COLUMNS} FROM payment_links WHERE id = $1 AND merchant_id = $2 AND environment = $3`,
    [id, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : linkFromRow(rows[0]);
}

/** The payer's lookup: by id alone (a public link's id is its capability, like `/pay/{id}`). */
export async function findPaymentLinkForPayer(q: Queryable, id: string): Promise<PaymentLink | undefined> {
  const rows = await q.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1`, [id]);
  return rows[0] === undefined ? undefined : linkFromRow(rows[0]);
}

export type PaymentLinkPage = { ok: true; links: PaymentLink[]; hasMore: boolean } | { ok: false; reason: 'unknown_cursor' };

/** Newest first, by (created_at, id); one row more than asked tells whether another page exists. */
export async function listPaymentLinks(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  page: { limit: number; startingAfter?: string },
): Promise<PaymentLinkPage> {
  const params: unknown[] = [merchantId, environment];
  const where = ['merchant_id = $1', 'environment = $2'];
  if (page.startingAfter !== undefined) {
    const cursor = await findPaymentLink(q, merchantId, environment, page.startingAfter);
    if (cursor === undefined) return { ok: false, reason: 'unknown_cursor' };
    params.push(cursor.createdAt, cursor.id);
    where.push(`(created_at, id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(page.limit + 1);
  const rows = await q.query<LinkRow>(
    `SELECT ${COLUMNS} FROM payment_links WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return { ok: true, links: rows.slice(0, page.limit).map(linkFromRow), hasMore: rows.length > page.limit };
}

/**
 * Deactivates the merchant's link under its row lock (a visit claiming a use holds the same lock,
 * so a visit either saw the link active and claimed before, or sees it inactive). An inactive link
 * is answered unchanged.
 */
export async function deactivatePaymentLink(
  tx: Queryable,
  owner: { merchantId: string; environment: Environment },
  id: string,
  now: Date,
): Promise<{ link: PaymentLink; changed: boolean } | undefined> {
  const locked = await tx.query<LinkRow>(
    `SELECT ${COLUMNS} FROM payment_links WHERE id = $1 AND merchant_id = $2 AND environment = $3 FOR UPDATE`,
    [id, owner.merchantId, owner.environment],
  );
  const row = locked[0];
  if (row === undefined) return undefined;
  if (!row.active) return { link: linkFromRow(row), changed: false };
  const rows = await tx.query<LinkRow>(
    `UPDATE payment_links SET active = false, deactivated_at = $2, updated_at = $2, version = version + 1
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, now],
  );
  return { link: linkFromRow(rows[0] as LinkRow), changed: true };
}

/**
 * Whether a visit holds one of the link's uses at `$now` (docs/checkout.md section 8): its checkout
 * completed; or open and before its expiry, or with a payment selected (that payment can still be
 * paid until the sweeper expires the checkout and cancels it); or its checkout not written (yet, or
 * ever: a crash between the claim and the create) and the claim not past `reserved_until`.
 */
const HOLDS_A_USE = (now: string) => `(
  c.status = 'completed'
  OR (c.status = 'open' AND (c.expires_at > ${now} OR EXISTS (SELECT 1 FROM checkout_payments cp WHERE cp.checkout_id = c.id)))
  OR (c.id IS NULL AND r.reserved_until > ${now}))`;

export type UseClaim =
  | { kind: 'claimed'; link: PaymentLink; seq: number }
  | { kind: 'revisit'; checkoutId: string }
  | { kind: 'not_found' }
  | { kind: 'inactive'; link: PaymentLink }
  | { kind: 'expired'; link: PaymentLink }
  | { kind: 'used_up'; link: PaymentLink; held: number };

/**
 * Claims one use of the link for a checkout whose id the caller chose, in the caller's transaction:
 * the link row is locked first, so two visits for the last use serialise here and the second one
 * counts the first one's claim (PostgreSQL's READ COMMITTED takes a new snapshot per statement,
 * after the lock was granted). The claim row is what createCheckout's checkout is later found by.
 */
export async function claimUse(
  tx: Queryable,
  w: { linkId: string; checkoutId: string; amountMinor: bigint; reservedUntil: Date; now: Date; visitToken: string | null },
): Promise<UseClaim> {
  const locked = await tx.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1 FOR UPDATE`, [w.linkId]);
  if (locked[0] === undefined) return { kind: 'not_found' };
  if (w.visitToken !== null) {
    // Under the link's lock, so two posts of one form serialise and the second finds the first.
    const earlier = await tx.query<{ checkout_id: string }>(
      'SELECT checkout_id FROM payment_link_checkouts WHERE payment_link_id = $1 AND visit_token = $2',
      [w.linkId, w.visitToken],
    );
    if (earlier[0] !== undefined) return { kind: 'revisit', checkoutId: earlier[0].checkout_id };
  }
  const link = linkFromRow(locked[0]);
  if (!link.active) return { kind: 'inactive', link };
  if (link.expiresAt !== null && link.expiresAt <= w.now) return { kind: 'expired', link };
  if (link.maxUses !== null) {
    const counted = await tx.query<{ held: bigint }>(
      `SELECT count(*)::bigint AS held FROM payment_link_checkouts r LEFT JOIN checkouts c ON c.id = r.checkout_id
       WHERE r.payment_link_id = $1 AND ${HOLDS_A_USE('$2')}`,
      [w.linkId, w.now],
    );
    const held = Number(counted[0]?.held ?? 0n);
    if (held >= link.maxUses) return { kind: 'used_up', link, held };
  }
  const last = await tx.query<{ seq: number | null }>(
    'SELECT max(seq) AS seq FROM payment_link_checkouts WHERE payment_link_id = $1',
    [w.linkId],
  );
  const seq = Number(last[0]?.seq ?? 0) + 1;
  await tx.query(
    `INSERT INTO payment_link_checkouts (payment_link_id, seq, checkout_id, amount_minor, reserved_until, visit_token, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [w.linkId, seq, w.checkoutId, w.amountMinor, w.reservedUntil, w.visitToken, w.now],
  );
  return { kind: 'claimed', link, seq };
}

/** Gives a claim back when its checkout was refused before anything was written. */
export async function releaseUse(q: Queryable, linkId: string, checkoutId: string): Promise<void> {
  await q.query('DELETE FROM payment_link_checkouts WHERE payment_link_id = $1 AND checkout_id = $2', [linkId, checkoutId]);
}

/**
 * The checkouts of the merchant's links by status, what the completed ones collected, and the uses
 * held at `now` — for a page of links in one query.
 */
export async function summariesOfPaymentLinks(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  linkIds: readonly string[],
  now: Date,
): Promise<Map<string, PaymentLinkSummary>> {
  const summaries = new Map<string, PaymentLinkSummary>(linkIds.map((id) => [id, { ...EMPTY_SUMMARY }]));
  if (linkIds.length === 0) return summaries;
  const rows = await q.query<{ link_id: string; status: string | null; checkouts: bigint; amount_minor: bigint; held: bigint }>(
    `SELECT r.payment_link_id AS link_id, c.status, count(c.id)::bigint AS checkouts,
       coalesce(sum(c.amount_minor), 0)::bigint AS amount_minor,
       count(*) FILTER (WHERE ${HOLDS_A_USE('$4')})::bigint AS held
     FROM payment_link_checkouts r
     JOIN payment_links l ON l.id = r.payment_link_id
     LEFT JOIN checkouts c ON c.id = r.checkout_id
     WHERE r.payment_link_id = ANY($1::text[]) AND l.merchant_id = $2 AND l.environment = $3
     GROUP BY r.payment_link_id, c.status`,
    [linkIds, merchantId, environment, now],
  );
  for (const r of rows) {
    const s = summaries.get(r.link_id);
    if (s === undefined) continue;
    s.held += Number(r.held);
    const n = Number(r.checkouts);
    if (r.status === 'open') s.open += n;
    else if (r.status === 'expired') s.expired += n;
    else if (r.status === 'completed') {
      s.completed += n;
      s.collectedMinor += BigInt(r.amount_minor);
    }
  }
  return summaries;
}
