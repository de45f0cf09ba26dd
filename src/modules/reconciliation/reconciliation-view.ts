import { reportedMajorNumber, reportedMajorText } from '../../lib/money.ts';
import { type ComparedLine, DISCREPANCY_KINDS } from './compare-report.ts';
import type { NumberedLine, Reconciliation } from './reconciliation-repo.ts';

/**
 * A reconciliation as the API shows it (JSON) and as a CSV export. Amounts are major units of
 * their side's currency (reportedMajorNumber: a currency we do not know stays in minor units).
 */
export function reconciliationSummaryView(r: Reconciliation) {
  return {
    id: r.id,
    object: 'reconciliation' as const,
    environment: r.environment,
    connector: r.connector,
    from: r.from.toISOString(),
    to: r.to.toISOString(),
    status: r.status,
    summary: {
      report_lines: r.reportLines,
      matched: r.matchedCount,
      discrepancies: r.discrepancyCount,
      ...Object.fromEntries(DISCREPANCY_KINDS.map((k) => [k, r.counts[k] ?? 0])),
    } as Record<string, number>,
    created_at: r.createdAt.toISOString(),
  };
}

/** Lines shown with the reconciliation itself; the rest are paged with GET /reconciliation/{id}/lines. */
export const FIRST_PAGE_LINES = 100;

export interface LinePage {
  lines: readonly NumberedLine[];
  hasMore: boolean;
}

/** The first page of freshly compared lines (numbered by numberLines, as they are stored). */
export function firstLinePage(lines: readonly NumberedLine[]): LinePage {
  return { lines: lines.slice(0, FIRST_PAGE_LINES), hasMore: lines.length > FIRST_PAGE_LINES };
}

const nextCursor = (page: LinePage): string | null => (page.hasMore ? String(page.lines.at(-1)?.seq ?? 0) : null);

function lineView(l: NumberedLine) {
  return {
    seq: l.seq,
    result: l.result,
    payment_id: l.paymentId,
    provider_reference: l.providerReference,
    report:
      l.report === null
        ? null
        : {
            currency: l.report.currency,
            gross: reportedMajorNumber(l.report.grossMinor, l.report.currency),
            fee: reportedMajorNumber(l.report.feeMinor, l.report.currency),
            net: reportedMajorNumber(l.report.netMinor, l.report.currency),
            settled_at: l.report.settledAt.toISOString(),
          },
    ours:
      l.ours === null
        ? null
        : {
            settlement_id: l.ours.settlementId,
            currency: l.ours.currency,
            gross: reportedMajorNumber(l.ours.grossMinor, l.ours.currency),
            fee: reportedMajorNumber(l.ours.feeMinor, l.ours.currency),
            net: reportedMajorNumber(l.ours.netMinor, l.ours.currency),
            settled_at: l.ours.settledAt.toISOString(),
          },
  };
}

/** The reconciliation with its first page of lines (FIRST_PAGE_LINES) and where the rest start. */
export function reconciliationView(r: Reconciliation, firstPage: LinePage) {
  return {
    ...reconciliationSummaryView(r),
    lines: firstPage.lines.map(lineView),
    lines_has_more: firstPage.hasMore,
    lines_next_cursor: nextCursor(firstPage),
  };
}

/** GET /reconciliation/{id}/lines: one page in the shape of every list. */
export function reconciliationLinesView(page: LinePage) {
  return { object: 'list' as const, data: page.lines.map(lineView), has_more: page.hasMore, next_cursor: nextCursor(page) };
}

export const CSV_COLUMNS = [
  'result',
  'payment_id',
  'provider_reference',
  'report_currency',
  'report_gross',
  'report_fee',
  'report_net',
  'report_settled_at',
  'settlement_id',
  'our_currency',
  'our_gross',
  'our_fee',
  'our_net',
  'our_settled_at',
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF, quotes doubled. A text
 * a spreadsheet would run as a formula (starting with = + - @, tab or CR) gets a leading `'`: the
 * provider's references are not ours to trust. Amounts are never negative here, so none is touched.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The lines as CSV: a header row, then one row per line, CRLF line ends (RFC 4180). */
export function reconciliationCsv(lines: readonly ComparedLine[]): string {
  const rows = [CSV_COLUMNS.join(',')];
  for (const l of lines) {
    const r = l.report;
    const o = l.ours;
    const cells = [
      l.result,
      l.paymentId ?? '',
      l.providerReference,
      r?.currency ?? '',
      r === null ? '' : reportedMajorText(r.grossMinor, r.currency),
      r === null ? '' : reportedMajorText(r.feeMinor, r.currency),
      r === null ? '' : reportedMajorText(r.netMinor, r.currency),
      r?.settledAt.toISOString() ?? '',
      o?.settlementId ?? '',
      o?.currency ?? '',
      o === null ? '' : reportedMajorText(o.grossMinor, o.currency),
      o === null ? '' : reportedMajorText(o.feeMinor, o.currency),
      o === null ? '' : reportedMajorText(o.netMinor, o.currency),
      o?.settledAt.toISOString() ?? '',
    ];
    rows.push(cells.map(csvField).join(','));
  }
  return `${rows.join('\r\n')}\r\n`;
}
