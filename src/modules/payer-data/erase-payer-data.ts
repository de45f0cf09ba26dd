import type { Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { findPayment, type Payment } from '../payments/index.ts';
import {
  allowEventErasure,
  eraseCheckoutRow,
  eraseEvents,
  eraseNotifications,
  erasePaymentRows,
  eraseStoredResponses,
  eraseWebhookAttempts,
  FINAL_PAYMENT_STATUSES,
  findDuePayments,
  type LockedUnit,
  lockUnit,
  type Tenant,
} from './payer-data-repo.ts';
import { type Erasure, PROVIDER_PERSONAL_KEYS, VIEW_PERSONAL_KEYS } from './scrub.ts';
import { recordAudit } from '../audit/index.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * Erasing a payer's personal data (docs/payer-data.md). The unit of erasure is a payment, or a
 * checkout with every payment it made (one payer, one e-mail copied into each). A unit is erased
 * in one transaction — every table at once, or nothing — so a crash leaves it either erased or
 * untouched, and the next run (or the merchant's retry) simply does it again.
 */
export interface PayerDataDeps {
  store: Store;
  clock: Clock;
}

export type EraseResult =
  | { kind: 'erased'; payment: Payment; alreadyErased: boolean }
  | { kind: 'not_found' }
  | { kind: 'conflict'; message: string; status: string };

const isFinal = (status: string) => (FINAL_PAYMENT_STATUSES as readonly string[]).includes(status);

/**
 * Why a unit cannot be erased yet: a payment still open needs its e-mail (the provider's and the
 * merchant's receipts, the payer page), and an open checkout may still make a payment with it.
 */
function refusal(unit: LockedUnit, paymentId: string): Extract<EraseResult, { kind: 'conflict' }> | undefined {
  const open = unit.payments.find((p) => !isFinal(p.status));
  if (open !== undefined) {
    return {
      kind: 'conflict',
      status: open.status,
      message:
        open.id === paymentId
          ? `The payment is ${open.status}: its payer data can be erased once it is final (cancel it first).`
          : `Payment ${open.id} of the same checkout is ${open.status}: the checkout's payer data can be erased once every payment of it is final.`,
    };
  }
  if (unit.checkout !== undefined && unit.checkout.status === 'open') {
    return {
      kind: 'conflict',
      status: unit.checkout.status,
      message: `Checkout ${unit.checkout.id} of this payment is still open: expire it first (POST /checkout/{id}/expire).`,
    };
  }
  return undefined;
}

/**
 * Erases the payer data of a payment's unit (the merchant's erasure request, and each item of the
 * retention job). Idempotent: an erased unit answers as it is; only provider notifications that
 * arrived after the erasure (a late report) are erased again, by their personal keys.
 */
export async function erasePayerData(
  deps: PayerDataDeps,
  tenant: Tenant,
  paymentId: string,
  /** The merchant's principal when a key or a person asked (recorded in the audit log); absent for the retention job. */
  by?: Principal,
): Promise<EraseResult> {
  const now = deps.clock.now();
  const outcome = await deps.store.transaction(async (tx) => {
    const unit = await lockUnit(tx, tenant, paymentId);
    if (unit === undefined) return { kind: 'not_found' as const };
    const ids = unit.payments.map((p) => p.id);
    const requested = unit.payments.find((p) => p.id === paymentId);
    if (requested?.payer_data_erased_at != null) {
      await eraseNotifications(tx, tenant, ids, { emails: [], keys: PROVIDER_PERSONAL_KEYS }, now);
      return { kind: 'erased' as const, alreadyErased: true };
    }
    const refused = refusal(unit, paymentId);
    if (refused !== undefined) return refused;

    const emails = [
      ...new Set([...unit.payments.map((p) => p.email), unit.checkout?.email ?? null].filter((e): e is string => e !== null)),
    ];
    const inViews: Erasure = { emails, keys: VIEW_PERSONAL_KEYS };
    const objectIds = unit.checkout === undefined ? ids : [...ids, unit.checkout.id];
    await allowEventErasure(tx);
    await erasePaymentRows(tx, unit, inViews, now);
    if (unit.checkout !== undefined && unit.checkout.payer_data_erased_at === null) {
      await eraseCheckoutRow(tx, unit.checkout, inViews, now);
    }
    const eventIds = await eraseEvents(tx, tenant, objectIds, inViews);
    await eraseWebhookAttempts(tx, eventIds, inViews);
    await eraseStoredResponses(tx, tenant, objectIds, inViews);
    await eraseNotifications(tx, tenant, ids, { emails, keys: PROVIDER_PERSONAL_KEYS }, now);
    if (by !== undefined) {
      // Names the payment only: what was erased is the payer's, and stays out of the log.
      await recordAudit(tx, by, {
        action: 'payment.payer_data_erased',
        objectType: 'payment',
        objectId: paymentId,
        changes: { payment_ids: ids },
        at: now,
      });
    }
    return { kind: 'erased' as const, alreadyErased: false };
  });
  if (outcome.kind !== 'erased') return outcome;
  const payment = await findPayment(deps.store, tenant.merchantId, tenant.environment, paymentId);
  if (payment === undefined) return { kind: 'not_found' };
  return { kind: 'erased', payment, alreadyErased: outcome.alreadyErased };
}

const DAY_MS = 86_400_000;

/**
 * One bounded run of the retention job: erases up to `limit` units whose payments reached a final
 * state and last changed more than `retentionDays` ago. Pending payments are never candidates.
 * Returns how many candidates it took, so the job runner goes on while batches are full.
 */
export async function eraseDuePayerData(deps: PayerDataDeps & { retentionDays: number }, limit: number): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.retentionDays * DAY_MS);
  const due = await findDuePayments(deps.store, cutoff, limit);
  for (const p of due) {
    // The candidates' query asks what erasePayerData checks again under the locks (final payments,
    // a closed checkout: neither can reopen), so a candidate is erased; if it ever were refused, it
    // would stay a candidate for a later run, never half-erased.
    await erasePayerData(deps, { merchantId: p.merchant_id, environment: p.environment }, p.id);
  }
  return due.length;
}
