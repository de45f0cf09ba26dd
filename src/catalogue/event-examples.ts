import { assert } from '../lib/assert.ts';
import type { CurrencyCode } from '../lib/currencies.ts';
import { EVENT_TYPES, type EventTypeInfo } from '../modules/events/event-types.ts';
import { paymentView } from '../modules/payments/payment-view.ts';
import type { Payment } from '../modules/payments/payment-types.ts';
import { reconciliationSummaryView } from '../modules/reconciliation/reconciliation-view.ts';
import { refundView } from '../modules/refunds/refund-view.ts';
import { settlementExceptionView } from '../modules/settlement/settlement-exception-view.ts';
import { endpointView } from '../modules/webhooks/endpoint-view.ts';
import { type Checkout, checkoutView } from '../modules/checkouts/index.ts';
import { newPayment } from '../modules/payments/new-payment.ts';

/**
 * An example payload per event type, for the OpenAPI document's `webhooks` and
 * docs/webhook-events.md, built by the real views so an example cannot drift from what is sent.
 * The example objects are also the key order events are rendered in (`eventObjectTemplate`).
 * Above the modules, because it needs every module's view and the event catalogue needs none.
 */
interface EventExample {
  object: Record<string, unknown>;
  previous_attributes: Record<string, unknown>;
}

