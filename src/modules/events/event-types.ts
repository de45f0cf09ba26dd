/**
 * Every event type Tributary sends, with what it means and an example payload. This catalogue
 * feeds the endpoint filters (an unknown type is refused), the `webhooks` section of the OpenAPI
 * document and docs/webhook-events.md (generated). Adding a type is not a breaking change;
 * receivers must ignore types they do not know.
 *
 * Each type's example payload is in `catalogue/event-examples.ts`, built by the real views so it
 * cannot drift from what is sent (`objectSchema` names each object's schema in the OpenAPI document).
 */
export type EventObjectType = 'payment' | 'refund' | 'reconciliation' | 'settlement_exception' | 'webhook_endpoint' | 'checkout';

export interface EventTypeInfo {
  type: string;
  objectType: EventObjectType;
  /** Name of the OpenAPI component schema of `data.object`. */
  objectSchema: string;
  description: string;
}

export const EVENT_TYPES: readonly EventTypeInfo[] = [
  {
    type: 'payment.pending',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'A provider issued the instructions; the payment waits for the payer.',
  },
  {
    type: 'payment.succeeded',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The payer paid. Fulfil the order.',
  },
  {
    type: 'payment.failed',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The payment cannot be paid any more (the provider refused it, or no provider could issue instructions).',
  },
  {
    type: 'payment.expired',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'Nobody paid before `expires_at`.',
  },
  {
    type: 'payment.canceled',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The merchant canceled the pending payment.',
  },
  {
    type: 'payment.settled',
    objectType: 'payment',
    objectSchema: 'Payment',
    description:
      "The provider paid the money out to the merchant; the payment's settlement fields say when, the fee and the net.",
  },
  {
    type: 'payment.reversed',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The provider took a succeeded payment back (for example a disputed transfer).',
  },
  {
    type: 'refund.succeeded',
    objectType: 'refund',
    objectSchema: 'Refund',
    description: 'A refund reached the payer. The payment’s `amount_refunded` includes it.',
  },
  {
    type: 'refund.failed',
    objectType: 'refund',
    objectSchema: 'Refund',
    description: 'A refund could not be made; no money moved.',
  },
  {
    type: 'reconciliation.completed',
    objectType: 'reconciliation',
    objectSchema: 'Reconciliation',
    description:
      "A reconciliation ran: a provider's settlement report was compared with Tributary's records. Sent for every reconciliation; `status` and `summary` say whether everything matched (GET /reconciliation/{id} has the lines).",
  },
  {
    type: 'reconciliation.discrepancy',
    objectType: 'reconciliation',
    objectSchema: 'Reconciliation',
    description:
      'A reconciliation found at least one discrepancy (missing on either side, amount or currency mismatch, duplicate, unknown reference, late); sent with `reconciliation.completed`. `summary` counts each kind; GET /reconciliation/{id} or its CSV lists the lines. docs/money.md says what to do about each.',
  },
  {
    type: 'settlement_exception.created',
    objectType: 'settlement_exception',
    objectSchema: 'SettlementException',
    description:
      'A provider\'s settlement report named one of your payments with figures Tributary could not apply (amount or currency mismatch, a payment not `succeeded`, a second settlement with other figures, an unknown charge). No money moved; the payment is not settled by that line. An operator resolves it (docs/money.md "Settlement exceptions").',
  },
  {
    type: 'settlement_exception.resolved',
    objectType: 'settlement_exception',
    objectSchema: 'SettlementException',
    description:
      'An operator resolved a settlement exception; `resolution` says what was done. Final: a resolved exception does not change again.',
  },
  {
    type: 'webhook_endpoint.disabled',
    objectType: 'webhook_endpoint',
    objectSchema: 'WebhookEndpoint',
    description:
      'Tributary disabled one of your endpoints: it answered 410 Gone, or every attempt to it failed for 5 days. Fix it, then re-enable it and redeliver what it missed.',
  },
  {
    type: 'checkout.completed',
    objectType: 'checkout',
    objectSchema: 'Checkout',
    description: 'A payment of the checkout succeeded; `data.object.payment` is that payment. The checkout never collects again.',
  },
  {
    type: 'checkout.expired',
    objectType: 'checkout',
    objectSchema: 'Checkout',
    description:
      'The checkout expired (its time passed, or you expired it) without a successful payment; its pending payment was canceled.',
  },
];

export const EVENT_TYPE_NAMES: readonly string[] = EVENT_TYPES.map((t) => t.type);
export const ALL_EVENTS = '*';

export function eventTypeInfo(type: string): EventTypeInfo | undefined {
  return EVENT_TYPES.find((t) => t.type === type);
}
