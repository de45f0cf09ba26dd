import type { CreatePaymentBody, ListPaymentsQuery, Payment } from '../../sdk/src/index.ts';
import { type Command, idArg, oneOf, requiredOpt, stringOpt } from './cli-command.ts';
import { amountArg, CliUsageError, humanAmount, intArg, type Output, table, nextPageHint } from './cli-output.ts';

/** `payments create|get|list|cancel`: the payment resource of the API, through the SDK. */

const CHANNELS = ['bank', 'ewallet', 'counter', 'auto'] as const;
const STATUSES = ['processing', 'pending', 'succeeded', 'failed', 'expired', 'canceled', 'reversed'] as const;
const CANCEL_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent', 'abandoned'] as const;

/** What the payer needs, in one line: the bank and account, the wallet checkout, or the counter code. */
function instructionsLine(p: Payment): string {
  const i = p.instructions;
  if (i === null) return '—';
  if (i.type === 'virtual_account') return `virtual account ${i.bank_code} ${i.account_number}`;
  if (i.type === 'ewallet') return `e-wallet ${i.provider} ${i.checkout_url}`;
  return `counter ${i.partner} code ${i.payment_code}`;
}

/** A payment for people: a heading line and the fields a merchant looks at. */
export function paymentText(out: Output, p: Payment): string {
  const method = p.payment_method === null ? '' : ` (${p.payment_method.connector} ${p.payment_method.instrument})`;
  const rows: string[][] = [
    ['reference', p.reference_no],
    ['channel', `${p.channel ?? p.channel_requested}${method}`],
    ['instructions', instructionsLine(p)],
  ];
  if (p.amount_refunded > 0) rows.push(['refunded', humanAmount(p.amount_refunded, p.currency)]);
  if (p.failure_code !== null)
    rows.push(['failure', `${p.failure_code}${p.failure_message === null ? '' : `: ${p.failure_message}`}`]);
  rows.push(['expires', p.expires_at], ['created', p.created_at], ['pay_url', p.pay_url]);
  const head = `${out.paint.bold(p.id)}  ${out.status(p.status)}  ${humanAmount(p.amount, p.currency)}`;
  return `${head}\n${table(rows.map(([k, v]) => [`  ${out.paint.dim(k ?? '')}`, v ?? '']))}`;
}

export function paymentRows(out: Output, payments: readonly Payment[]): string {
  if (payments.length === 0) return 'no payments';
  return table([
    ['ID', 'STATUS', 'AMOUNT', 'REFERENCE', 'CREATED'].map((h) => out.paint.dim(h)),
    ...payments.map((p) => [p.id, out.status(p.status), humanAmount(p.amount, p.currency), p.reference_no, p.created_at]),
  ]);
}

function metadataOf(entries: string[] | undefined): Record<string, string> | undefined {
  if (entries === undefined || entries.length === 0) return undefined;
  const metadata: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new CliUsageError(`--metadata ${JSON.stringify(entry)}: expected key=value`);
    metadata[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return metadata;
}

const create: Command = {
  name: 'payments create',
  synopsis:
    '--amount A --currency C --reference REF [--channel bank|ewallet|counter|auto] [--description T] [--email E] [--callback-url URL] [--metadata k=v]… [--idempotency-key K]',
  summary: 'create a payment; prints its instructions',
  options: {
    amount: { type: 'string' },
    currency: { type: 'string' },
    reference: { type: 'string' },
    channel: { type: 'string' },
    description: { type: 'string' },
    email: { type: 'string' },
    'callback-url': { type: 'string' },
    metadata: { type: 'string', multiple: true },
    'idempotency-key': { type: 'string' },
  },
  args: { min: 0, max: 0 },
  async run(ctx) {
    const currency = requiredOpt(ctx, 'currency');
    const body: CreatePaymentBody = {
      amount: amountArg(requiredOpt(ctx, 'amount'), currency),
      currency,
      reference_no: requiredOpt(ctx, 'reference'),
    };
    const channel = oneOf(stringOpt(ctx, 'channel'), CHANNELS, '--channel');
    if (channel !== undefined) body.channel = channel;
    const description = stringOpt(ctx, 'description');
    if (description !== undefined) body.description = description;
    const email = stringOpt(ctx, 'email');
    if (email !== undefined) body.email = email;
    const callbackUrl = stringOpt(ctx, 'callback-url');
    if (callbackUrl !== undefined) body.callback_url = callbackUrl;
    const metadata = metadataOf(ctx.values['metadata'] as string[] | undefined);
    if (metadata !== undefined) body.metadata = metadata;
    const key = stringOpt(ctx, 'idempotency-key');
    ctx.out.progress('creating the payment…');
    const payment = await ctx.client().payments.create(body, key === undefined ? {} : { idempotencyKey: key });
    ctx.out.result(payment, () => `Created ${paymentText(ctx.out, payment)}`);
  },
};

const get: Command = {
  name: 'payments get',
  synopsis: 'PAY_ID',
  summary: 'show one payment',
  options: {},
  args: { min: 1, max: 1 },
  async run(ctx) {
    const payment = await ctx.client().payments.retrieve(idArg(ctx, 0, 'pay', 'a payment'));
    ctx.out.result(payment, () => paymentText(ctx.out, payment));
  },
};

const list: Command = {
  name: 'payments list',
  synopsis: '[--limit N] [--status S] [--starting-after PAY_ID]',
  summary: 'one page of payments, newest first (next_cursor → --starting-after)',
  options: { limit: { type: 'string' }, status: { type: 'string' }, 'starting-after': { type: 'string' } },
  args: { min: 0, max: 0 },
  async run(ctx) {
    const query: ListPaymentsQuery = {};
    const limit = intArg(stringOpt(ctx, 'limit'), '--limit', 1, 100);
    if (limit !== undefined) query.limit = limit;
    const status = oneOf(stringOpt(ctx, 'status'), STATUSES, '--status');
    if (status !== undefined) query.status = status;
    const after = stringOpt(ctx, 'starting-after');
    if (after !== undefined) query.starting_after = after;
    const page = await ctx.client().payments.list(query);
    ctx.out.result(page, () => {
      return `${paymentRows(ctx.out, page.data)}${nextPageHint(ctx.out, page)}`;
    });
  },
};

const cancel: Command = {
  name: 'payments cancel',
  synopsis: `PAY_ID [--reason ${CANCEL_REASONS.join('|')}]`,
  summary: 'cancel a pending payment',
  options: { reason: { type: 'string' } },
  args: { min: 1, max: 1 },
  async run(ctx) {
    const reason = oneOf(stringOpt(ctx, 'reason'), CANCEL_REASONS, '--reason');
    const payment = await ctx
      .client()
      .payments.cancel(idArg(ctx, 0, 'pay', 'a payment'), reason === undefined ? {} : { cancellation_reason: reason });
    ctx.out.result(payment, () => `Canceled ${paymentText(ctx.out, payment)}`);
  },
};

export const PAYMENTS_COMMANDS: readonly Command[] = [create, get, list, cancel];
