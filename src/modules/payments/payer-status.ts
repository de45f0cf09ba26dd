import type { PayerPayment } from './payment-query-repo.ts';

/**
 * What the payer is told, from the payment's status and the time. A pending payment whose
 * `expires_at` has passed is shown as expired even before the sweeper moves it: a payer must not
 * be invited to pay instructions that are about to be closed.
 */
export type PayerState = 'preparing' | 'payable' | 'expired' | 'succeeded' | 'failed' | 'canceled' | 'reversed';

export function payerState(p: Pick<PayerPayment, 'status' | 'expiresAt'>, now: Date): PayerState {
  switch (p.status) {
    case 'processing':
      return 'preparing';
    case 'pending':
      return now.getTime() < p.expiresAt.getTime() ? 'payable' : 'expired';
    default:
      return p.status;
  }
}

/** The page keeps polling only while something can still change for the payer. */
export function isFinalForPayer(state: PayerState): boolean {
  return state !== 'preparing' && state !== 'payable';
}

/** The public status document the payer page polls: nothing beyond what the page shows. */
export function payerStatusView(p: PayerPayment, now: Date) {
  return { id: p.id, status: p.status, state: payerState(p, now), expires_at: p.expiresAt.toISOString() };
}
