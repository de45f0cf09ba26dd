import type { Queryable } from '../../db/store.ts';
import type { Captured, ComparedLine, LineResult, OurSettlement } from './compare-report.ts';
import type { Environment } from '../../kernel/index.ts';

/** Reconciliations and their lines (migration 0009); every read is scoped by merchant and environment. */
export interface Reconciliation {
  id: string;
  merchantId: string;
  environment: Environment;
  connector: string;
  from: Date;
  to: Date;
  inputsHash: string;
  status: 'matched' | 'discrepancies';
  reportLines: number;
  matchedCount: number;
  discrepancyCount: number;
  counts: Record<LineResult, number>;
  apiVersion: string;
  createdAt: Date;
}

type ReconciliationRow = {
  id: string;
  merchant_id: string;
  environment: Environment;
  connector: string;
  period_from: Date;
  period_to: Date;
  inputs_hash: string;
  status: 'matched' | 'discrepancies';
  report_lines: number;
  matched_count: number;
  discrepancy_count: number;
  counts: Record<LineResult, number>;
  api_version: string;
  created_at: Date;
};

type LineRow = {
  seq: number;
  result: LineResult;
  payment_id: string | null;
  provider_reference: string | null;
  report_currency: string | null;
  report_gross_minor: bigint | null;
  report_fee_minor: bigint | null;
  report_net_minor: bigint | null;
  report_settled_at: Date | null;
  our_currency: string | null;
  our_gross_minor: bigint | null;
  our_fee_minor: bigint | null;
  our_net_minor: bigint | null;
  our_settled_at: Date | null;
  settlement_id: string | null;
};

const fromRow = (r: ReconciliationRow): Reconciliation => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment,
  connector: r.connector,
  from: r.period_from,
  to: r.period_to,
  inputsHash: r.inputs_hash,
  status: r.status,
  reportLines: r.report_lines,
  matchedCount: r.matched_count,
  discrepancyCount: r.discrepancy_count,
  counts: typeof r.counts === 'string' ? (JSON.parse(r.counts) as Record<LineResult, number>) : r.counts,
  apiVersion: r.api_version,
  createdAt: r.created_at,
});

const big = (v: bigint | null) => (v === null ? null : BigInt(v));

const lineFromRow = (r: LineRow): ComparedLine => ({
  result: r.result,
  paymentId: r.payment_id,
  providerReference: r.provider_reference ?? '',
  report:
    r.report_settled_at === null
      ? null
      : {
          providerReference: r.provider_reference ?? '',
          paymentId: r.payment_id,
          currency: r.report_currency ?? '',
          grossMinor: big(r.report_gross_minor) ?? 0n,
          feeMinor: big(r.report_fee_minor) ?? 0n,
          netMinor: big(r.report_net_minor) ?? 0n,
          settledAt: r.report_settled_at,
        },
  ours:
    r.our_settled_at === null || r.payment_id === null || r.settlement_id === null
      ? null
      : {
          paymentId: r.payment_id,
          providerReference: r.provider_reference ?? '',
          settlementId: r.settlement_id,
          currency: r.our_currency ?? '',
          grossMinor: big(r.our_gross_minor) ?? 0n,
          feeMinor: big(r.our_fee_minor) ?? 0n,
          netMinor: big(r.our_net_minor) ?? 0n,
          settledAt: r.our_settled_at,
        },
});

/** Inserts the reconciliation unless one with the same inputs exists; false when it did. */
/** Lines numbered as they are stored and shown: report order, from 1 (`seq`, the lines' cursor). */
export function numberLines(lines: readonly ComparedLine[]): NumberedLine[] {
  return lines.map((line, i) => ({ ...line, seq: i + 1 }));
}

