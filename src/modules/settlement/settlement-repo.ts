import type { Queryable } from '../../db/store.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import type { Payment } from '../payments/index.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Settlement batches and their lines (migration 0009). Every read takes the merchant and the
 * environment; only the ingestion (which serves all tenants) reads attempts and cursors unscoped.
 */
export interface Settlement {
  id: string;
  merchantId: string;
  environment: Environment;
  connector: string;
  currency: CurrencyCode;
  grossMinor: bigint;
  feeMinor: bigint;
  netMinor: bigint;
  paymentCount: number;
  periodStart: Date;
  periodEnd: Date;
  createdAt: Date;
}

export interface SettlementLine {
  settlementId: string;
  paymentId: string;
  attemptId: string;
  providerReference: string;
  grossMinor: bigint;
  feeMinor: bigint;
  netMinor: bigint;
  settledAt: Date;
}

type SettlementRow = {
  id: string;
  merchant_id: string;
  environment: Environment;
  connector: string;
  currency: string;
  gross_minor: bigint;
  fee_minor: bigint;
  net_minor: bigint;
  payment_count: number;
  period_start: Date;
  period_end: Date;
  created_at: Date;
};

type LineRow = {
  settlement_id: string;
  payment_id: string;
  attempt_id: string;
  provider_reference: string;
  gross_minor: bigint;
  fee_minor: bigint;
  net_minor: bigint;
  settled_at: Date;
};

const settlementFromRow = (r: SettlementRow): Settlement => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment,
  connector: r.connector,
  currency: r.currency as CurrencyCode,
  grossMinor: BigInt(r.gross_minor),
  feeMinor: BigInt(r.fee_minor),
  netMinor: BigInt(r.net_minor),
  paymentCount: r.payment_count,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  createdAt: r.created_at,
});

const lineFromRow = (r: LineRow): SettlementLine => ({
  settlementId: r.settlement_id,
  paymentId: r.payment_id,
  attemptId: r.attempt_id,
  providerReference: r.provider_reference,
  grossMinor: BigInt(r.gross_minor),
  feeMinor: BigInt(r.fee_minor),
  netMinor: BigInt(r.net_minor),
  settledAt: r.settled_at,
});

