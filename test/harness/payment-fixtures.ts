import type { Instructions } from '../../src/connectors/core/connector.ts';
import type { Queryable } from '../../src/db/store.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { newId } from '../../src/lib/ids.ts';
import { insertPayment } from '../../src/modules/payments/payment-repo.ts';
import type { PaymentStatus } from '../../src/modules/payments/payment-states.ts';
import type { Payment } from '../../src/modules/payments/payment-types.ts';
import { ref } from './test-app.ts';
import type { Channel, Environment } from '../../src/kernel/index.ts';
import { newPayment } from '../../src/modules/payments/new-payment.ts';

/**
 * Payments written straight to the store, for read-side tests that need many rows, exact
 * creation times (several in the same millisecond) or statuses that the sandbox lifecycle
 * (another issue) does not produce yet. The create path has its own tests; these rows have the
 * same shape as the ones it writes.
 */
const INSTRUCTIONS: Record<Channel, Instructions> = {
  bank: {
    type: 'virtual_account',
    bank_code: 'BCA',
    bank_name: 'Bank Central Asia',
    account_number: '3901000000000001',
    account_holder_name: 'Seeded',
  },
  ewallet: {
    type: 'ewallet',
    provider: 'SANDBOXPAY',
    provider_name: 'SandboxPay',
    checkout_url: 'https://checkout.sandbox.invalid/sandboxpay/seeded',
    deep_link: 'sandboxpay://pay?token=seeded',
    qr_string: '000201010212seeded',
  },
  counter: {
    type: 'counter',
    partner: 'ALFAMART',
    partner_name: 'Alfamart (sandbox)',
    payment_code: 'TRB0000000001',
    barcode_value: 'TRB0000000001',
    outlets: ['Alfamart'],
  },
};

export interface SeedOptions {
  merchantId: string;
  environment?: Environment;
  createdAt: Date;
  status?: PaymentStatus;
  channel?: Channel;
  referenceNo?: string;
  amountMinor?: bigint;
  currency?: string;
}

export async function seedPayment(q: Queryable, o: SeedOptions): Promise<Payment> {
  const status = o.status ?? 'pending';
  const channel = o.channel ?? 'bank';
  const closed = !['processing', 'pending'].includes(status);
  const payment: Payment = {
    ...newPayment({
      id: newId('payment', o.createdAt.getTime()),
      merchantId: o.merchantId,
      environment: o.environment ?? 'sandbox',
      apiVersion: '2026-11-01',
      request: {
        amountMinor: o.amountMinor ?? 15_000_000n,
        currency: (o.currency ?? 'IDR') as CurrencyCode,
        referenceNo: o.referenceNo ?? ref('seed'),
        description: null,
        channel: 'auto',
        callbackUrl: null,
        metadata: {},
        email: null,
      },
      expiresAt: new Date(o.createdAt.getTime() + 86_400_000),
      now: o.createdAt,
      routing: null,
    }),
    status,
    channel: status === 'processing' ? null : channel,
    instructions: status === 'processing' ? null : INSTRUCTIONS[channel],
    succeededAt: status === 'succeeded' ? o.createdAt : null,
    closedAt: closed ? o.createdAt : null,
  };
  await insertPayment(q, payment);
  return payment;
}

/**
 * Moves a payment to `status` the way the lifecycle will (one transition, version + 1), for
 * tests of what readers show. The database's transition trigger still applies.
 */
export async function moveTo(q: Queryable, id: string, status: PaymentStatus, at: Date): Promise<void> {
  await q.query(
    `UPDATE payments SET status = $2, version = version + 1, updated_at = $3,
       succeeded_at = CASE WHEN $2 = 'succeeded' THEN $3 ELSE succeeded_at END,
       closed_at = CASE WHEN $2 IN ('failed', 'expired', 'canceled', 'reversed') THEN $3 ELSE closed_at END
     WHERE id = $1`,
    [id, status, at],
  );
}
