import type { Refund, RefundPaymentBody } from '../../sdk/src/index.ts';
import { type Command, idArg, oneOf, stringOpt } from './cli-command.ts';
import { amountArg, humanAmount, type Output } from './cli-output.ts';

/** `refunds create|get`: refunds of a payment (POST /payment/{id}/refund), through the SDK. */

const REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;
const SOURCES = ['payment', 'late_payment'] as const;

export function refundText(out: Output, r: Refund): string {
  const failure =
    r.failure_code === null ? '' : `  ${r.failure_code}${r.failure_message === null ? '' : `: ${r.failure_message}`}`;
  return `${out.paint.bold(r.id)}  ${out.status(r.status)}  ${humanAmount(r.amount, r.currency)}  of ${r.payment_id}${failure}`;
}

const create: Command = {
  name: 'refunds create',
  synopsis: `PAY_ID [--amount A] [--reason ${REASONS.join('|')}] [--source payment|late_payment] [--idempotency-key K]`,
  summary: 'refund all that is left of a payment, or --amount of it (pending until the provider answers)',
  options: {
    amount: { type: 'string' },
    reason: { type: 'string' },
    source: { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  args: { min: 1, max: 1 },
  async run(ctx) {
    const paymentId = idArg(ctx, 0, 'pay', 'a payment');
    const body: RefundPaymentBody = {};
    const reason = oneOf(stringOpt(ctx, 'reason'), REASONS, '--reason');
    if (reason !== undefined) body.reason = reason;
    const source = oneOf(stringOpt(ctx, 'source'), SOURCES, '--source');
    if (source !== undefined) body.source = source;
    const amountText = stringOpt(ctx, 'amount');
    const client = ctx.client();
    if (amountText !== undefined) {
      // The amount is checked exactly against the payment's currency before it is sent.
      const payment = await client.payments.retrieve(paymentId);
      body.amount = amountArg(amountText, payment.currency);
    }
    const key = stringOpt(ctx, 'idempotency-key');
    const refund = await client.refunds.create(paymentId, body, key === undefined ? {} : { idempotencyKey: key });
    ctx.out.result(refund, () => `Refund ${refundText(ctx.out, refund)}`);
  },
};

const get: Command = {
  name: 'refunds get',
  synopsis: 'REF_ID',
  summary: 'show one refund',
  options: {},
  args: { min: 1, max: 1 },
  async run(ctx) {
    const refund = await ctx.client().refunds.retrieve(idArg(ctx, 0, 'ref', 'a refund'));
    ctx.out.result(refund, () => refundText(ctx.out, refund));
  },
};

export const REFUNDS_COMMANDS: readonly Command[] = [create, get];
