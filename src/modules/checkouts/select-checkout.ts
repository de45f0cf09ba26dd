import { timingSafeEqual } from 'node:crypto';
import type { Channel, KeyedResult, MerchantSettings } from '../../kernel/index.ts';
import { findMerchantSettings } from '../merchants/index.ts';
import { newId } from '../../lib/ids.ts';
import { randomToken } from '../../lib/random.ts';
import { type CancelPaymentDeps, type CreatePaymentDeps, createPayment, type paymentView } from '../payments/index.ts';
import { checkoutPaymentIds, findCheckoutForPayer, finishSelect, releaseSelectLease, takeSelectLease } from './checkout-repo.ts';
import type { Checkout } from './checkout-types.ts';
import { checkoutView } from './checkout-view.ts';
import { clientSecretHash } from './create-checkout.ts';
import { cancelCheckoutPayment, checkoutPrincipal } from './checkout-payments.ts';

export interface SelectDeps {
  createPayment: CreatePaymentDeps;
  cancelPayment: CancelPaymentDeps;
  /** How long one selection owns the checkout (it must outlast a cancel and a create). */
  selectLeaseMs: number;
}

/**
 * Who may select: the merchant's own UI with the checkout's client secret (the API), or the hosted
 * page, where the unguessable id is the capability and the version the page was rendered from is a
 * condition (a stale form — a second tab, a double click — selects nothing).
 */
export type SelectAuthority = { kind: 'client_secret'; secret: string } | { kind: 'page'; renderedVersion: number };

export interface SelectInput {
  authority: SelectAuthority;
  channel: Channel;
  instrument: string | null;
}

type Failure = Extract<KeyedResult, { kind: 'failure' }>;
const fail = (code: Failure['code'], message: string, details: Failure['details'] = [], retryAfterSeconds?: number): Failure => ({
  kind: 'failure',
  code,
  message,
  details,
  ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
});
const notOpen = (c: Checkout) =>
  fail('checkout_not_open', `The checkout is ${c.status === 'open' ? 'past its expiry' : c.status}.`, [{ status: c.status }]);