/** The batch first, then its lines: the totals trigger checks them at commit. */
export async function insertSettlement(q: Queryable, s: Settlement, lines: readonly SettlementLine[]): Promise<void> {
  await q.query(
    `INSERT INTO settlements (id, merchant_id, environment, connector, currency, gross_minor, fee_minor, net_minor,
       payment_count, period_start, period_end, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      s.id,
      s.merchantId,
      s.environment,
      s.connector,
      s.currency,
      s.grossMinor,
      s.feeMinor,
      s.netMinor,
      s.paymentCount,
      s.periodStart,
      s.periodEnd,
      s.createdAt,
    ],
  );
  const values: unknown[] = [];
  const rows = lines.map((l, i) => {
    const b = i * 10;
    values.push(
      l.settlementId,
      s.merchantId,
      s.environment,
      l.paymentId,
      l.attemptId,
      l.providerReference,
      l.grossMinor,
      l.feeMinor,
      l.netMinor,
      l.settledAt,
    );
    return `(${Array.from({ length: 10 }, (_, k) => `$${b + k + 1}`).join(', ')})`;
  });
  await q.query(
    `INSERT INTO settlement_lines (settlement_id, merchant_id, environment, payment_id, attempt_id, provider_reference,
       gross_minor, fee_minor, net_minor, settled_at) VALUES ${rows.join(', ')}`,
    values,
  );
}

/** Records a payment's settlement (version + 1, fenced like every payment write). */
export async function markPaymentSettled(q: Queryable, before: Payment, after: Payment): Promise<boolean> {
  const rows = await q.query(
    `UPDATE payments SET settlement_id = $3, settled_at = $4, fee_minor = $5, net_minor = $6, version = $7, updated_at = $8
     WHERE id = $1 AND version = $2 RETURNING id`,
    [
      after.id,
      before.version,
      after.settlementId,
      after.settledAt,
      after.feeMinor,
      after.netMinor,
      after.version,
      after.updatedAt,
    ],
  );
  return rows.length === 1;
}

export async function findSettlement(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<{ settlement: Settlement; lines: (SettlementLine & { referenceNo: string })[] } | undefined> {
  const rows = await q.query<SettlementRow>('SELECT * FROM settlements WHERE id = $1 AND merchant_id = $2 AND environment = $3', [
    id,
    merchantId,
    environment,
  ]);
  if (rows[0] === undefined) return undefined;
  const lines = await q.query<LineRow & { reference_no: string }>(
    `SELECT l.*, p.reference_no FROM settlement_lines l JOIN payments p ON p.id = l.payment_id
     WHERE l.settlement_id = $1 AND l.merchant_id = $2 AND l.environment = $3 ORDER BY l.settled_at, l.payment_id`,
    [id, merchantId, environment],
  );
  return {
    settlement: settlementFromRow(rows[0]),
    lines: lines.map((r) => ({ ...lineFromRow(r), referenceNo: r.reference_no })),
  };
}

/** The settlement line of a payment, if it settled. */
export async function findLineOfPayment(q: Queryable, paymentId: string): Promise<SettlementLine | undefined> {
  const rows = await q.query<LineRow>('SELECT * FROM settlement_lines WHERE payment_id = $1', [paymentId]);
  return rows[0] === undefined ? undefined : lineFromRow(rows[0]);
}

export type SettlementPage = { ok: true; settlements: Settlement[]; hasMore: boolean } | { ok: false };

/**
 * One page of a merchant's settlements, newest first, by keyset on `(created_at, id)` exactly like
 * GET /payment (decision 0010): the cursor must be one of the caller's settlements.
 */
export async function listSettlements(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  page: { limit: number; startingAfter?: string; connector?: string },
): Promise<SettlementPage> {
  const params: unknown[] = [merchantId, environment];
  const where = ['s.merchant_id = $1', 's.environment = $2'];
  if (page.startingAfter !== undefined) {
    const cursor = await q.query('SELECT 1 FROM settlements WHERE id = $1 AND merchant_id = $2 AND environment = $3', [
      page.startingAfter,
      merchantId,
      environment,
    ]);
    if (cursor.length === 0) return { ok: false };
    params.push(page.startingAfter);
    where.push(
      `(s.created_at, s.id) < (SELECT c.created_at, c.id FROM settlements c WHERE c.id = $${params.length} AND c.merchant_id = $1 AND c.environment = $2)`,
    );
  }
  if (page.connector !== undefined) {
    params.push(page.connector);
    where.push(`s.connector = $${params.length}`);
  }
  params.push(page.limit + 1);
  const rows = await q.query<SettlementRow>(
    `SELECT s.* FROM settlements s WHERE ${where.join(' AND ')} ORDER BY s.created_at DESC, s.id DESC LIMIT $${params.length}`,
    params,
  );
  return { ok: true, settlements: rows.slice(0, page.limit).map(settlementFromRow), hasMore: rows.length > page.limit };
}

export async function readCursor(q: Queryable, connector: string): Promise<Date | undefined> {
  const rows = await q.query<{ cursor_at: Date }>('SELECT cursor_at FROM settlement_cursors WHERE connector = $1', [connector]);
  return rows[0]?.cursor_at;
}

/** Moves the cursor forward only: a slower concurrent run never moves it back. */
export async function advanceCursor(q: Queryable, connector: string, to: Date, now: Date): Promise<void> {
  await q.query(
    `INSERT INTO settlement_cursors (connector, cursor_at, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (connector) DO UPDATE SET cursor_at = greatest(settlement_cursors.cursor_at, EXCLUDED.cursor_at),
       updated_at = EXCLUDED.updated_at`,
    [connector, to, now],
  );
}
