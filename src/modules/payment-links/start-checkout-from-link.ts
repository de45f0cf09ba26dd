import type { KeyedResult, Principal } from '../../kernel/index.ts';
import type { FieldIssue } from '../../lib/error-catalogue.ts';
import { newId } from '../../lib/ids.ts';
import { toMajorNumber } from '../../lib/money.ts';
import { createCheckout } from '../checkouts/index.ts';
import { findMerchant } from '../merchants/index.ts';
import { amountInput } from '../payments/index.ts';
import type { PaymentLinkDeps } from './create-payment-link.ts';
import { claimUse, findPaymentLinkForPayer, releaseUse, summariesOfPaymentLinks } from './payment-link-repo.ts';
import { type PaymentLink, paymentLinkStatus } from './payment-link-types.ts';

type Failure = Extract<KeyedResult, { kind: 'failure' }>;

/** A visit's answer: the new checkout (201, its view with `client_secret`) and its id, or a refusal. */
export type LinkVisitResult =
  | { kind: 'response'; status: number; body: string; replayed: false; checkoutId: string }
  /** The same visit posted again (the hosted page's form): its checkout, nothing new. */
  | { kind: 'revisit'; checkoutId: string }
  | Failure;

/** What a visit may say: the amount the payer entered, as exact decimal text in major units. */
export interface LinkVisitInput {
  /** Required for a payer-entered link, refused for a fixed one (`"150000"`, `"10.5"`). */
  amount?: string | undefined;
  /** The hosted link page's form names its visit (16–64 characters): posting it again makes no second checkout. */
  visitToken?: string | undefined;
}

const invalid = (issue: FieldIssue): Failure => ({
  kind: 'failure',
  code: 'invalid_request',
  message: 'The request has invalid fields.',
  details: [issue],
});
const inactive = (): Failure => ({
  kind: 'failure',
  code: 'payment_link_inactive',
  message: 'This payment link has been deactivated.',
  details: [],
});
const expired = (link: PaymentLink): Failure => ({
  kind: 'failure',
  code: 'payment_link_expired',
  message: 'This payment link has expired.',
  details: [{ expires_at: link.expiresAt?.toISOString() ?? null }],
});
const notFound = (): Failure => ({ kind: 'failure', code: 'resource_not_found', message: 'No such payment link.', details: [] });

/** The amount of this visit in minor units, or the field problem (nothing is written before this). */
export function visitAmount(link: PaymentLink, input: LinkVisitInput): { kind: 'ok'; amountMinor: bigint } | Failure {
  if (link.amount.kind === 'fixed') {
    if (input.amount !== undefined) {
      return invalid({ field: 'amount', issue: 'amount_not_allowed', message: 'this link has a fixed amount; send no amount' });
    }
    return { kind: 'ok', amountMinor: link.amount.amountMinor };
  }
  if (input.amount === undefined) return invalid({ field: 'amount', issue: 'required', message: 'enter the amount to pay' });
  const parsed = amountInput(input.amount, link.currency, 'amount');
  if (!parsed.ok) return invalid(parsed.issue);
  const { minMinor, maxMinor } = link.amount;
  if (parsed.value < minMinor || parsed.value > maxMinor) {
    const min = toMajorNumber(minMinor, link.currency);
    const max = toMajorNumber(maxMinor, link.currency);
    const issue = {
      field: 'amount',
      issue: 'amount_outside_bounds',
      message: `must be between ${min} and ${max} ${link.currency}`,
    };
    return { ...invalid(issue), details: [{ ...issue, min, max }] };
  }
  return { kind: 'ok', amountMinor: parsed.value };
}

/**
 * A visit to a payment link (docs/checkout.md section 8): the payer pressed Pay. Checks without
 * writing (state, expiry, amount), claims a use under the link's row lock with a freshly chosen
 * checkout id, then creates that checkout through createCheckout. The claim is written first so
 * that the count of uses and the claim are one transaction; a refused create gives the claim back.
 * Public by design: the link id is the capability. Called by `POST /payment_link/{id}/checkout`
 * and by the hosted link page.
 */
export async function startCheckoutFromLink(
  deps: PaymentLinkDeps,
  linkId: string,
  input: LinkVisitInput,
): Promise<LinkVisitResult> {
  const found = await findPaymentLinkForPayer(deps.store, linkId);
  if (found === undefined) return notFound();
  const status = paymentLinkStatus(found, deps.clock.now());
  if (status === 'inactive') return inactive();
  if (status === 'expired') return expired(found);
  const amount = visitAmount(found, input);
  if (amount.kind === 'failure') return amount;
  const merchant = await findMerchant(deps.store, found.merchantId);
  if (merchant === undefined) return notFound();

  const now = deps.clock.now();
  const checkoutId = newId('checkout', now.getTime());
  const claim = await deps.store.transaction((tx) =>
    claimUse(tx, {
      linkId,
      checkoutId,
      amountMinor: amount.amountMinor,
      // The checkout expires this long after it is written; until it is, the claim holds the use.
      reservedUntil: new Date(now.getTime() + found.checkoutExpiresInSeconds * 1000),
      now,
      visitToken: input.visitToken ?? null,
    }),
  );
  switch (claim.kind) {
    case 'not_found':
      return notFound();
    case 'inactive':
      return inactive();
    case 'expired':
      return expired(claim.link);
    case 'used_up':
      return {
        kind: 'failure',
        code: 'payment_link_used_up',
        message: 'This payment link has been used as many times as it allows.',
        details: [{ max_uses: claim.link.maxUses, in_use: claim.held }],
      };
    case 'revisit':
      return claim;
    case 'claimed':
      break;
  }
  const link = claim.link;
  const principal: Principal = {
    merchantId: link.merchantId,
    merchantName: merchant.name,
    environment: link.environment,
    apiVersion: link.apiVersion,
    actor: { kind: 'system', name: `payment_link:${link.id}` },
  };
  const result = await createCheckout(
    deps,
    principal,
    {
      amountMinor: amount.amountMinor,
      currency: link.currency,
      referenceNo: `${link.id}-${claim.seq}`,
      description: link.description,
      email: null,
      metadata: { payment_link_id: link.id },
      callbackUrl: null,
      channels: link.channels,
      successUrl: link.successUrl,
      cancelUrl: link.cancelUrl,
      expiresInSeconds: link.checkoutExpiresInSeconds,
    },
    undefined,
    { id: checkoutId },
  );
  if (result.kind === 'failure') {
    // Refused before anything was written (routing no longer serves the amount): the use is free again.
    await releaseUse(deps.store, link.id, checkoutId);
    return result;
  }
  return { kind: 'response', status: result.status, body: result.body, replayed: false, checkoutId };
}

/** Whether a visit would be taken now, for the hosted link page (a read; the visit decides again). */
export type LinkAvailability = 'available' | 'inactive' | 'expired' | 'used_up';

export async function paymentLinkForPayer(
  deps: Pick<PaymentLinkDeps, 'store' | 'clock'>,
  linkId: string,
): Promise<{ link: PaymentLink; availability: LinkAvailability } | undefined> {
  const link = await findPaymentLinkForPayer(deps.store, linkId);
  if (link === undefined) return undefined;
  const now = deps.clock.now();
  const status = paymentLinkStatus(link, now);
  if (status !== 'active') return { link, availability: status };
  if (link.maxUses === null) return { link, availability: 'available' };
  const summary = (await summariesOfPaymentLinks(deps.store, link.merchantId, link.environment, [link.id], now)).get(link.id);
  return { link, availability: (summary?.held ?? 0) >= link.maxUses ? 'used_up' : 'available' };
}