export async function insertReconciliation(q: Queryable, r: Reconciliation, lines: readonly NumberedLine[]): Promise<boolean> {
  const inserted = await q.query(
    `INSERT INTO reconciliations (id, merchant_id, environment, connector, period_from, period_to, inputs_hash, status,
       report_lines, matched_count, discrepancy_count, counts, api_version, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (merchant_id, environment, connector, period_from, period_to, inputs_hash) DO NOTHING RETURNING id`,
    [
      r.id,
      r.merchantId,
      r.environment,
      r.connector,
      r.from,
      r.to,
      r.inputsHash,
      r.status,
      r.reportLines,
      r.matchedCount,
      r.discrepancyCount,
      JSON.stringify(r.counts),
      r.apiVersion,
      r.createdAt,
    ],
  );
  if (inserted.length === 0) return false;
  // Bounded batches keep each statement's parameter count well under PostgreSQL's limit.
  for (let start = 0; start < lines.length; start += 500) {
    const values: unknown[] = [];
    const rows = lines.slice(start, start + 500).map((l, i) => {
      const b = i * 18;
      values.push(
        r.id,
        r.merchantId,
        r.environment,
        l.seq,
        l.result,
        l.paymentId,
        l.providerReference,
        l.report?.currency ?? null,
        l.report?.grossMinor ?? null,
        l.report?.feeMinor ?? null,
        l.report?.netMinor ?? null,
        l.report?.settledAt ?? null,
        l.ours?.currency ?? null,
        l.ours?.grossMinor ?? null,
        l.ours?.feeMinor ?? null,
        l.ours?.netMinor ?? null,
        l.ours?.settledAt ?? null,
        l.ours?.settlementId ?? null,
      );
      return `(${Array.from({ length: 18 }, (_, k) => `$${b + k + 1}`).join(', ')})`;
    });
    await q.query(
      `INSERT INTO reconciliation_lines (reconciliation_id, merchant_id, environment, seq, result, payment_id, provider_reference,
         report_currency, report_gross_minor, report_fee_minor, report_net_minor, report_settled_at,
         our_currency, our_gross_minor, our_fee_minor, our_net_minor, our_settled_at, settlement_id)
       VALUES ${rows.join(', ')}`,
      values,
    );
  }
  return true;
}

