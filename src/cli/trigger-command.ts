import { randomUUID } from 'node:crypto';
import { type Event, type Payment, type Tributary, TributaryError } from '../../sdk/src/index.ts';
import { type Command, type CommandContext, stringOpt } from './cli-command.ts';
import { amountArg, CliUsageError, humanAmount, intArg } from './cli-output.ts';

/**
 * `tributary trigger EVENT`: makes a real sandbox payment produce that event, like `stripe
 * trigger`: it creates a payment and drives it with the same calls a merchant makes (simulate,
 * cancel, refund), waiting for each event it needs before the next step, and prints the event.
 * Nothing is written directly: the sandbox provider notifies Tributary as a real one does.
 */

type Step = 'pay' | 'fail' | 'expire' | 'reverse' | 'settle' | 'cancel' | 'refund';

/** Each event and the steps after the create that produce it (the create alone: payment.pending). */
export const TRIGGERS: Readonly<Record<string, readonly Step[]>> = {
  'payment.pending': [],
  'payment.succeeded': ['pay'],
  'payment.failed': ['fail'],
  'payment.expired': ['expire'],
  'payment.canceled': ['cancel'],
  'payment.reversed': ['pay', 'reverse'],
  'payment.settled': ['pay', 'settle'],
  'refund.succeeded': ['pay', 'refund'],
};

/** The event each step waits for before the next step may run. */
const AFTER: Record<Step, string> = {
  pay: 'payment.succeeded',
  fail: 'payment.failed',
  expire: 'payment.expired',
  reverse: 'payment.reversed',
  settle: 'payment.settled',
  cancel: 'payment.canceled',
  refund: 'refund.succeeded',
};

const POLL_MS = 250;
const DEFAULT_TIMEOUT_S = 30;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The newest event of `type` about `objectId`, waited for until the deadline. */
async function waitForEvent(
  ctx: CommandContext,
  client: Tributary,
  type: string,
  objectId: string,
  deadlineMs: number,
): Promise<Event> {
  const started = Date.now();
  for (;;) {
    const page = await client.events.list({ type, object_id: objectId, limit: 1 });
    const event = page.data[0];
    if (event !== undefined) return event;
    if (Date.now() >= deadlineMs) {
      throw new TributaryError({
        code: 'timeout',
        message: `No ${type} event for ${objectId} within the timeout. The server's jobs may be stopped (RUN_JOBS) or the provider's notifications failing; see \`tributary events list --object-id ${objectId}\`.`,
      });
    }
    ctx.out.progress(`waiting for ${type} on ${objectId}… ${Math.floor((Date.now() - started) / 1000)}s`);
    await sleep(POLL_MS);
  }
}

export const TRIGGER_COMMAND: Command = {
  name: 'trigger',
  synopsis: `EVENT [--timeout SECONDS]   EVENT: ${Object.keys(TRIGGERS).join(', ')}`,
  summary: 'sandbox keys: create a payment and drive it until it produces EVENT; prints the event',
  options: { timeout: { type: 'string' } },
  args: { min: 1, max: 1 },
  async run(ctx) {
    const target = ctx.args[0] ?? '';
    const steps = TRIGGERS[target];
    if (steps === undefined)
      throw new CliUsageError(`cannot trigger ${JSON.stringify(target)}; supported: ${Object.keys(TRIGGERS).join(', ')}`);
    if (ctx.apiKey().startsWith('sk_live_')) {
      throw new CliUsageError('trigger makes test payments: use a sandbox key (sk_test_…), not a production key');
    }
    const timeoutS = intArg(stringOpt(ctx, 'timeout'), '--timeout', 1, 600) ?? DEFAULT_TIMEOUT_S;
    const deadlineMs = Date.now() + timeoutS * 1000;
    const client = ctx.client();
    const { out } = ctx;
    const log: { step: string; id: string }[] = [];

    out.line(`Triggering ${out.paint.cyan(target)}`);
    out.progress('creating a sandbox payment…');
    const payment: Payment = await client.payments.create({
      amount: amountArg('150000.00', 'IDR'),
      currency: 'IDR',
      reference_no: `trigger-${target}-${randomUUID().slice(0, 8)}`,
      channel: 'bank',
      description: `tributary trigger ${target}`,
      metadata: { source: 'tributary_trigger' },
    });
    log.push({ step: 'create', id: payment.id });
    out.line(
      `  payment   ${payment.id} created (${humanAmount(payment.amount, payment.currency)}, ${payment.channel ?? payment.channel_requested})`,
    );

    let objectId = payment.id;
    let refundId: string | null = null;
    for (const [i, step] of steps.entries()) {
      out.progress(`${step}…`);
      if (step === 'cancel') {
        await client.payments.cancel(payment.id, { cancellation_reason: 'abandoned' });
        out.line(`  cancel    ${payment.id}`);
      } else if (step === 'refund') {
        const refund = await client.refunds.create(payment.id, { reason: 'requested_by_customer' });
        refundId = refund.id;
        objectId = refund.id;
        out.line(`  refund    ${refund.id} (${humanAmount(refund.amount, refund.currency)}, ${refund.status})`);
      } else {
        const outcome = (
          { pay: 'succeeded', fail: 'failed', expire: 'expired', reverse: 'reversed', settle: 'settled' } as const
        )[step];
        await client.sandbox.simulate(payment.id, { outcome });
        out.line(`  simulate  ${outcome}`);
      }
      log.push({ step, id: objectId });
      // A later step needs the state this one leads to (a reversal needs a succeeded payment).
      if (i < steps.length - 1) await waitForEvent(ctx, client, AFTER[step], objectId, deadlineMs);
    }
    const event = await waitForEvent(ctx, client, target, objectId, deadlineMs);
    out.result(
      { event_type: target, event, payment_id: payment.id, refund_id: refundId, steps: log },
      () => `  event     ${out.paint.bold(event.id)} ${out.paint.green(event.type)}`,
    );
  },
};
