/**
 * The payment state machine. This table is the source of truth in code; the database mirrors it
 * in `payment_transition_allowed()` (latest in 0002_channels.sql), and a test checks that the two
 * agree (test/integration/transition-table.test.ts).
 *
 * `expired → succeeded` and `canceled → succeeded` exist only for a late payment that is accepted
 * (the payer paid before the expiry but the news came after it, or the merchant's late-payment
 * policy is `accept`); see docs/payments.md.
 */
export const PAYMENT_STATUSES = ['processing', 'pending', 'succeeded', 'failed', 'expired', 'canceled', 'reversed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  processing: ['pending', 'failed'],
  pending: ['succeeded', 'failed', 'expired', 'canceled'],
  succeeded: ['reversed'],
  failed: [],
  expired: ['succeeded'],
  canceled: ['succeeded'],
  reversed: [],
};

/** Where a payment normally ends: no more payer action is expected (a late payment may still come). */
export const CLOSED_STATUSES: readonly PaymentStatus[] = ['failed', 'expired', 'canceled', 'reversed'];

/** Statuses that own their reference_no (the partial unique index uses the same list). */
export const LIVE_STATUSES: readonly PaymentStatus[] = ['processing', 'pending', 'succeeded'];

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return PAYMENT_TRANSITIONS[from].includes(to);
}

export function isTerminal(status: PaymentStatus): boolean {
  return PAYMENT_TRANSITIONS[status].length === 0;
}

export function isClosed(status: PaymentStatus): boolean {
  return CLOSED_STATUSES.includes(status);
}
