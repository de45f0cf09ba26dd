import { readFileSync } from 'node:fs';
import { importSettlementReport, type SettlementDeps } from '../modules/settlement/settlement-ingest.ts';
import { parseSettlementReportCsv } from '../modules/settlement/settlement-report-csv.ts';
import type { CommandOutput } from './settlement-exceptions.ts';

/**
 * `tributary settlement import --connector NAME FILE`: applies a settlement report file (the
 * format in settlement-report-csv.ts) as if the connector had fetched it. A file with a bad line
 * is refused whole; lines that parse but do not match a payment become settlement exceptions, as
 * in every ingestion. Importing the same file again settles nothing twice.
 */
export async function importReportCommand(
  deps: SettlementDeps,
  connector: string | undefined,
  file: string | undefined,
): Promise<CommandOutput> {
  if (connector === undefined || file === undefined) return { ok: false, problem: 'settlement import --connector NAME FILE' };
  if (deps.connectors.get(connector) === undefined)
    return { ok: false, problem: `no connector named ${connector} is configured` };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, problem: `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = parseSettlementReportCsv(text);
  if (!parsed.ok) return { ok: false, problem: `${file} was not imported:\n  ${parsed.problems.join('\n  ')}` };
  const summary = await importSettlementReport(deps, connector, parsed.entries);
  return {
    ok: true,
    value: {
      connector,
      lines: parsed.entries.length,
      settlements: summary.settlements,
      settled_payments: summary.settledPayments,
      exceptions: summary.exceptions,
    },
    human:
      `${parsed.entries.length} lines: ${summary.settledPayments} payments settled in ${summary.settlements.length} settlements` +
      `${summary.settlements.length > 0 ? ` (${summary.settlements.join(', ')})` : ''}, ${summary.exceptions} new exceptions` +
      (summary.exceptions > 0 ? ' (tributary settlement exceptions)' : ''),
  };
}
