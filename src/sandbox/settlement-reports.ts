import { createHash } from 'node:crypto';
import { minorUnitDigits } from '../lib/currencies.ts';
import type { ChargeBook } from './charge-book.ts';
import type { ProviderDialect, ProviderOptions, ProviderReply, SandboxCharge } from './sandbox-types.ts';

/** Default settlement schedule of the sandbox providers: T+1 day. */
export const SETTLEMENT_DELAY_MS = 24 * 3_600_000;

/**
 * What the settlement report can be made to get wrong, one discrepancy kind each (docs/sandbox.md;
 * reconciliation names them in docs/money.md). Report faults stay until reset, so the same report
 * comes back on every read (a reconciliation re-run sees the same thing).
 *
 * - `omit`: the charge's line is left out
 * - `duplicate`: the charge's line appears twice
 * - `amount`: the line's gross (and net) is one major unit higher
 * - `currency`: the line names another currency
 * - `unknown_reference`: an extra line for a charge that does not exist, with the charge's owner metadata
 * - `late`: the line is dated at the window's end (after the cut-off) yet reported in it
 */
export const SETTLEMENT_REPORT_FAULT_KINDS = ['omit', 'duplicate', 'amount', 'currency', 'unknown_reference', 'late'] as const;
export type SettlementReportFaultKind = (typeof SETTLEMENT_REPORT_FAULT_KINDS)[number];
export interface SettlementReportFault {
  kind: SettlementReportFaultKind;
  /** The provider's charge id the fault applies to. */
  chargeId: string;
}

type ReportLine = Record<string, unknown>;

export interface SettlementReportsDeps {
  dialect: ProviderDialect;
  options: ProviderOptions;
  charges: ChargeBook;
  /** The report faults set now (the control API replaces the faults). */
  faults: () => readonly SettlementReportFault[];
}

/** The provider's settlement: paid charges settle on a schedule; the report lists a window of them. */
export class SettlementReports {
  readonly #deps: SettlementReportsDeps;

  constructor(deps: SettlementReportsDeps) {
    this.#deps = deps;
  }

  /** The schedule: paid charges whose settlement time has come settle at that time. */
  settleDue(): number {
    const configured = this.#deps.options.settlementDelayMs;
    const delayMs = configured === undefined ? SETTLEMENT_DELAY_MS : configured;
    if (delayMs === null) return 0;
    const now = this.#deps.options.clock.now();
    let settled = 0;
    for (const c of this.#deps.charges.all()) {
      if (c.state !== 'paid' || c.settledAt !== null || c.paidAt === null) continue;
      const due = new Date(c.paidAt.getTime() + delayMs);
      if (due <= now) {
        c.settledAt = due;
        settled += 1;
      }
    }
    return settled;
  }

  /** Settled charges whose settlement time is in [from, to), with the report faults applied. */
  report(from: Date, to: Date): ProviderReply {
    this.settleDue();
    const faults = this.#deps.faults();
    const entries: ReportLine[] = [];
    for (const c of this.#deps.charges.all()) {
      if (c.settledAt === null || c.settledAt < from || c.settledAt >= to) continue;
      const kinds = new Set(faults.filter((f) => f.chargeId === c.id).map((f) => f.kind));
      entries.push(...this.#linesOf(c, kinds, to));
    }
    return { status: 200, body: { from: from.toISOString(), to: to.toISOString(), entries } };
  }

  /** The charge's lines in the report: usually one; none, two or a ghost when a fault says so. */
  #linesOf(c: SandboxCharge, kinds: ReadonlySet<SettlementReportFaultKind>, to: Date): ReportLine[] {
    if (kinds.has('omit')) return [];
    const line = this.#lineOf(c);
    if (kinds.has('amount')) {
      const unit = 10n ** BigInt(minorUnitDigits(c.currency));
      line['gross_minor'] = (c.amountPaidMinor + unit).toString();
      line['net_minor'] = (c.amountPaidMinor + unit - this.#deps.dialect.feeMinor(c.amountPaidMinor)).toString();
    }
    if (kinds.has('currency')) line['currency'] = c.currency === 'USD' ? 'IDR' : 'USD';
    if (kinds.has('late')) line['settled_at'] = to.toISOString();
    const lines = [line];
    if (kinds.has('duplicate')) lines.push({ ...line });
    if (kinds.has('unknown_reference')) lines.push(this.#ghostOf(c, line));
    return lines;
  }

  #lineOf(c: SandboxCharge): ReportLine {
    const fee = this.#deps.dialect.feeMinor(c.amountPaidMinor);
    return {
      charge_id: c.id,
      external_id: c.externalId,
      currency: c.currency,
      gross_minor: c.amountPaidMinor.toString(),
      fee_minor: fee.toString(),
      net_minor: (c.amountPaidMinor - fee).toString(),
      settled_at: (c.settledAt as Date).toISOString(),
      // The caller's metadata, echoed as on notifications: it says whose money the line is.
      metadata: c.metadata,
    };
  }

  /** A line for a charge that does not exist, derived from a real one so it reads the same every time. */
  #ghostOf(c: SandboxCharge, line: ReportLine): ReportLine {
    const ghost = createHash('sha256').update(`ghost:${c.id}`).digest('hex').slice(0, 20);
    return {
      ...line,
      charge_id: `${this.#deps.dialect.referencePrefix}${ghost}`,
      external_id: `att_GHOST${ghost.toUpperCase()}`,
    };
  }
}
