import type { SettlementEntry } from '../../connectors/core/connector.ts';
import { type CurrencyCode, isCurrencyCode } from '../../lib/currencies.ts';
import { parseMajorAmount } from '../../lib/money.ts';

/**
 * The settlement report file an operator imports for a provider that publishes its settlements as
 * a download instead of an API (docs/money.md "Importing a settlement report"). CSV (RFC 4180:
 * quoted fields, `""` inside quotes), a header row naming these columns in any order:
 *
 *   provider_reference, attempt_id, currency, gross, fee, net, settled_at
 *
 * Amounts in major units as the provider prints them (`150000`, `150000.00`), parsed exactly;
 * `settled_at` an ISO 8601 time with its offset. A file with any bad line is refused whole, with
 * every problem and its line number: half a report applied is worse than none.
 */
export const REPORT_COLUMNS = ['provider_reference', 'attempt_id', 'currency', 'gross', 'fee', 'net', 'settled_at'] as const;

/** At most this many lines per file (a month of a busy connector fits; bigger files are split). */
export const MAX_REPORT_LINES = 100_000;

export type ParsedReport = { ok: true; entries: SettlementEntry[] } | { ok: false; problems: string[] };

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const MAX_PROBLEMS = 50;

export function parseSettlementReportCsv(text: string): ParsedReport {
  const rows = splitCsv(text);
  if (rows === undefined) return { ok: false, problems: ['unterminated quoted field'] };
  const [header, ...lines] = rows;
  if (header === undefined) return { ok: false, problems: ['the file is empty'] };
  const names = header.map((h) => h.trim().toLowerCase());
  const index = new Map(names.map((n, i) => [n, i]));
  const missing = REPORT_COLUMNS.filter((c) => !index.has(c));
  if (missing.length > 0) return { ok: false, problems: [`missing columns: ${missing.join(', ')}`] };
  if (lines.length > MAX_REPORT_LINES) return { ok: false, problems: [`more than ${MAX_REPORT_LINES} lines: split the file`] };

  const entries: SettlementEntry[] = [];
  const problems: string[] = [];
  lines.forEach((cells, i) => {
    const lineNo = i + 2;
    if (cells.length === 1 && cells[0]?.trim() === '') return; // a blank line
    const at = (c: (typeof REPORT_COLUMNS)[number]) => (cells[index.get(c) as number] ?? '').trim();
    const bad = (what: string) => problems.length < MAX_PROBLEMS && problems.push(`line ${lineNo}: ${what}`);
    const currency = at('currency').toUpperCase();
    if (!isCurrencyCode(currency)) return void bad(`unknown currency "${at('currency')}"`);
    const amounts = (['gross', 'fee', 'net'] as const).map((c) => ({ c, minor: reportAmount(at(c), currency) }));
    for (const { c, minor } of amounts) {
      if (minor === undefined) return void bad(`${c} "${at(c)}" is not a ${currency} amount`);
    }
    const [gross, fee, net] = amounts.map((a) => a.minor ?? 0n) as [bigint, bigint, bigint];
    const settledText = at('settled_at');
    const settledAt = new Date(settledText);
    if (!ISO_WITH_OFFSET.test(settledText) || Number.isNaN(settledAt.getTime())) {
      return void bad(`settled_at "${settledText}" is not an ISO 8601 time with an offset`);
    }
    const providerReference = at('provider_reference');
    const attemptId = at('attempt_id');
    if (providerReference === '' || attemptId === '') return void bad('provider_reference and attempt_id are required');
    // gross = fee + net is checked where every report's lines are (an exception, not a refusal).
    entries.push({
      providerReference,
      attemptId,
      owner: null,
      currency,
      grossMinor: gross,
      feeMinor: fee,
      netMinor: net,
      settledAt,
    });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, entries };
}

/** A report amount: zero (a fee waived) or a positive amount, exact; undefined when neither. */
function reportAmount(text: string, currency: CurrencyCode): bigint | undefined {
  if (/^0+(\.0+)?$/.test(text)) return 0n;
  const parsed = parseMajorAmount(text, currency);
  return parsed.ok ? parsed.minor : undefined;
}

/** RFC 4180 rows; undefined when a quoted field never ends. */
function splitCsv(text: string): string[][] | undefined {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text; // a spreadsheet's byte-order mark
  for (let i = 0; i < body.length; i += 1) {
    const ch = body[i] as string;
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"' && field === '') {
      quoted = true;
    } else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += ch;
    }
  }
  if (quoted) return undefined;
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
