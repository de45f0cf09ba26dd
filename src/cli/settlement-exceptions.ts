import type { Store } from '../db/store.ts';
import { reportedMajorText } from '../lib/money.ts';
import {
  EXCEPTION_STATUSES,
  type ExceptionStatus,
  listSettlementExceptions,
  type SettlementException,
} from '../modules/settlement/settlement-exception-repo.ts';
import { resolveSettlementExceptionAndAnnounce } from '../modules/settlement/settlement-exceptions.ts';
import { OPERATOR } from '../modules/merchants/merchant-service.ts';
import { settlementExceptionView } from '../modules/settlement/settlement-exception-view.ts';

/**
 * The operator's side of settlement exceptions (docs/money.md "Settlement exceptions"): every
 * exception, also those attributed to no merchant, and their resolution. Each command returns what
 * to print (JSON value and human text) or a problem for a usage error; it never prints itself.
 */
export type CommandOutput = { ok: true; value: unknown; human: string } | { ok: false; problem: string };

const MAX_LISTED = 500;

function line(e: SettlementException): string {
  const gross = reportedMajorText(e.grossMinor, e.currency);
  const who = e.merchantId === null ? 'unattributed' : `${e.merchantId}/${e.environment ?? '?'}`;
  const state = e.status === 'open' ? 'OPEN' : `resolved ${e.resolvedAt?.toISOString() ?? ''}`;
  return `${e.id}  ${state}  ${e.connector}  ${e.kind}  ${who}  ${e.paymentId ?? '-'}  ${e.currency} ${gross}  ${e.detail}`;
}

export async function listExceptionsCommand(
  store: Store,
  options: { status?: string; connector?: string; merchant?: string },
): Promise<CommandOutput> {
  if (options.status !== undefined && !(EXCEPTION_STATUSES as readonly string[]).includes(options.status)) {
    return { ok: false, problem: '--status must be open or resolved' };
  }
  const page = await listSettlementExceptions(
    store,
    { operator: true, ...(options.merchant === undefined ? {} : { merchantId: options.merchant }) },
    {
      ...(options.status === undefined ? {} : { status: options.status as ExceptionStatus }),
      ...(options.connector === undefined ? {} : { connector: options.connector }),
    },
    { limit: MAX_LISTED },
  );
  if (!page.ok) return { ok: false, problem: 'unexpected cursor' };
  const rows = page.exceptions;
  const more = page.hasMore ? `\n(first ${MAX_LISTED}; narrow with --status, --connector or --merchant)` : '';
  return {
    ok: true,
    value: rows.map((e) => ({ ...settlementExceptionView(e), merchant_id: e.merchantId, environment: e.environment })),
    human: rows.length === 0 ? 'no settlement exceptions' : `${rows.map(line).join('\n')}${more}`,
  };
}

export async function resolveExceptionCommand(
  store: Store,
  id: string,
  note: string | undefined,
  now: Date,
): Promise<CommandOutput> {
  const text = note?.trim() ?? '';
  if (text.length === 0 || text.length > 500)
    return { ok: false, problem: '--note is required (1-500 characters): what was done' };
  const result = await resolveSettlementExceptionAndAnnounce(store, id, text, now, OPERATOR);
  if (result.kind === 'not_found') return { ok: false, problem: `no settlement exception ${id}` };
  if (result.kind === 'already_resolved') {
    const e = result.exception;
    return { ok: false, problem: `${id} was already resolved at ${e.resolvedAt?.toISOString() ?? '?'}: ${e.resolution ?? ''}` };
  }
  const e = result.exception;
  return { ok: true, value: settlementExceptionView(e), human: `Resolved ${e.id} (${e.kind}, ${e.connector}): ${text}` };
}
