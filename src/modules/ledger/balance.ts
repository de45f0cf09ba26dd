import type { Queryable } from '../../db/store.ts';
import { toMajorNumber } from '../../lib/money.ts';
import { merchantBalances, verifyLedger } from './ledger.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * GET /balance without the HTTP: the cached account balances (docs/money.md), and with `verify`
 * the operator check that re-derives them from the postings.
 */
export async function balanceView(
  q: Queryable,
  principal: Pick<Principal, 'merchantId' | 'environment'>,
  verify: boolean,
  now: Date,
) {
  const balances = await merchantBalances(q, principal.merchantId, principal.environment);
  const violations = verify
    ? await verifyLedger(q, { merchantId: principal.merchantId, environment: principal.environment })
    : undefined;
  return {
    object: 'balance' as const,
    environment: principal.environment,
    balances: balances.map((b) => ({
      currency: b.currency,
      pending: toMajorNumber(b.pendingMinor, b.currency),
      available: toMajorNumber(b.availableMinor, b.currency),
      refunds_in_flight: toMajorNumber(b.refundsInFlightMinor, b.currency),
      owed_to_payers: toMajorNumber(b.owedToPayersMinor, b.currency),
    })),
    verification:
      violations === undefined
        ? null
        : {
            status: violations.length === 0 ? ('ok' as const) : ('mismatch' as const),
            checked_at: now.toISOString(),
            violations,
          },
  };
}
