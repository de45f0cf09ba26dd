import type { CreatePaymentLinkBody, ListPaymentLinksQuery, PaymentLink } from '../../sdk/src/index.ts';
import { isCurrencyCode } from '../lib/currencies.ts';
import { parseMajorAmount } from '../lib/money.ts';
import { channelsArg, expiresInArg } from './checkouts-commands.ts';
import { type Command, idArg, requiredOpt, stringOpt } from './cli-command.ts';
import { amountArg, CliUsageError, humanAmount, intArg, type Output, table, nextPageHint } from './cli-output.ts';

/**
 * `payment-links create|get|list|deactivate`: the payment-link resource of the API
 * (docs/checkout.md, section 8), through the SDK. A link is a fixed amount or bounds the payer
 * enters an amount between; its `url` is what the merchant shares.
 */

/** The API's ceiling on `max_uses` (src/http/schemas/payment-link.schema.ts). */
const MAX_USES = 1_000_000;

/** What the link asks for, for people: the exact amount, or its bounds. */
export function linkAmountText(l: PaymentLink): string {
  if (l.amount !== null) return humanAmount(l.amount, l.currency);
  if (l.amount_min !== null && l.amount_max !== null) {
    return `${humanAmount(l.amount_min, l.currency)} – ${humanAmount(l.amount_max, l.currency)} (payer enters)`;
  }
  return l.currency;
}

/** Uses left of the link's maximum, or unlimited. */
function usesText(l: PaymentLink): string {
  return l.max_uses === null ? 'unlimited' : `${String(l.remaining_uses ?? 0)} of ${String(l.max_uses)} left`;
}

export function paymentLinkText(out: Output, l: PaymentLink): string {
  const rows: string[][] = [];
  if (l.description !== null) rows.push(['description', l.description]);
  rows.push(['uses', usesText(l)]);
  rows.push([
    'checkouts',
    `${String(l.checkouts.open)} open, ${String(l.checkouts.completed)} completed, ${String(l.checkouts.expired)} expired`,
  ]);
  rows.push(['collected', humanAmount(l.totals.collected, l.currency)]);
  if (l.channels !== null) rows.push(['channels', l.channels.join(', ')]);
  rows.push(['expires', l.expires_at ?? 'never'], ['created', l.created_at]);
  if (l.deactivated_at !== null) rows.push(['deactivated', l.deactivated_at]);
  rows.push(['url', l.url]);
  const head = `${out.paint.bold(l.id)}  ${out.status(l.status)}  ${linkAmountText(l)}`;
  return `${head}\n${table(rows.map(([k, v]) => [`  ${out.paint.dim(k ?? '')}`, v ?? '']))}`;
}

export function paymentLinkRows(out: Output, links: readonly PaymentLink[]): string {
  if (links.length === 0) return 'no payment links';
  return table([
    ['ID', 'STATUS', 'AMOUNT', 'USES', 'COLLECTED', 'CREATED'].map((h) => out.paint.dim(h)),
    ...links.map((l) => [
      l.id,
      out.status(l.status),
      linkAmountText(l),
      usesText(l),
      humanAmount(l.totals.collected, l.currency),
      l.created_at,
    ]),
  ]);
}

/** A bound's minor units, to compare the two exactly (amountArg has checked the text already). */
function minorOf(text: string, currency: string): bigint {
  if (!isCurrencyCode(currency)) throw new CliUsageError(`unknown currency ${JSON.stringify(currency)}`);
  const parsed = parseMajorAmount(text.trim(), currency);
  if (!parsed.ok) throw new CliUsageError(`${JSON.stringify(text)} is not an amount`);
  return parsed.minor;
}

/** `--expires-at`: an RFC 3339 instant with its offset (`2026-12-31T23:59:59Z`); the server checks it is ahead. */
export function expiresAtArg(text: string): string {
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
  if (!rfc3339.test(text.trim()) || Number.isNaN(Date.parse(text.trim()))) {
    throw new CliUsageError(
      `--expires-at ${JSON.stringify(text)} must be a date and time with its offset, like 2026-12-31T23:59:59Z`,
    );
  }
  return new Date(Date.parse(text.trim())).toISOString();
}

/** `--success-url`, `--cancel-url`: the payer's browser goes there, so an absolute http(s) URL. */
function payerUrlArg(text: string, flag: string): string {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new CliUsageError(`${flag} must be an absolute http(s) URL`);
  }
  return text;
}