export async function findReconciliationByInputs(
  q: Queryable,
  key: Pick<Reconciliation, 'merchantId' | 'environment' | 'connector' | 'from' | 'to' | 'inputsHash'>,
): Promise<Reconciliation | undefined> {
  const rows = await q.query<ReconciliationRow>(
    `SELECT * FROM reconciliations WHERE merchant_id = $1 AND environment = $2 AND connector = $3
       AND period_from = $4 AND period_to = $5 AND inputs_hash = $6`,
    [key.merchantId, key.environment, key.connector, key.from, key.to, key.inputsHash],
  );
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

/** The tenant's latest reconciliations, newest first (the dashboard). */
export async function listRecentReconciliations(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  limit: number,
): Promise<Reconciliation[]> {
  const rows = await q.query<ReconciliationRow>(
    `SELECT * FROM reconciliations WHERE merchant_id = $1 AND environment = $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
    [merchantId, environment, limit],
  );
  return rows.map(fromRow);
}

export async function findReconciliation(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<Reconciliation | undefined> {
  const rows = await q.query<ReconciliationRow>(
    'SELECT * FROM reconciliations WHERE id = $1 AND merchant_id = $2 AND environment = $3',
    [id, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

/** A line with its position in the reconciliation (1-based), which is also the lines' cursor. */
export type NumberedLine = ComparedLine & { seq: number };

export interface LinePageQuery {
  /** Lines after this position (0: from the first). */
  afterSeq: number;
  /** At most this many; undefined: all the rest (the CSV export). */
  limit?: number;
  /** Only lines with this result. */
  result?: LineResult;
  /** Only the lines that are not `matched` (the dashboard's discrepancies view). */
  discrepanciesOnly?: boolean;
}

/**
 * One page of a reconciliation's lines in report order, and whether more follow. The caller has
 * already found the reconciliation under the same merchant and environment; the scope is repeated
 * here anyway so that no query can read another tenant's lines.
 */
export async function listReconciliationLines(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
  page: LinePageQuery,
): Promise<{ lines: NumberedLine[]; hasMore: boolean }> {
  const params: unknown[] = [id, merchantId, environment, page.afterSeq];
  let where = 'reconciliation_id = $1 AND merchant_id = $2 AND environment = $3 AND seq > $4';
  if (page.result !== undefined) {
    params.push(page.result);
    where += ` AND result = $${params.length}`;
  }
  if (page.discrepanciesOnly === true) where += ` AND result <> 'matched'`;
  let limit = '';
  if (page.limit !== undefined) {
    // One more than asked says whether another page follows.
    params.push(page.limit + 1);
    limit = ` LIMIT $${params.length}`;
  }
  const rows = await q.query<LineRow>(`SELECT * FROM reconciliation_lines WHERE ${where} ORDER BY seq${limit}`, params);
  const hasMore = page.limit !== undefined && rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  return { lines: kept.map((r) => ({ ...lineFromRow(r), seq: r.seq })), hasMore };
}

/**
 * Our settled payments of one connector: those settled in [from, to), and those the report names
 * (wherever they settled), so a line dated outside the window is still compared with our record.
 */
export async function findOurSettlements(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  connector: string,
  window: { from: Date; to: Date },
  named: readonly string[],
): Promise<Map<string, OurSettlement>> {
  const rows = await q.query<{
    payment_id: string;
    provider_reference: string;
    settlement_id: string;
    currency: string;
    gross_minor: bigint;
    fee_minor: bigint;
    net_minor: bigint;
    settled_at: Date;
  }>(
    `SELECT l.payment_id, l.provider_reference, l.settlement_id, s.currency, l.gross_minor, l.fee_minor, l.net_minor, l.settled_at
     FROM settlement_lines l JOIN settlements s ON s.id = l.settlement_id
     WHERE l.merchant_id = $1 AND l.environment = $2 AND s.connector = $3
       AND ((l.settled_at >= $4 AND l.settled_at < $5) OR l.payment_id = ANY($6::text[]))`,
    [merchantId, environment, connector, window.from, window.to, [...named]],
  );
  return new Map(
    rows.map((r) => [
      r.payment_id,
      {
        paymentId: r.payment_id,
        providerReference: r.provider_reference,
        settlementId: r.settlement_id,
        currency: r.currency,
        grossMinor: BigInt(r.gross_minor),
        feeMinor: BigInt(r.fee_minor),
        netMinor: BigInt(r.net_minor),
        settledAt: r.settled_at,
      },
    ]),
  );
}

/** What the payer paid for each of these payments (the merchant's own only). */
export async function findCaptured(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentIds: readonly string[],
): Promise<Map<string, Captured>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await q.query<{ id: string; currency: string; amount_paid_minor: bigint }>(
    'SELECT id, currency, amount_paid_minor FROM payments WHERE merchant_id = $1 AND environment = $2 AND id = ANY($3::text[])',
    [merchantId, environment, [...paymentIds]],
  );
  return new Map(rows.map((r) => [r.id, { currency: r.currency, amountPaidMinor: BigInt(r.amount_paid_minor) }]));
}

/**
 * Discrepancies still open, per environment, for the operator's metrics (docs/operations.md):
 * the non-matched lines of the latest reconciliation of each merchant × connector × window created
 * since `since`. A discrepancy closes when a later reconciliation of the same window matches (the
 * usual fix: reconcile again after the next settlement ingestion). `late` lines are left out: a
 * line dated in another window is no money problem by itself. Counts only, across tenants; the
 * table holds one row per reconciliation run, so the scan stays small.
 */
export async function countOpenDiscrepancies(q: Queryable, since: Date): Promise<Record<Environment, number>> {
  const rows = await q.query<{ environment: Environment; n: bigint }>(
    `SELECT environment, coalesce(sum(open), 0)::bigint AS n FROM (
       SELECT DISTINCT ON (merchant_id, environment, connector, period_from, period_to) environment,
              discrepancy_count - coalesce((counts ->> 'late')::integer, 0) AS open
       FROM reconciliations WHERE created_at >= $1
       ORDER BY merchant_id, environment, connector, period_from, period_to, created_at DESC, id DESC) latest
     GROUP BY environment`,
    [since],
  );
  const out: Record<Environment, number> = { sandbox: 0, production: 0 };
  for (const r of rows) out[r.environment] = Number(r.n);
  return out;
}
