import type { Queryable } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';
import { addHistograms, emptyHistogram } from './time-to-pay.ts';
import { PAYMENT_STATUSES, type PaymentStatus } from '../payments/index.ts';

/**
 * What the overview page shows (docs/overview.md), read from the day aggregates only: at most
 * `OVERVIEW_DAYS` days of rows whatever the size of the merchant's history. Counts and amounts
 * are bigint (amounts in minor units), summed as bigint.
 */
export const OVERVIEW_DAYS = 30;
const DAY_MS = 86_400_000;

export interface DayAmount {
  day: string;
  count: bigint;
  minor: bigint;
}

/** Success over the payments that ended: paid (succeeded or reversed) out of ended. */
export interface SuccessRate {
  /** Channel or connector name; '' when the payment had none. */
  key: string;
  paid: bigint;
  ended: bigint;
  open: bigint;
}

export interface CurrencyTotals {
  currency: string;
  count: bigint;
  minor: bigint;
}

export interface Overview {
  /** The window's UTC days, oldest first, today last. */
  days: string[];
  /** When the refresh last ran (null: never) and how long it took. */
  refreshedAt: Date | null;
  lastDurationMs: number | null;
  /** Per currency, one entry per day of the window (zeros included): payments paid that day. */
  volume: { currency: string; days: DayAmount[] }[];
  byChannel: SuccessRate[];
  byConnector: SuccessRate[];
  /** Time-to-pay histogram of the window's paid payments (fixed buckets, time-to-pay.ts). */
  timeToPay: number[];
  statuses: Record<PaymentStatus, bigint>;
  createdCount: bigint;
  /** Succeeded refunds in the window, per currency, and per day per currency. */
  refunds: CurrencyTotals[];
  refundDays: { currency: string; days: DayAmount[] }[];
  /** Late payments of the payments created in the window, per currency. */
  late: CurrencyTotals[];
}

export function windowDays(now: Date, days = OVERVIEW_DAYS): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

interface CohortRow extends Record<string, unknown> {
  currency: string;
  channel: string;
  connector: string;
  created_count: bigint;
  processing_count: bigint;
  pending_count: bigint;
  succeeded_count: bigint;
  failed_count: bigint;
  expired_count: bigint;
  canceled_count: bigint;
  reversed_count: bigint;
  paid_count: bigint;
  late_count: bigint;
  late_minor: bigint;
  ttp_buckets: number[];
}

interface ActivityRow extends Record<string, unknown> {
  day: string;
  currency: string;
  paid_count: bigint;
  paid_minor: bigint;
  refunds_count: bigint;
  refunded_minor: bigint;
}

/** The overview of one merchant in one environment for the window ending today (UTC). */
export async function readOverview(
  db: Queryable,
  scope: { merchantId: string; environment: Environment },
  now: Date,
): Promise<Overview> {
  const days = windowDays(now);
  const params = [scope.merchantId, scope.environment, days[0], days[days.length - 1]];
  // Cohort rows are summed over the window's days in SQL: one row per (currency, channel, connector).
  const cohort = await db.query<CohortRow>(
    `SELECT currency, channel, connector, sum(created_count)::bigint AS created_count,
       sum(processing_count)::bigint AS processing_count, sum(pending_count)::bigint AS pending_count,
       sum(succeeded_count)::bigint AS succeeded_count, sum(failed_count)::bigint AS failed_count,
       sum(expired_count)::bigint AS expired_count, sum(canceled_count)::bigint AS canceled_count,
       sum(reversed_count)::bigint AS reversed_count, sum(paid_count)::bigint AS paid_count,
       sum(late_count)::bigint AS late_count, sum(late_minor)::bigint AS late_minor,
       array_agg(array_to_string(ttp_buckets, ',')) AS ttp_buckets
     FROM overview_cohort_days
     WHERE merchant_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date
     GROUP BY currency, channel, connector`,
    params,
  );
  const activity = await db.query<ActivityRow>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, currency, paid_count, paid_minor, refunds_count, refunded_minor
     FROM overview_activity_days
     WHERE merchant_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date`,
    params,
  );
  const [refresh] = await db.query<{ last_run_at: Date; last_duration_ms: number }>(
    `SELECT last_run_at, last_duration_ms FROM overview_refresh WHERE id = 'events'`,
  );
  return {
    days,
    refreshedAt: refresh?.last_run_at ?? null,
    lastDurationMs: refresh?.last_duration_ms ?? null,
    ...fromCohort(cohort),
    ...fromActivity(days, activity),
  };
}

function rateOf(rows: readonly CohortRow[], keyOf: (r: CohortRow) => string): SuccessRate[] {
  const by = new Map<string, SuccessRate>();
  for (const r of rows) {
    const key = keyOf(r);
    const rate = by.get(key) ?? { key, paid: 0n, ended: 0n, open: 0n };
    const paid = r.succeeded_count + r.reversed_count;
    rate.paid += paid;
    rate.ended += paid + r.failed_count + r.expired_count + r.canceled_count;
    rate.open += r.processing_count + r.pending_count;
    by.set(key, rate);
  }
  return [...by.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function fromCohort(rows: readonly CohortRow[]) {
  const statuses = Object.fromEntries(PAYMENT_STATUSES.map((s) => [s, 0n])) as Record<PaymentStatus, bigint>;
  const timeToPay = emptyHistogram();
  const late = new Map<string, CurrencyTotals>();
  let createdCount = 0n;
  for (const r of rows) {
    createdCount += r.created_count;
    for (const s of PAYMENT_STATUSES) statuses[s] += r[`${s}_count`] as bigint;
    // array_agg of the day rows' histograms, each as 'c0,c1,…' (a 2-D array of unequal days would not do).
    for (const text of r.ttp_buckets as unknown as string[]) addHistograms(timeToPay, text.split(',').map(Number));
    if (r.late_count > 0n) {
      const t = late.get(r.currency) ?? { currency: r.currency, count: 0n, minor: 0n };
      t.count += r.late_count;
      t.minor += r.late_minor;
      late.set(r.currency, t);
    }
  }
  return {
    byChannel: rateOf(rows, (r) => r.channel),
    byConnector: rateOf(rows, (r) => r.connector),
    timeToPay,
    statuses,
    createdCount,
    late: [...late.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
  };
}

function perCurrencyDays(
  days: readonly string[],
  entries: readonly { day: string; currency: string; count: bigint; minor: bigint }[],
) {
  const byCurrency = new Map<string, Map<string, DayAmount>>();
  for (const e of entries) {
    if (e.count === 0n && e.minor === 0n) continue;
    const m = byCurrency.get(e.currency) ?? new Map<string, DayAmount>();
    m.set(e.day, { day: e.day, count: e.count, minor: e.minor });
    byCurrency.set(e.currency, m);
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, m]) => ({ currency, days: days.map((day) => m.get(day) ?? { day, count: 0n, minor: 0n }) }));
}

function fromActivity(days: readonly string[], rows: readonly ActivityRow[]) {
  const volume = perCurrencyDays(
    days,
    rows.map((r) => ({ day: r.day, currency: r.currency, count: r.paid_count, minor: r.paid_minor })),
  );
  const refundDays = perCurrencyDays(
    days,
    rows.map((r) => ({ day: r.day, currency: r.currency, count: r.refunds_count, minor: r.refunded_minor })),
  );
  const refunds = refundDays.map(({ currency, days: ds }) => ({
    currency,
    count: ds.reduce((s, d) => s + d.count, 0n),
    minor: ds.reduce((s, d) => s + d.minor, 0n),
  }));
  return { volume, refundDays, refunds };
}
