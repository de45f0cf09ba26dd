import type { Checkout, CreateCheckoutBody, ListCheckoutsQuery } from '../../sdk/src/index.ts';
import { type Command, idArg, oneOf, requiredOpt, stringOpt } from './cli-command.ts';
import { amountArg, CliUsageError, humanAmount, intArg, type Output, table, nextPageHint } from './cli-output.ts';

/** `checkout create|get|list|expire`: the checkout resource of the API (docs/checkout.md), through the SDK. */

const CHANNELS = ['bank', 'ewallet', 'counter'] as const;
type CheckoutChannel = (typeof CHANNELS)[number];
const STATUSES = ['open', 'completed', 'expired'] as const;
/** The API's bounds on `expires_in` (docs/checkout.md), checked here so a typo is a usage error. */
const EXPIRES_IN_SECONDS = { min: 300, max: 7 * 86_400 } as const;
const DURATION_UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `--expires-in 3600`, `90m`, `2h` or `7d` as seconds, within the API's bounds. */
export function expiresInArg(text: string, flag = '--expires-in'): number {
  const match = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  const seconds = match === null ? Number.NaN : Number(match[1]) * (DURATION_UNIT_SECONDS[match[2] || 's'] ?? Number.NaN);
  if (!Number.isSafeInteger(seconds) || seconds < EXPIRES_IN_SECONDS.min || seconds > EXPIRES_IN_SECONDS.max) {
    throw new CliUsageError(`${flag} ${JSON.stringify(text)} must be seconds (or with s, m, h, d) from 300 (5m) to 604800 (7d)`);
  }
  return seconds;
}

/** `--channels bank,ewallet`: each one a checkout channel, none twice, order kept (the payer sees it). */
export function channelsArg(text: string): CheckoutChannel[] {
  const channels = text.split(',').map((c) => c.trim());
  for (const c of channels) oneOf(c, CHANNELS, '--channels (comma-separated)');
  if (new Set(channels).size !== channels.length) throw new CliUsageError('--channels names a channel twice');
  return channels as CheckoutChannel[];
}

/** The payment the checkout points at: its id, or the expanded payment's id. */
function paymentIdOf(c: Checkout): string | null {
  const p = c.payment;
  return p === null || typeof p === 'string' ? p : p.id;
}

/** A checkout for people: a heading line and the fields a merchant looks at. */
export function checkoutText(out: Output, c: Checkout): string {
  const rows: string[][] = [
    ['reference', c.reference_no],
    ['channels', c.channels.join(', ')],
    ['payment', paymentIdOf(c) ?? '—'],
  ];
  if (c.payments.length > 1) rows.push(['payments', c.payments.join(', ')]);
  rows.push(['expires', c.expires_at], ['created', c.created_at]);
  if (c.closed_at !== null) rows.push(['closed', c.closed_at]);
  rows.push(['url', c.url]);
  if (c.client_secret !== undefined)
    rows.push(['client_secret', `${c.client_secret}  (shown once: give it to the payer's page only)`]);
  const head = `${out.paint.bold(c.id)}  ${out.status(c.status)}  ${humanAmount(c.amount, c.currency)}`;
  return `${head}\n${table(rows.map(([k, v]) => [`  ${out.paint.dim(k ?? '')}`, v ?? '']))}`;
}

export function checkoutRows(out: Output, checkouts: readonly Checkout[]): string {
  if (checkouts.length === 0) return 'no checkouts';
  return table([
    ['ID', 'STATUS', 'AMOUNT', 'REFERENCE', 'CREATED', 'PAYMENT'].map((h) => out.paint.dim(h)),
    ...checkouts.map((c) => [
      c.id,
      out.status(c.status),
      humanAmount(c.amount, c.currency),
      c.reference_no,
      c.created_at,
      paymentIdOf(c) ?? '—',
    ]),
  ]);
}