const create: Command = {
  name: 'payment-links create',
  synopsis:
    '(--amount A | --amount-min A --amount-max B) --currency C [--description T] [--max-uses N] [--expires-at ISO] [--channels bank,ewallet,counter] [--checkout-expires-in 1h] [--success-url URL] [--cancel-url URL] [--idempotency-key K]',
  summary: 'create a payment link (a fixed amount, or bounds the payer enters it between); prints its url',
  options: {
    amount: { type: 'string' },
    'amount-min': { type: 'string' },
    'amount-max': { type: 'string' },
    currency: { type: 'string' },
    description: { type: 'string' },
    'max-uses': { type: 'string' },
    'expires-at': { type: 'string' },
    channels: { type: 'string' },
    'checkout-expires-in': { type: 'string' },
    'success-url': { type: 'string' },
    'cancel-url': { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  args: { min: 0, max: 0 },
  async run(ctx) {
    const currency = requiredOpt(ctx, 'currency');
    const fixed = stringOpt(ctx, 'amount');
    const min = stringOpt(ctx, 'amount-min');
    const max = stringOpt(ctx, 'amount-max');
    const body: CreatePaymentLinkBody = { currency };
    if (fixed !== undefined) {
      if (min !== undefined || max !== undefined) {
        throw new CliUsageError('give either --amount (fixed) or --amount-min and --amount-max (the payer enters it), not both');
      }
      body.amount = amountArg(fixed, currency);
    } else if (min === undefined && max === undefined) {
      throw new CliUsageError('--amount, or --amount-min and --amount-max, is required');
    } else {
      if (min === undefined || max === undefined) throw new CliUsageError('--amount-min and --amount-max go together');
      body.amount_min = amountArg(min, currency, '--amount-min');
      body.amount_max = amountArg(max, currency, '--amount-max');
      if (minorOf(min, currency) > minorOf(max, currency)) throw new CliUsageError('--amount-min is greater than --amount-max');
    }
    const description = stringOpt(ctx, 'description');
    if (description !== undefined) body.description = description;
    const maxUses = intArg(stringOpt(ctx, 'max-uses'), '--max-uses', 1, MAX_USES);
    if (maxUses !== undefined) body.max_uses = maxUses;
    const expiresAt = stringOpt(ctx, 'expires-at');
    if (expiresAt !== undefined) body.expires_at = expiresAtArg(expiresAt);
    const channels = stringOpt(ctx, 'channels');
    if (channels !== undefined) body.channels = channelsArg(channels);
    const checkoutExpiresIn = stringOpt(ctx, 'checkout-expires-in');
    if (checkoutExpiresIn !== undefined) body.checkout_expires_in = expiresInArg(checkoutExpiresIn, '--checkout-expires-in');
    const successUrl = stringOpt(ctx, 'success-url');
    if (successUrl !== undefined) body.success_url = payerUrlArg(successUrl, '--success-url');
    const cancelUrl = stringOpt(ctx, 'cancel-url');
    if (cancelUrl !== undefined) body.cancel_url = payerUrlArg(cancelUrl, '--cancel-url');
    const key = stringOpt(ctx, 'idempotency-key');
    ctx.out.progress('creating the payment link…');
    const link = await ctx.client().paymentLinks.create(body, key === undefined ? {} : { idempotencyKey: key });
    ctx.out.result(link, () => `Created ${paymentLinkText(ctx.out, link)}\n\nShare: ${link.url}`);
  },
};

const get: Command = {
  name: 'payment-links get',
  synopsis: 'PLINK_ID',
  summary: 'show one payment link: its checkouts, what they collected, the uses left, its url',
  options: {},
  args: { min: 1, max: 1 },
  async run(ctx) {
    const link = await ctx.client().paymentLinks.retrieve(idArg(ctx, 0, 'plink', 'a payment link'));
    ctx.out.result(link, () => paymentLinkText(ctx.out, link));
  },
};

const list: Command = {
  name: 'payment-links list',
  synopsis: '[--limit N] [--starting-after PLINK_ID]',
  summary: 'one page of payment links, newest first (next_cursor → --starting-after)',
  options: { limit: { type: 'string' }, 'starting-after': { type: 'string' } },
  args: { min: 0, max: 0 },
  async run(ctx) {
    const query: ListPaymentLinksQuery = {};
    const limit = intArg(stringOpt(ctx, 'limit'), '--limit', 1, 100);
    if (limit !== undefined) query.limit = limit;
    const after = stringOpt(ctx, 'starting-after');
    if (after !== undefined) {
      if (!after.startsWith('plink_')) throw new CliUsageError('--starting-after takes a payment link id (plink_…)');
      query.starting_after = after;
    }
    const page = await ctx.client().paymentLinks.list(query);
    ctx.out.result(page, () => {
      return `${paymentLinkRows(ctx.out, page.data)}${nextPageHint(ctx.out, page)}`;
    });
  },
};

const deactivate: Command = {
  name: 'payment-links deactivate',
  synopsis: 'PLINK_ID',
  summary: 'stop a payment link taking visits (final; checkouts it made stay payable)',
  options: {},
  args: { min: 1, max: 1 },
  async run(ctx) {
    const link = await ctx.client().paymentLinks.deactivate(idArg(ctx, 0, 'plink', 'a payment link'));
    ctx.out.result(link, () => `Deactivated ${paymentLinkText(ctx.out, link)}`);
  },
};

export const PAYMENT_LINK_COMMANDS: readonly Command[] = [create, get, list, deactivate];
