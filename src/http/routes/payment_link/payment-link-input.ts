import type { Channel, Environment } from '../../../kernel/index.ts';
import type { FieldIssue } from '../../../lib/error-catalogue.ts';
import { type CreatePaymentLinkInput, type LinkAmount, LINK_CHECKOUT_EXPIRES_IN } from '../../../modules/payment-links/index.ts';
import { amountInput, currencyInput } from '../../../modules/payments/money-input.ts';

/**
 * A payment link's create fields, checked once for both places a link is created: the API route
 * (`POST /payment_link/create`) and the dashboard's form. Both hand over each amount as exact
 * decimal text (a JSON number's source text, or the form field), so the same messages come back
 * for the same mistakes and money is never read through a float.
 */
export interface PaymentLinkFields {
  amount: string | undefined;
  amountMin: string | undefined;
  amountMax: string | undefined;
  currency: string;
  description: string | null | undefined;
  channels: Channel[] | null | undefined;
  successUrl: string | null | undefined;
  cancelUrl: string | null | undefined;
  maxUses: number | null | undefined;
  /** RFC 3339 text, as sent. */
  expiresAt: string | null | undefined;
  checkoutExpiresInSeconds: number | undefined;
}

type AmountField = 'amount' | 'amount_min' | 'amount_max';

/** The payer's browser goes there, not our server: an absolute http(s) URL (https in production). */
export function payerRedirectUrl(
  value: string | null | undefined,
  field: string,
  environment: Environment,
  issues: FieldIssue[],
) {
  if (value == null) return null;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const schemes = environment === 'production' ? ['https:'] : ['https:', 'http:'];
  if (url !== undefined && schemes.includes(url.protocol)) return url.toString();
  issues.push({ field, issue: 'invalid_url', message: `must be an absolute ${schemes.join(' or ').replace(/:/g, '')} URL` });
  return null;
}

/** The module's input, or every field problem found (named by the API's field names). */
export function paymentLinkInput(
  fields: PaymentLinkFields,
  environment: Environment,
  now: Date,
): { ok: true; input: CreatePaymentLinkInput } | { ok: false; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const currency = currencyInput(fields.currency, 'currency');
  if (!currency.ok) issues.push(currency.issue);
  const texts: Record<AmountField, string | undefined> = {
    amount: fields.amount,
    amount_min: fields.amountMin,
    amount_max: fields.amountMax,
  };
  // Exact money from each amount's text, against the currency's minor unit.
  const money = (field: AmountField): bigint | undefined => {
    const text = texts[field];
    if (text === undefined || !currency.ok) return undefined;
    const parsed = amountInput(text, currency.value, field);
    if (parsed.ok) return parsed.value;
    issues.push(parsed.issue);
    return undefined;
  };
  const fixed = money('amount');
  const min = money('amount_min');
  const max = money('amount_max');
  let amount: LinkAmount | undefined;
  const bounded = texts.amount_min !== undefined || texts.amount_max !== undefined;
  if (texts.amount !== undefined && bounded) {
    issues.push({
      field: 'amount',
      issue: 'exclusive_fields',
      message: 'send either amount (fixed) or amount_min and amount_max (the payer enters it), not both',
    });
  } else if (texts.amount === undefined && !bounded) {
    issues.push({ field: 'amount', issue: 'required', message: 'send amount, or amount_min and amount_max' });
  } else if (texts.amount !== undefined) {
    if (fixed !== undefined) amount = { kind: 'fixed', amountMinor: fixed };
  } else {
    for (const field of ['amount_min', 'amount_max'] as const) {
      if (texts[field] === undefined)
        issues.push({ field, issue: 'required', message: `${field} is required with the other bound` });
    }
    if (min !== undefined && max !== undefined) {
      if (min > max)
        issues.push({ field: 'amount_min', issue: 'bounds_inverted', message: 'must not be greater than amount_max' });
      else amount = { kind: 'payer_entered', minMinor: min, maxMinor: max };
    }
  }
  // PostgreSQL text cannot hold U+0000: a field problem, not a 500.
  if (fields.description?.includes('\u0000') === true) {
    issues.push({ field: 'description', issue: 'invalid_character', message: 'description must not contain U+0000' });
  }
  const successUrl = payerRedirectUrl(fields.successUrl, 'success_url', environment, issues);
  const cancelUrl = payerRedirectUrl(fields.cancelUrl, 'cancel_url', environment, issues);
  const expiresAt = fields.expiresAt == null ? null : new Date(fields.expiresAt);
  if (expiresAt !== null && !(expiresAt > now)) {
    issues.push({ field: 'expires_at', issue: 'not_in_future', message: 'must be in the future' });
  }
  if (issues.length > 0 || amount === undefined || !currency.ok) return { ok: false, issues };
  return {
    ok: true,
    input: {
      amount,
      currency: currency.value,
      description: fields.description ?? null,
      channels: fields.channels ?? null,
      successUrl,
      cancelUrl,
      maxUses: fields.maxUses ?? null,
      expiresAt,
      checkoutExpiresInSeconds: fields.checkoutExpiresInSeconds ?? LINK_CHECKOUT_EXPIRES_IN.defaultSeconds,
    },
  };
}
