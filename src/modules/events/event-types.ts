import type { CurrencyCode } from '../../lib/currencies.ts';
import { paymentView } from '../payments/payment-view.ts';
import { reconciliationSummaryView } from '../reconciliation/reconciliation-view.ts';
import { settlementExceptionView } from '../settlement/settlement-exception-view.ts';
import type { Payment } from '../payments/payment-types.ts';
import { refundView } from '../refunds/refund-view.ts';
import { endpointView } from '../webhooks/endpoint-view.ts';

/**
 * Every event type Tributary sends, with what it means and an example payload. This catalogue
 * feeds the endpoint filters (an unknown type is refused), the `webhooks` section of the OpenAPI
 * document and docs/webhook-events.md (generated). Adding a type is not a breaking change;
 * receivers must ignore types they do not know.
 *
 * Payment, refund, reconciliation and settlement exception examples are built by the real views, so they cannot drift
 * from what is sent (`objectSchema` names each object's schema in the OpenAPI document).
 */
export type EventObjectType = 'payment' | 'refund' | 'reconciliation' | 'settlement_exception' | 'webhook_endpoint';

export interface EventTypeInfo {
  type: string;
  objectType: EventObjectType;
  /** Name of the OpenAPI component schema of `data.object`. */
  objectSchema: string;
  description: string;
  example: { object: Record<string, unknown>; previous_attributes: Record<string, unknown> };
}

