import type { Queryable } from '../../db/store.ts';
import { assert } from '../../lib/assert.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { newId } from '../../lib/ids.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * The double-entry ledger (docs/money.md). Call `postEntry` inside the transaction that makes the
 * state change the entry describes. Postings are signed minor units: debit positive, credit
 * negative. An entry that does not balance is a bug: it fails an assertion here, and the database
 * would refuse it at commit anyway.
 */
export const ACCOUNT_KINDS = [
  'provider_receivable',
  'settlement_cash',
  'merchant_pending',
  'merchant_available',
  'refunds_pending',
  'fees',
  'payer_refund_due',
] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

export type EntryType = 'capture' | 'refund_hold' | 'refund_post' | 'refund_void' | 'reversal' | 'settlement' | 'late_payment';

export interface Posting {
  account: AccountKind;
  currency: CurrencyCode;
  /** Debit positive, credit negative; never zero. */
  amountMinor: bigint;
}

export interface NewEntry {
  merchantId: string;
  environment: Environment;
  /** One movement, one key: posting the same key again answers `exists`. */
  entryKey: string;
  type: EntryType;
  objectType: string;
  objectId: string;
  /** The payment whose money this entry moves. */
  paymentId: string;
  postings: Posting[];
  now: Date;
}

export type PostResult = { status: 'posted'; id: string } | { status: 'exists'; id: string };

export const debit = (account: AccountKind, currency: CurrencyCode, amountMinor: bigint): Posting => ({
  account,
  currency,
  amountMinor,
});
export const credit = (account: AccountKind, currency: CurrencyCode, amountMinor: bigint): Posting => ({
  account,
  currency,
  amountMinor: -amountMinor,
});

export function assertBalanced(postings: readonly Posting[]): void {
  assert(postings.length >= 2, 'an entry needs at least two postings');
  const sums = new Map<string, bigint>();
  for (const p of postings) {
    assert(p.amountMinor !== 0n, 'a posting is never zero');
    sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.amountMinor);
  }
  for (const [currency, sum] of sums) assert(sum === 0n, `entry does not balance in ${currency}: ${sum}`);
}

