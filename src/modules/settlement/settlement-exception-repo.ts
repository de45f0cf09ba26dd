import type { Queryable } from '../../db/store.ts';
import { newId } from '../../lib/ids.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Settlement exceptions (docs/money.md "Settlement exceptions"): report lines the ingestion did
 * not apply. Recorded once, read by their merchant through the API and by operators through the
 * CLI, and resolved once by an operator. Nothing here moves money.
 */
export const EXCEPTION_KINDS = [
  'unknown_reference',
  'amount_mismatch',
  'currency_mismatch',
  'not_succeeded',
  'already_settled',
] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];

export const EXCEPTION_STATUSES = ['open', 'resolved'] as const;
export type ExceptionStatus = (typeof EXCEPTION_STATUSES)[number];

/** What the ingestion records about a line it refused. */
export interface NewSettlementException {
  connector: string;
  providerReference: string;
  attemptId: string;
  settledAt: Date;
  kind: ExceptionKind;
  merchantId: string | null;
  environment: Environment | null;
  paymentId: string | null;
  grossMinor: bigint;
  feeMinor: bigint;
  currency: string;
  detail: string;
  now: Date;
}

export interface SettlementException extends Omit<NewSettlementException, 'now'> {
  id: string;
  status: ExceptionStatus;
  resolvedAt: Date | null;
  resolution: string | null;
  createdAt: Date;
}

type Row = {
  id: string;
  connector: string;
  provider_reference: string;
  attempt_id: string;
  settled_at: Date;
  kind: ExceptionKind;
  merchant_id: string | null;
  environment: Environment | null;
  payment_id: string | null;
  gross_minor: bigint;
  fee_minor: bigint;
  currency: string;
  detail: string;
  created_at: Date;
  resolved_at: Date | null;
  resolution: string | null;
};

const fromRow = (r: Row): SettlementException => ({
  id: r.id,
  connector: r.connector,
  providerReference: r.provider_reference,
  attemptId: r.attempt_id,
  settledAt: r.settled_at,
  kind: r.kind,
  merchantId: r.merchant_id,
  environment: r.environment,
  paymentId: r.payment_id,
  grossMinor: BigInt(r.gross_minor),
  feeMinor: BigInt(r.fee_minor),
  currency: r.currency,
  detail: r.detail,
  status: r.resolved_at === null ? 'open' : 'resolved',
  resolvedAt: r.resolved_at,
  resolution: r.resolution,
  createdAt: r.created_at,
});

/**
 * Records a report line the ingestion did not apply and returns it; recording it again changes
 * nothing and returns undefined.
 */