const EXAMPLE_BASE_URL = 'https://api.tributary.example';
const T0 = new Date('2026-11-02T03:04:05.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

function examplePayment(overrides: Partial<Payment>): Record<string, unknown> {
  const payment: Payment = {
    id: 'pay_01KA2B3C4D5E6F7G8H9J0KMNPQ',
    merchantId: 'mer_01KA0000000000000000000000',
    environment: 'production',
    status: 'pending',
    amountMinor: 15_000_000n,
    currency: 'IDR' as CurrencyCode,
    referenceNo: 'INV-2026-0001',
    description: 'Order #1001',
    channelRequested: 'auto',
    channel: 'bank',
    paymentMethod: { channel: 'bank', connector: 'sandbox_bank', instrument: 'BCA', instrument_name: 'Bank Central Asia' },
    instructions: {
      type: 'virtual_account',
      bank_code: 'BCA',
      bank_name: 'Bank Central Asia',
      account_number: '3901000012345678',
      account_holder_name: 'My Shop',
    },
    metadata: { customer_id: 'cus_123' },
    email: 'payer@example.com',
    callbackUrl: 'https://shop.example.com/payments/callback',
    apiVersion: '2026-11-01',
    version: 2,
    expiresAt: at(24 * 60),
    failureCode: null,
    failureMessage: null,
    amountRefundedMinor: 0n,
    createdAt: T0,
    updatedAt: T0,
    succeededAt: null,
    closedAt: null,
    routing: null,
    amountPaidMinor: 0n,
    latePayment: null,
    cancellationReason: null,
    reversalReason: null,
    settlementId: null,
    settledAt: null,
    feeMinor: null,
    netMinor: null,
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

export const EVENT_TYPES: readonly EventTypeInfo[] = [
  {
    type: 'payment.pending',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'A provider issued the instructions; the payment waits for the payer.',
    example: { object: examplePayment({}), previous_attributes: { status: 'processing', instructions: null } },
  },
  {
    type: 'payment.succeeded',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The payer paid. Fulfil the order.',
    example: {
      object: examplePayment({ status: 'succeeded', version: 3, succeededAt: at(30), updatedAt: at(30) }),
      previous_attributes: { status: 'pending', succeeded_at: null },
    },
  },
  {
    type: 'payment.failed',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The payment cannot be paid any more (the provider refused it, or no provider could issue instructions).',
    example: {
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
  },
  {
    type: 'payment.expired',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'Nobody paid before `expires_at`.',
    example: {
      object: examplePayment({ status: 'expired', version: 3, updatedAt: at(24 * 60), closedAt: at(24 * 60) }),
      previous_attributes: { status: 'pending', closed_at: null },
    },
  },
  {
    type: 'payment.canceled',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The merchant canceled the pending payment.',
    example: {
      object: examplePayment({ status: 'canceled', version: 3, updatedAt: at(5), closedAt: at(5) }),
      previous_attributes: { status: 'pending', closed_at: null },
    },
  },
  {
    type: 'payment.settled',
    objectType: 'payment',
    objectSchema: 'Payment',
    description:
      "The provider paid the money out to the merchant; the payment's settlement fields say when, the fee and the net.",
    example: {
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
  },
  {
    type: 'payment.reversed',
    objectType: 'payment',
    objectSchema: 'Payment',
    description: 'The provider took a succeeded payment back (for example a disputed transfer).',
    example: {
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
  },
  {
    type: 'refund.succeeded',
    objectType: 'refund',
    objectSchema: 'Refund',
    description: 'A refund reached the payer. The payment’s `amount_refunded` includes it.',
    example: { object: exampleRefund('succeeded'), previous_attributes: { status: 'pending', completed_at: null } },
  },
  {
    type: 'refund.failed',
    objectType: 'refund',
    objectSchema: 'Refund',
    description: 'A refund could not be made; no money moved.',
    example: {
      object: exampleRefund('failed'),
      previous_attributes: { status: 'pending', failure_code: null, failure_message: null, completed_at: null },
    },
  },
  {
    type: 'reconciliation.completed',
    objectType: 'reconciliation',
    objectSchema: 'Reconciliation',
    description:
      "A reconciliation ran: a provider's settlement report was compared with Tributary's records. Sent for every reconciliation; `status` and `summary` say whether everything matched (GET /reconciliation/{id} has the lines).",
    example: { object: exampleReconciliation(false), previous_attributes: {} },
  },
  {
    type: 'reconciliation.discrepancy',
    objectType: 'reconciliation',
    objectSchema: 'Reconciliation',
    description:
      'A reconciliation found at least one discrepancy (missing on either side, amount or currency mismatch, duplicate, unknown reference, late); sent with `reconciliation.completed`. `summary` counts each kind; GET /reconciliation/{id} or its CSV lists the lines. docs/money.md says what to do about each.',
    example: { object: exampleReconciliation(true), previous_attributes: {} },
  },
  {
    type: 'settlement_exception.created',
    objectType: 'settlement_exception',
    objectSchema: 'SettlementException',
    description:
      'A provider\'s settlement report named one of your payments with figures Tributary could not apply (amount or currency mismatch, a payment not `succeeded`, a second settlement with other figures, an unknown charge). No money moved; the payment is not settled by that line. An operator resolves it (docs/money.md "Settlement exceptions").',
    example: { object: exampleSettlementException(false), previous_attributes: {} },
  },
  {
    type: 'settlement_exception.resolved',
    objectType: 'settlement_exception',
    objectSchema: 'SettlementException',
    description:
      'An operator resolved a settlement exception; `resolution` says what was done. Final: a resolved exception does not change again.',
    example: {
      object: exampleSettlementException(true),
      previous_attributes: { status: 'open', resolved_at: null, resolution: null },
    },
  },
  {
    type: 'webhook_endpoint.disabled',
    objectType: 'webhook_endpoint',
    objectSchema: 'WebhookEndpoint',
    description:
      'Tributary disabled one of your endpoints: it answered 410 Gone, or every attempt to it failed for 5 days. Fix it, then re-enable it and redeliver what it missed.',
    example: {
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
  },
];

export const EVENT_TYPE_NAMES: readonly string[] = EVENT_TYPES.map((t) => t.type);
export const ALL_EVENTS = '*';

export function eventTypeInfo(type: string): EventTypeInfo | undefined {
  return EVENT_TYPES.find((t) => t.type === type);
}

/** An example event body of `type` (for docs and the OpenAPI document). */
export function exampleEvent(info: EventTypeInfo): Record<string, unknown> {
  return {
    id: 'evt_01KA2B3C4D5E6F7G8H9J0KMNPR',
    type: info.type,
    created_at: (info.example.object['updated_at'] as string | undefined) ?? T0.toISOString(),
    api_version: '2026-11-01',
    data: { object: info.example.object, previous_attributes: info.example.previous_attributes },
  };
}