const create: Command = {
  name: 'checkout create',
  synopsis:
    '--amount A --currency C --reference REF [--channels bank,ewallet,counter] [--expires-in 24h] [--success-url URL] [--cancel-url URL] [--description T] [--email E] [--callback-url URL] [--idempotency-key K]',
  summary: 'create a checkout; prints its url and client_secret (shown once)',
  options: {
    amount: { type: 'string' },
    currency: { type: 'string' },
    reference: { type: 'string' },
    channels: { type: 'string' },
    'expires-in': { type: 'string' },
    'success-url': { type: 'string' },
    'cancel-url': { type: 'string' },
    description: { type: 'string' },
    email: { type: 'string' },
    'callback-url': { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  args: { min: 0, max: 0 },
  async run(ctx) {
    const currency = requiredOpt(ctx, 'currency');
    const body: CreateCheckoutBody = {
      amount: amountArg(requiredOpt(ctx, 'amount'), currency),
      currency,
      reference_no: requiredOpt(ctx, 'reference'),
    };
    const channels = stringOpt(ctx, 'channels');
    if (channels !== undefined) body.channels = channelsArg(channels);
    const expiresIn = stringOpt(ctx, 'expires-in');
    if (expiresIn !== undefined) body.expires_in = expiresInArg(expiresIn);
    const optional = [
      ['success-url', 'success_url'],
      ['cancel-url', 'cancel_url'],
      ['description', 'description'],
      ['email', 'email'],
      ['callback-url', 'callback_url'],
    ] as const;
    for (const [flag, field] of optional) {
      const value = stringOpt(ctx, flag);
      if (value !== undefined) body[field] = value;
    }
    const key = stringOpt(ctx, 'idempotency-key');
    ctx.out.progress('creating the checkout…');
    const checkout = await ctx.client().checkouts.create(body, key === undefined ? {} : { idempotencyKey: key });
    ctx.out.result(checkout, () => `Created ${checkoutText(ctx.out, checkout)}`);
  },
};

const get: Command = {
  name: 'checkout get',
  synopsis: 'CS_ID',
  summary: 'show one checkout',
  options: {},
  args: { min: 1, max: 1 },
  async run(ctx) {
    const checkout = await ctx.client().checkouts.retrieve(idArg(ctx, 0, 'cs', 'a checkout'));
    ctx.out.result(checkout, () => checkoutText(ctx.out, checkout));
  },
};

const list: Command = {
  name: 'checkout list',
  synopsis: '[--limit N] [--status open|completed|expired] [--starting-after CS_ID]',
  summary: 'one page of checkouts, newest first (next_cursor → --starting-after)',
  options: { limit: { type: 'string' }, status: { type: 'string' }, 'starting-after': { type: 'string' } },
  args: { min: 0, max: 0 },
  async run(ctx) {
    const query: ListCheckoutsQuery = {};
    const limit = intArg(stringOpt(ctx, 'limit'), '--limit', 1, 100);
    if (limit !== undefined) query.limit = limit;
    const status = oneOf(stringOpt(ctx, 'status'), STATUSES, '--status');
    if (status !== undefined) query.status = status;
    const after = stringOpt(ctx, 'starting-after');
    if (after !== undefined) query.starting_after = after;
    const page = await ctx.client().checkouts.list(query);
    ctx.out.result(page, () => {
      return `${checkoutRows(ctx.out, page.data)}${nextPageHint(ctx.out, page)}`;
    });
  },
};

const expire: Command = {
  name: 'checkout expire',
  synopsis: 'CS_ID',
  summary: 'end an open checkout now (its pending payment is canceled)',
  options: {},
  args: { min: 1, max: 1 },
  async run(ctx) {
    const checkout = await ctx.client().checkouts.expire(idArg(ctx, 0, 'cs', 'a checkout'));
    ctx.out.result(checkout, () => `Expired ${checkoutText(ctx.out, checkout)}`);
  },
};

export const CHECKOUT_COMMANDS: readonly Command[] = [create, get, list, expire];