/** The secret authorises the payer; compared on its hash, in constant time. */
function secretMatches(checkout: Checkout, secret: string): boolean {
  const given = Buffer.from(clientSecretHash(secret), 'hex');
  const stored = Buffer.from(checkout.clientSecretHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * POST /checkout/{id}/select (docs/checkout.md, section 3): the payer's choice becomes a payment
 * made by createPayment, after the previous one is canceled. One selection at a time (the lease);
 * the payment id is recorded before the payment exists, so nothing a crash leaves is lost.
 */
export async function selectCheckoutMethod(deps: SelectDeps, checkoutId: string, input: SelectInput): Promise<KeyedResult> {
  const clock = deps.createPayment.clock;
  const store = deps.createPayment.store;
  const found = await findCheckoutForPayer(store, checkoutId);
  if (found === undefined) return fail('resource_not_found', 'No such checkout.');
  if (input.authority.kind === 'client_secret' && !secretMatches(found, input.authority.secret))
    return fail('client_secret_invalid', 'The client_secret does not match this checkout.');
  if (found.status !== 'open' || found.expiresAt <= clock.now()) return notOpen(found);
  if (!found.channels.includes(input.channel)) {
    return fail('channel_not_offered', `This checkout does not offer ${input.channel}.`, [
      { field: 'channel', issue: 'channel_not_offered', message: `one of: ${found.channels.join(', ')}` },
    ]);
  }
  const merchantPrincipal = await checkoutPrincipal(store, found);
  if (merchantPrincipal === undefined) return fail('resource_not_found', 'No such checkout.');
  const routed = await routingFor(deps, found, input);
  if (routed.kind === 'failure') return routed;
  const principal = { ...merchantPrincipal, settings: routed.settings };

  const now = clock.now();
  const token = randomToken(12);
  const paymentId = newId('payment', now.getTime());
  const lease = await store.transaction((tx) =>
    takeSelectLease(tx, {
      checkoutId,
      token,
      leasedUntil: new Date(now.getTime() + deps.selectLeaseMs),
      paymentId,
      now,
      expectedVersion: input.authority.kind === 'page' ? input.authority.renderedVersion : undefined,
    }),
  );
  if (lease.kind === 'not_found') return fail('resource_not_found', 'No such checkout.');
  if (lease.kind === 'not_open') return notOpen(lease.checkout);
  if (lease.kind === 'changed')
    return fail('checkout_changed', 'The checkout changed since the page was shown.', [{ version: lease.version }]);
  if (lease.kind === 'busy')
    return fail('checkout_busy', 'Another selection on this checkout is running.', [], lease.retryAfterSeconds);

  const previous =
    lease.previousPaymentId === null
      ? undefined
      : await cancelCheckoutPayment(deps.cancelPayment, principal, found, lease.previousPaymentId);
  if (previous !== undefined && previous.kind === 'failure') {
    await releaseSelectLease(store, checkoutId, token);
    return previous;
  }

  const created = await createPayment(
    deps.createPayment,
    principal,
    {
      amountMinor: found.amountMinor,
      currency: found.currency,
      referenceNo: found.referenceNo,
      description: found.description,
      channel: input.channel,
      callbackUrl: found.callbackUrl,
      metadata: found.metadata,
      email: found.email,
    },
    `checkout:${checkoutId}:${paymentId}`,
    { paymentId },
  );
  if (created.kind === 'failure') {
    await releaseSelectLease(store, checkoutId, token);
    return created;
  }
  const finished = await finishSelect(store, { checkoutId, token, paymentId, now: clock.now() });
  if (finished === undefined) {
    // The checkout closed meanwhile (expired, or a payment of it succeeded): this payment must not
    // stay open for the payer.
    await cancelCheckoutPayment(deps.cancelPayment, principal, found, paymentId);
    const current = await findCheckoutForPayer(store, checkoutId);
    return notOpen(current ?? found);
  }
  const payments = await checkoutPaymentIds(store, checkoutId);
  const payment = JSON.parse(created.body) as ReturnType<typeof paymentView>;
  return {
    kind: 'response',
    status: 200,
    body: JSON.stringify(checkoutView(finished, payments, deps.createPayment.publicBaseUrl, payment)),
    replayed: false,
  };
}

/**
 * The merchant's routing settings for this selection: a chosen instrument (a bank, a wallet, an
 * outlet) keeps only the connectors of the channel that offer it, and asks each of them for it.
 */
async function routingFor(
  deps: SelectDeps,
  checkout: Checkout,
  input: SelectInput,
): Promise<{ kind: 'ok'; settings: MerchantSettings } | Failure> {
  const settings = await findMerchantSettings(deps.createPayment.store, checkout.merchantId);
  const instrument = input.instrument;
  if (instrument === null) return { kind: 'ok', settings };
  const inChannel = deps.createPayment.connectors.enabledFor(checkout.environment).filter((c) => c.channel === input.channel);
  const offering = inChannel.filter((c) => c.instruments.some((i) => i.code === instrument));
  if (offering.length === 0) {
    return fail('channel_not_offered', `No ${input.channel} connector offers ${instrument}.`, [
      { field: 'instrument', issue: 'instrument_not_offered', message: `not offered for ${input.channel}` },
    ]);
  }
  const lacking = inChannel.filter((c) => !offering.includes(c)).map((c) => c.connector);
  return {
    kind: 'ok',
    settings: {
      ...settings,
      routing: {
        ...settings.routing,
        excludedConnectors: [...(settings.routing.excludedConnectors ?? []), ...lacking],
        instruments: { ...settings.routing.instruments, ...Object.fromEntries(offering.map((c) => [c.connector, instrument])) },
      },
    },
  };
}
