import type { SimulatePaymentBody } from '../../sdk/src/index.ts';
import { type Command, idArg, oneOf, requiredOpt, stringOpt } from './cli-command.ts';
import { amountArg, CliUsageError } from './cli-output.ts';

/** `sandbox simulate`: make the sandbox provider act on a payment (docs/sandbox.md). */

export const SIMULATE_OUTCOMES = ['succeeded', 'failed', 'expired', 'reversed', 'settled'] as const;

const simulate: Command = {
  name: 'sandbox simulate',
  synopsis: `PAY_ID --outcome ${SIMULATE_OUTCOMES.join('|')} [--amount A]`,
  summary: 'sandbox keys: the payer pays, the provider fails/expires/reverses/settles (docs/sandbox.md)',
  options: { outcome: { type: 'string' }, amount: { type: 'string' } },
  args: { min: 1, max: 1 },
  async run(ctx) {
    const paymentId = idArg(ctx, 0, 'pay', 'a payment');
    const outcome = oneOf(requiredOpt(ctx, 'outcome'), SIMULATE_OUTCOMES, '--outcome') as SimulatePaymentBody['outcome'];
    const body: SimulatePaymentBody = { outcome };
    const amountText = stringOpt(ctx, 'amount');
    const client = ctx.client();
    if (amountText !== undefined) {
      if (outcome !== 'succeeded') throw new CliUsageError('--amount goes with --outcome succeeded only');
      body.amount = amountArg(amountText, (await client.payments.retrieve(paymentId)).currency);
    }
    const simulation = await client.sandbox.simulate(paymentId, body);
    ctx.out.result(simulation, () => {
      const settlement = simulation.settlement_id == null ? '' : `, settlement ${simulation.settlement_id}`;
      return [
        `Simulated ${ctx.out.paint.bold(simulation.outcome)} on ${simulation.payment_id} at ${simulation.connector} (provider status ${simulation.provider_status}${settlement}).`,
        ctx.out.paint.dim(
          'The payment changes when the provider notification is processed: `tributary payments get` or `tributary listen`.',
        ),
      ].join('\n');
    });
  },
};

export const SANDBOX_COMMANDS: readonly Command[] = [simulate];