const EXAMPLE_BASE_URL = 'https://api.tributary.example';
const T0 = new Date('2026-11-02T03:04:05.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

function examplePayment(overrides: Partial<Payment>) {
  const payment: Payment = {
    ...newPayment({
      id: 'pay_01KA2B3C4D5E6F7G8H9J0KMNPQ',
      merchantId: 'mer_01KA0000000000000000000000',
      environment: 'production',
      apiVersion: '2026-11-01',
      request: {
        amountMinor: 15_000_000n,
        currency: 'IDR' as CurrencyCode,
        referenceNo: 'INV-2026-0001',
        description: 'Order #1001',
        channel: 'auto',
        callbackUrl: 'https://shop.example.com/payments/callback',
        metadata: { customer_id: 'cus_123' },
        email: 'payer@example.com',
      },
      expiresAt: at(24 * 60),
      now: T0,
      routing: null,
    }),
    status: 'pending',
    channel: 'bank',
    paymentMethod: { channel: 'bank', connector: 'sandbox_bank', instrument: 'BCA', instrument_name: 'Bank Central Asia' },
    instructions: {
      type: 'virtual_account',
      bank_code: 'BCA',
      bank_name: 'Bank Central Asia',
      account_number: '3901000012345678',
      account_holder_name: 'My Shop',
    },
    version: 2,
    ...overrides,
  };
  return paymentView(payment, EXAMPLE_BASE_URL);
}

const exampleRefund = (status: 'succeeded' | 'failed'): Record<string, unknown> =>
  refundView({
    id: 'ref_01KA2B9Z8Y7X6W5V4T3S2R1Q0P',
    merchantId: 'mer_01KA0000000000000000000000',
    environment: 'production',
    paymentId: 'pay_01KA2B3C4D5E6F7G8H9J0KMNPQ',
    attemptId: 'att_01KA2B3C4D5E6F7G8H9J0KMNPQ',
    connector: 'sandbox_bank',
    amountMinor: 5_000_000n,
    currency: 'IDR' as CurrencyCode,
    status,
    reason: 'requested_by_customer',
    failureCode: status === 'failed' ? 'refund_rejected' : null,
    failureMessage: status === 'failed' ? 'the provider failed the refund' : null,
    providerRefundId: 'rfd_5f2c9a0e1b7d4c3a',
    heldFrom: 'merchant_pending',
    version: 2,
    nextSyncAt: null,
    syncCount: 0,
    createdAt: at(120),
    updatedAt: at(121),
    completedAt: at(121),
  });

const exampleSettlementException = (resolved: boolean) =>
  settlementExceptionView({
    id: 'stx_01KA3B0000000000000000000B',
    connector: 'sandbox_bank',
    providerReference: 'sbva_7f3e2d1c0b9a',
    attemptId: 'att_01KA2B3C4D5E6F7G8H9J0KMNPQ',
    settledAt: at(1440),
    kind: 'amount_mismatch',
    merchantId: 'mer_01KA0000000000000000000000',
    environment: 'production',
    paymentId: 'pay_01KA2B3C4D5E6F7G8H9J0KMNPQ',
    grossMinor: 15_000_100n,
    feeMinor: 400_000n,
    currency: 'IDR',
    detail: 'the payer paid 15000000 minor units',
    status: resolved ? 'resolved' : 'open',
    resolvedAt: resolved ? at(3 * 1440) : null,
    resolution: resolved ? 'the provider re-sent a corrected report line' : null,
    createdAt: at(1441),
  });

const exampleReconciliation = (discrepancies: boolean) =>
  reconciliationSummaryView({
    id: 'rec_01KA3C0000000000000000000A',
    merchantId: 'mer_01KA0000000000000000000000',
    environment: 'production',
    connector: 'sandbox_bank',
    from: at(0),
    to: at(1440),
    inputsHash: '',
    status: discrepancies ? 'discrepancies' : 'matched',
    reportLines: 42,
    matchedCount: discrepancies ? 40 : 42,
    discrepancyCount: discrepancies ? 2 : 0,
    counts: {
      matched: discrepancies ? 40 : 42,
      missing_in_ours: 0,
      missing_in_report: discrepancies ? 1 : 0,
      amount_mismatch: discrepancies ? 1 : 0,
      currency_mismatch: 0,
      duplicate: 0,
      unknown_reference: 0,
      late: 0,
    },
    apiVersion: '2026-11-01',
    createdAt: at(2 * 1440),
  });

function exampleCheckout(status: 'completed' | 'expired'): Record<string, unknown> {
  const paymentId = 'pay_01KA2B3C4D5E6F7G8H9J0KMNPQ';
  const checkout: Checkout = {
    id: 'cs_01KA2B3C4D5E6F7G8H9J0KMNPS',
    merchantId: 'mer_01KA0000000000000000000000',
    environment: 'production',
    status,
    amountMinor: 15_000_000n,
    currency: 'IDR' as CurrencyCode,
    referenceNo: 'INV-2026-0001',
    description: 'Order #1001',
    email: 'payer@example.com',
    metadata: { customer_id: 'cus_123' },
    callbackUrl: null,
    channels: ['bank', 'ewallet', 'counter'],
    successUrl: 'https://shop.example.com/orders/1001/thanks',
    cancelUrl: 'https://shop.example.com/cart',
    clientSecretHash: '',
    apiVersion: '2026-11-01',
    expiresAt: at(24 * 60),
    currentPaymentId: paymentId,
    completedPaymentId: status === 'completed' ? paymentId : null,
    version: 3,
    createdAt: T0,
    updatedAt: at(30),
    closedAt: at(30),
    payerDataErasedAt: null,
  };
  const payment =
    status === 'completed'
      ? examplePayment({ status: 'succeeded', version: 3, succeededAt: at(30), updatedAt: at(30) })
      : undefined;
  return checkoutView(checkout, [paymentId], EXAMPLE_BASE_URL, payment);
}

const EXAMPLES: Record<string, EventExample> = {
  'payment.pending': { object: examplePayment({}), previous_attributes: { status: 'processing', instructions: null } },
  'payment.succeeded': {
    object: examplePayment({ status: 'succeeded', version: 3, succeededAt: at(30), updatedAt: at(30) }),
    previous_attributes: { status: 'pending', succeeded_at: null },
  },
  'payment.failed': {
    object: examplePayment({
      status: 'failed',
      version: 3,
      failureCode: 'provider_declined',
      failureMessage: 'The bank declined the transfer.',
      updatedAt: at(10),
      closedAt: at(10),
    }),
    previous_attributes: { status: 'pending', failure_code: null, failure_message: null, closed_at: null },
  },
  'payment.expired': {
    object: examplePayment({ status: 'expired', version: 3, updatedAt: at(24 * 60), closedAt: at(24 * 60) }),
    previous_attributes: { status: 'pending', closed_at: null },
  },
  'payment.canceled': {
    object: examplePayment({ status: 'canceled', version: 3, updatedAt: at(5), closedAt: at(5) }),
    previous_attributes: { status: 'pending', closed_at: null },
  },
  'payment.settled': {
    object: examplePayment({
      status: 'succeeded',
      version: 4,
      amountPaidMinor: 15_000_000n,
      succeededAt: at(30),
      updatedAt: at(2 * 1440),
      settlementId: 'stl_01KA3B0000000000000000000S',
      settledAt: at(1470),
      feeMinor: 400_000n,
      netMinor: 14_600_000n,
    }),
    previous_attributes: { settlement_id: null, settled_at: null, fee: null, net: null },
  },
  'payment.reversed': {
    object: examplePayment({
      status: 'reversed',
      reversalReason: 'chargeback',
      version: 4,
      succeededAt: at(30),
      updatedAt: at(3 * 1440),
      closedAt: at(3 * 1440),
    }),
    previous_attributes: { status: 'succeeded', closed_at: null, reversal_reason: null },
  },
  'refund.succeeded': { object: exampleRefund('succeeded'), previous_attributes: { status: 'pending', completed_at: null } },
  'refund.failed': {
    object: exampleRefund('failed'),
    previous_attributes: { status: 'pending', failure_code: null, failure_message: null, completed_at: null },
  },
  'reconciliation.completed': { object: exampleReconciliation(false), previous_attributes: {} },
  'reconciliation.discrepancy': { object: exampleReconciliation(true), previous_attributes: {} },
  'settlement_exception.created': { object: exampleSettlementException(false), previous_attributes: {} },
  'settlement_exception.resolved': {
    object: exampleSettlementException(true),
    previous_attributes: { status: 'open', resolved_at: null, resolution: null },
  },
  'webhook_endpoint.disabled': {
    object: endpointView({
      id: 'we_01KA1A2B3C4D5E6F7G8H9J0KMN',
      merchantId: 'mer_01KA0000000000000000000000',
      environment: 'production',
      url: 'https://shop.example.com/webhooks/tributary',
      description: 'Order service',
      enabledEvents: ['*'],
      status: 'disabled',
      disabledReason: 'failing',
      secretCiphertext: '',
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      failingSince: at(0),
      version: 3,
      createdAt: at(-10 * 1440),
      updatedAt: at(5 * 1440),
    }),
    previous_attributes: { status: 'enabled', disabled_reason: null },
  },
  'checkout.completed': {
    object: exampleCheckout('completed'),
    previous_attributes: { status: 'open' },
  },
  'checkout.expired': {
    object: exampleCheckout('expired'),
    previous_attributes: { status: 'open' },
  },
};

for (const info of EVENT_TYPES) assert(EXAMPLES[info.type] !== undefined, `event type ${info.type} has no example`);

/** An example event body of `type` (for docs and the OpenAPI document). */
export function exampleEvent(info: EventTypeInfo): Record<string, unknown> {
  const example = EXAMPLES[info.type];
  assert(example !== undefined, `event type ${info.type} has no example`);
  return {
    id: 'evt_01KA2B3C4D5E6F7G8H9J0KMNPR',
    type: info.type,
    created_at: (example.object['updated_at'] as string | undefined) ?? T0.toISOString(),
    api_version: '2026-11-01',
    data: { object: example.object, previous_attributes: example.previous_attributes },
  };
}

/** The key order `data.object` of an event of `type` is rendered in (events/event-view.ts). */
export function eventObjectTemplate(type: string): unknown {
  return EXAMPLES[type]?.object;
}
