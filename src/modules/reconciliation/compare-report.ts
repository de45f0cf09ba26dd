/**
 * The comparison at the heart of reconciliation, as a pure function (docs/money.md
 * "Reconciliation"): a provider's settlement report for a window, attributed to one merchant and
 * environment, against what Tributary recorded as settled. Every report line gets one result, and
 * every payment we recorded as settled in the window that the report lacks gets a
 * `missing_in_report` line. The checks run in this order; the first that applies wins:
 *
 * 1. `unknown_reference`: the line names a charge we have no attempt for (on this connector)
 * 2. `duplicate`: the same payment appeared earlier in this report
 * 3. `late`: the line is dated outside the requested window (after its cut-off, or before it)
 * 4. `currency_mismatch`: the line's currency is not the one we recorded (our settlement record,
 *    or the payment itself when we never recorded its settlement)
 * 5. `amount_mismatch`: gross, fee or net differ from our settlement record (or, without one, the
 *    gross differs from what the payer paid: the ingestion refused the line for that reason)
 * 6. `missing_in_ours`: the provider settled the payment and its line agrees with the payment, but
 *    we have not recorded the settlement (not ingested yet, or the payment is not succeeded)
 * 7. `matched`
 */
export const DISCREPANCY_KINDS = [
  'missing_in_ours',
  'missing_in_report',
  'amount_mismatch',
  'currency_mismatch',
  'duplicate',
  'unknown_reference',
  'late',
] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];
export type LineResult = 'matched' | DiscrepancyKind;

export interface ReportLine {
  providerReference: string;
  /** Our payment, found by the attempt id the provider echoes; null when none matches. */
  paymentId: string | null;
  currency: string;
  grossMinor: bigint;
  feeMinor: bigint;
  netMinor: bigint;
  settledAt: Date;
}

/** A payment we recorded as settled (its settlement line). */
export interface OurSettlement {
  paymentId: string;
  providerReference: string;
  settlementId: string;
  currency: string;
  grossMinor: bigint;
  feeMinor: bigint;
  netMinor: bigint;
  settledAt: Date;
}

/** What we captured for a payment the report names and we have not recorded as settled. */
export interface Captured {
  currency: string;
  amountPaidMinor: bigint;
}

export interface ComparedLine {
  result: LineResult;
  paymentId: string | null;
  providerReference: string;
  report: ReportLine | null;
  ours: OurSettlement | null;
}

export interface Comparison {
  lines: ComparedLine[];
  counts: Record<LineResult, number>;
  matched: number;
  discrepancies: number;
}

export function compareReport(
  window: { from: Date; to: Date },
  report: readonly ReportLine[],
  /** Our settled payments: every one settled in the window, plus any the report names. */
  ours: ReadonlyMap<string, OurSettlement>,
  /** The payments the report names that have no settlement record of ours. */
  captured: ReadonlyMap<string, Captured> = new Map(),
): Comparison {
  const lines: ComparedLine[] = [];
  const seen = new Set<string>();
  const inWindow = (d: Date) => d >= window.from && d < window.to;
  for (const r of [...report].sort(byTimeThenReference)) {
    const our = r.paymentId === null ? undefined : ours.get(r.paymentId);
    const line = (result: LineResult): ComparedLine => ({
      result,
      paymentId: r.paymentId,
      providerReference: r.providerReference,
      report: r,
      ours: our ?? null,
    });
    if (r.paymentId === null) {
      lines.push(line('unknown_reference'));
      continue;
    }
    if (seen.has(r.paymentId)) {
      lines.push(line('duplicate'));
      continue;
    }
    seen.add(r.paymentId);
    const paid = captured.get(r.paymentId);
    if (!inWindow(r.settledAt)) lines.push(line('late'));
    else if (our === undefined) {
      if (paid !== undefined && paid.currency !== r.currency) lines.push(line('currency_mismatch'));
      else if (paid !== undefined && paid.amountPaidMinor !== r.grossMinor) lines.push(line('amount_mismatch'));
      else lines.push(line('missing_in_ours'));
    } else if (our.currency !== r.currency) lines.push(line('currency_mismatch'));
    else if (our.grossMinor !== r.grossMinor || our.feeMinor !== r.feeMinor || our.netMinor !== r.netMinor) {
      lines.push(line('amount_mismatch'));
    } else lines.push(line('matched'));
  }
  const missing = [...ours.values()].filter((o) => inWindow(o.settledAt) && !seen.has(o.paymentId)).sort(byTimeThenReference);
  for (const o of missing) {
    lines.push({
      result: 'missing_in_report',
      paymentId: o.paymentId,
      providerReference: o.providerReference,
      report: null,
      ours: o,
    });
  }
  const counts = Object.fromEntries(['matched', ...DISCREPANCY_KINDS].map((k) => [k, 0])) as Record<LineResult, number>;
  for (const l of lines) counts[l.result] += 1;
  return { lines, counts, matched: counts.matched, discrepancies: lines.length - counts.matched };
}

function byTimeThenReference(a: { settledAt: Date; providerReference: string }, b: typeof a): number {
  const dt = a.settledAt.getTime() - b.settledAt.getTime();
  if (dt !== 0) return dt;
  return a.providerReference < b.providerReference ? -1 : a.providerReference > b.providerReference ? 1 : 0;
}
