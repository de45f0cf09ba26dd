/**
 * The payment state machine. This table is the source of truth in code; the database mirrors it
 * in `payment_transition_allowed()` (0001_core.sql), and a test checks that the two agree.
 */
export const PAYMENT_STATUSES = ['processing', 'pending', 'succeeded', 'failed', 'expired', 'canceled', 'reversed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  processing: ['pending', 'failed'],
  pending: ['succeeded', 'failed', 'expired', 'canceled'],
  succeeded: ['reversed'],
  failed: [],
  expired: [],
  canceled: [],
  reversed: [],
};

/** Statuses that own their reference_no (the partial unique index uses the same list). */
export const LIVE_STATUSES: readonly PaymentStatus[] = ['processing', 'pending', 'succeeded'];

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return PAYMENT_TRANSITIONS[from].includes(to);
}

export function isTerminal(status: PaymentStatus): boolean {
  return PAYMENT_TRANSITIONS[status].length === 0;
}