export async function postEntry(q: Queryable, entry: NewEntry): Promise<PostResult> {
  assertBalanced(entry.postings);
  const id = newId('journalEntry', entry.now.getTime());
  const inserted = await q.query<{ id: string }>(
    `INSERT INTO journal_entries (id, merchant_id, environment, entry_key, type, object_type, object_id, payment_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (merchant_id, environment, entry_key) DO NOTHING RETURNING id`,
    [
      id,
      entry.merchantId,
      entry.environment,
      entry.entryKey,
      entry.type,
      entry.objectType,
      entry.objectId,
      entry.paymentId,
      entry.now,
    ],
  );
  if (inserted.length === 0) {
    const existing = await q.query<{ id: string }>(
      'SELECT id FROM journal_entries WHERE merchant_id = $1 AND environment = $2 AND entry_key = $3',
      [entry.merchantId, entry.environment, entry.entryKey],
    );
    assert(existing[0] !== undefined, `entry ${entry.entryKey} conflicted but cannot be found`);
    return { status: 'exists', id: existing[0].id };
  }

  // Net change per account, applied in a fixed order so concurrent entries lock rows in the same
  // order and cannot deadlock each other.
  const deltas = new Map<string, { account: AccountKind; currency: CurrencyCode; delta: bigint }>();
  for (const p of entry.postings) {
    const k = `${p.currency}:${p.account}`;
    const d = deltas.get(k) ?? { account: p.account, currency: p.currency, delta: 0n };
    d.delta += p.amountMinor;
    deltas.set(k, d);
  }
  const ordered = [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, d]) => d);
  for (const d of ordered) {
    await q.query(
      `INSERT INTO ledger_accounts (merchant_id, environment, currency, kind, balance_minor, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (merchant_id, environment, currency, kind)
       DO UPDATE SET balance_minor = ledger_accounts.balance_minor + EXCLUDED.balance_minor, updated_at = EXCLUDED.updated_at`,
      [entry.merchantId, entry.environment, d.currency, d.account, d.delta, entry.now],
    );
  }
  const values: unknown[] = [];
  const rows = entry.postings.map((p, i) => {
    const base = i * 7;
    values.push(id, i + 1, entry.merchantId, entry.environment, p.currency, p.account, p.amountMinor);
    return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7})`;
  });
  await q.query(
    `INSERT INTO postings (entry_id, seq, merchant_id, environment, currency, account_kind, amount_minor) VALUES ${rows.join(', ')}`,
    values,
  );
  return { status: 'posted', id };
}

/**
 * What of one payment's money still sits in the merchant's pending balance: its capture, less
 * refunds held or posted from pending and a reversal from pending (as a positive amount we owe).
 * A settlement moves exactly this to available.
 */
export async function paymentPendingMinor(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentId: string,
): Promise<bigint> {
  const rows = await q.query<{ s: bigint | null }>(
    `SELECT sum(p.amount_minor)::bigint AS s FROM journal_entries e
     JOIN postings p ON p.entry_id = e.id
     WHERE e.merchant_id = $1 AND e.environment = $2 AND e.payment_id = $3 AND p.account_kind = 'merchant_pending'`,
    [merchantId, environment, paymentId],
  );
  return -(rows[0]?.s ?? 0n);
}

export interface Balance {
  currency: CurrencyCode;
  /** As the merchant reads them: positive means we owe the merchant. */
  pendingMinor: bigint;
  availableMinor: bigint;
  refundsInFlightMinor: bigint;
  /** Late payments to give back to payers (not the merchant's money). */
  owedToPayersMinor: bigint;
}

/** The merchant's balances per currency, from the cached account balances. */
export async function merchantBalances(q: Queryable, merchantId: string, environment: Environment): Promise<Balance[]> {
  const rows = await q.query<{ currency: string; kind: AccountKind; balance_minor: bigint }>(
    `SELECT currency, kind, balance_minor FROM ledger_accounts
     WHERE merchant_id = $1 AND environment = $2 AND kind IN ('merchant_pending', 'merchant_available', 'refunds_pending', 'payer_refund_due')
     ORDER BY currency`,
    [merchantId, environment],
  );
  const byCurrency = new Map<string, Balance>();
  for (const r of rows) {
    const b = byCurrency.get(r.currency) ?? {
      currency: r.currency as CurrencyCode,
      pendingMinor: 0n,
      availableMinor: 0n,
      refundsInFlightMinor: 0n,
      owedToPayersMinor: 0n,
    };
    // Liabilities are credit-normal: a credit balance (negative) is money we owe the merchant.
    if (r.kind === 'merchant_pending') b.pendingMinor = -r.balance_minor;
    if (r.kind === 'merchant_available') b.availableMinor = -r.balance_minor;
    if (r.kind === 'refunds_pending') b.refundsInFlightMinor = -r.balance_minor;
    if (r.kind === 'payer_refund_due') b.owedToPayersMinor = -r.balance_minor;
    byCurrency.set(r.currency, b);
  }
  return [...byCurrency.values()];
}

export interface LedgerViolation {
  kind: 'entry_unbalanced' | 'global_sum_nonzero' | 'cached_balance_mismatch';
  detail: string;
}

/**
 * Checks the ledger's invariants from the postings themselves: every entry balances per currency,
 * every merchant × environment × currency sums to zero, every cached balance equals its postings.
 * Used by the property tests after every step and by operators (`verify` on GET /balance).
 */
export async function verifyLedger(
  q: Queryable,
  scope?: { merchantId: string; environment: Environment },
): Promise<LedgerViolation[]> {
  const where = scope === undefined ? '' : 'WHERE merchant_id = $1 AND environment = $2';
  const params = scope === undefined ? [] : [scope.merchantId, scope.environment];
  const violations: LedgerViolation[] = [];
  const unbalanced = await q.query<{ entry_id: string; currency: string; s: bigint }>(
    `SELECT entry_id, currency, sum(amount_minor) AS s FROM postings ${where} GROUP BY entry_id, currency HAVING sum(amount_minor) <> 0`,
    params,
  );
  for (const u of unbalanced) violations.push({ kind: 'entry_unbalanced', detail: `${u.entry_id} ${u.currency} ${u.s}` });
  const sums = await q.query<{ merchant_id: string; environment: string; currency: string; s: bigint }>(
    `SELECT merchant_id, environment, currency, sum(amount_minor) AS s FROM postings ${where}
     GROUP BY merchant_id, environment, currency HAVING sum(amount_minor) <> 0`,
    params,
  );
  for (const s of sums)
    violations.push({ kind: 'global_sum_nonzero', detail: `${s.merchant_id}/${s.environment} ${s.currency} ${s.s}` });
  const mismatched = await q.query<{ merchant_id: string; currency: string; kind: string; cached: bigint; derived: bigint }>(
    `SELECT a.merchant_id, a.currency, a.kind, a.balance_minor AS cached, coalesce(sum(p.amount_minor), 0)::bigint AS derived
     FROM ledger_accounts a
     LEFT JOIN postings p ON p.merchant_id = a.merchant_id AND p.environment = a.environment
       AND p.currency = a.currency AND p.account_kind = a.kind
     ${scope === undefined ? '' : 'WHERE a.merchant_id = $1 AND a.environment = $2'}
     GROUP BY a.merchant_id, a.environment, a.currency, a.kind, a.balance_minor
     HAVING a.balance_minor <> coalesce(sum(p.amount_minor), 0)`,
    params,
  );
  for (const m of mismatched) {
    violations.push({
      kind: 'cached_balance_mismatch',
      detail: `${m.merchant_id} ${m.currency} ${m.kind}: cached ${m.cached}, postings ${m.derived}`,
    });
  }
  return violations;
}