export async function recordException(q: Queryable, e: NewSettlementException): Promise<SettlementException | undefined> {
  const rows = await q.query<Row>(
    `INSERT INTO settlement_exceptions (id, connector, provider_reference, attempt_id, settled_at, kind, merchant_id, environment,
       payment_id, gross_minor, fee_minor, currency, detail, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING RETURNING *`,
    [
      newId('settlementException', e.now.getTime()),
      e.connector,
      e.providerReference,
      e.attemptId,
      e.settledAt,
      e.kind,
      e.merchantId,
      e.environment,
      e.paymentId,
      e.grossMinor,
      e.feeMinor,
      e.currency,
      e.detail,
      e.now,
    ],
  );
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

/**
 * Whose exceptions a read may see: one merchant in one environment (the API), or an operator
 * (the CLI), who sees every row, also those attributed to nobody, optionally one merchant's.
 */
export type ExceptionScope = { merchantId: string; environment: Environment } | { operator: true; merchantId?: string };

function scopeWhere(scope: ExceptionScope, params: unknown[], alias: string): string[] {
  if ('operator' in scope) {
    if (scope.merchantId === undefined) return [];
    params.push(scope.merchantId);
    return [`${alias}.merchant_id = $${params.length}`];
  }
  params.push(scope.merchantId, scope.environment);
  return [`${alias}.merchant_id = $${params.length - 1}`, `${alias}.environment = $${params.length}`];
}

export async function findSettlementException(
  q: Queryable,
  scope: ExceptionScope,
  id: string,
): Promise<SettlementException | undefined> {
  const params: unknown[] = [id];
  const where = ['e.id = $1', ...scopeWhere(scope, params, 'e')];
  const rows = await q.query<Row>(`SELECT e.* FROM settlement_exceptions e WHERE ${where.join(' AND ')}`, params);
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

export interface ExceptionFilter {
  status?: ExceptionStatus;
  kind?: ExceptionKind;
  connector?: string;
}

export type ExceptionPage = { ok: true; exceptions: SettlementException[]; hasMore: boolean } | { ok: false };

/**
 * Newest first, one page at a time, with the cursor rules of every list (decision 0010): the
 * cursor must be a row the scope can see (else `ok: false`), and the page continues after it
 * in (created_at, id) order.
 */
export async function listSettlementExceptions(
  q: Queryable,
  scope: ExceptionScope,
  filter: ExceptionFilter,
  page: { limit: number; startingAfter?: string },
): Promise<ExceptionPage> {
  const params: unknown[] = [];
  const where = scopeWhere(scope, params, 'e');
  if (page.startingAfter !== undefined) {
    const cursor = await findSettlementException(q, scope, page.startingAfter);
    if (cursor === undefined) return { ok: false };
    params.push(cursor.createdAt, cursor.id);
    where.push(`(e.created_at, e.id) < ($${params.length - 1}, $${params.length})`);
  }
  if (filter.status !== undefined) where.push(filter.status === 'open' ? 'e.resolved_at IS NULL' : 'e.resolved_at IS NOT NULL');
  if (filter.kind !== undefined) {
    params.push(filter.kind);
    where.push(`e.kind = $${params.length}`);
  }
  if (filter.connector !== undefined) {
    params.push(filter.connector);
    where.push(`e.connector = $${params.length}`);
  }
  params.push(page.limit + 1);
  const rows = await q.query<Row>(
    `SELECT e.* FROM settlement_exceptions e ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
    params,
  );
  return { ok: true, exceptions: rows.slice(0, page.limit).map(fromRow), hasMore: rows.length > page.limit };
}

export type ResolveResult =
  | { kind: 'resolved'; exception: SettlementException }
  | { kind: 'already_resolved'; exception: SettlementException }
  | { kind: 'not_found' };

/**
 * Marks an open exception resolved with the operator's note. The update is conditional on the
 * row still being open, so of two operators resolving at once exactly one wins; the other is told
 * who came first (when and with which note). A resolution is final.
 */
export async function resolveSettlementException(
  q: Queryable,
  id: string,
  resolution: string,
  now: Date,
): Promise<ResolveResult> {
  const rows = await q.query<Row>(
    `UPDATE settlement_exceptions SET resolved_at = $2, resolution = $3 WHERE id = $1 AND resolved_at IS NULL RETURNING *`,
    [id, now, resolution],
  );
  if (rows[0] !== undefined) return { kind: 'resolved', exception: fromRow(rows[0]) };
  const existing = await findSettlementException(q, { operator: true }, id);
  return existing === undefined ? { kind: 'not_found' } : { kind: 'already_resolved', exception: existing };
}

/**
 * Open exceptions per kind across every merchant, for the operator's metrics (docs/operations.md):
 * counts only. Exceptions are rare report lines, so the scan stays small; every kind is present,
 * with 0 when none is open, so that an alert sees 0 rather than nothing.
 */
export async function countOpenSettlementExceptions(q: Queryable): Promise<Record<ExceptionKind, number>> {
  const rows = await q.query<{ kind: ExceptionKind; n: bigint }>(
    'SELECT kind, count(*) AS n FROM settlement_exceptions WHERE resolved_at IS NULL GROUP BY kind',
  );
  const out = Object.fromEntries(EXCEPTION_KINDS.map((k) => [k, 0])) as Record<ExceptionKind, number>;
  for (const r of rows) out[r.kind] = Number(r.n);
  return out;
}
