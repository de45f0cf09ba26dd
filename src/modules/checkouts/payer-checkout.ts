import type { Instrument } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Store } from '../../db/store.ts';
import type { Channel } from '../../kernel/index.ts';
import { findMerchant, findMerchantSettings } from '../merchants/index.ts';
import { findPaymentForPayer, type PayerPayment, payerState } from '../payments/index.ts';
import { routePayment } from '../routing/index.ts';
import { findCheckoutForPayer, selectionInProgress } from './checkout-repo.ts';
import type { Checkout } from './checkout-types.ts';

/**
 * What the hosted checkout page shows (docs/checkout.md, section 7), decided here from the
 * checkout, its current payment and the time, so the page renderer only draws it.
 */
export type CheckoutPageState = 'completed' | 'expired' | 'selecting' | 'paying' | 'choosing';

/** The instruments the payer can pick on one channel, as routing would serve them. */
export interface ChannelMethods {
  channel: Channel;
  instruments: Instrument[];
}

export interface PayerCheckout {
  checkout: Checkout;
  merchantName: string;
  state: CheckoutPageState;
  /** The payment the page is about: the completed one, or the current one (undefined: none yet). */
  payment: PayerPayment | undefined;
  /** Only for `choosing`: every method, grouped by channel in the checkout's order. */
  methods: ChannelMethods[];
}

export interface PayerCheckoutDeps {
  store: Store;
  connectors: ConnectorRegistry;
}

export async function payerCheckout(
  deps: PayerCheckoutDeps,
  checkoutId: string,
  o: { now: Date; chooseAgain: boolean },
): Promise<PayerCheckout | undefined> {
  const checkout = await findCheckoutForPayer(deps.store, checkoutId);
  if (checkout === undefined) return undefined;
  const merchant = await findMerchant(deps.store, checkout.merchantId);
  if (merchant === undefined) return undefined;
  const paymentId = checkout.completedPaymentId ?? checkout.currentPaymentId;
  const payment = paymentId === null ? undefined : await findPaymentForPayer(deps.store, paymentId);
  const base = { checkout, merchantName: merchant.name, payment, methods: [] };
  if (checkout.status === 'completed') return { ...base, state: 'completed' };
  if (checkout.status === 'expired' || checkout.expiresAt <= o.now) return { ...base, state: 'expired' };
  if (await selectionInProgress(deps.store, checkout.id, o.now)) return { ...base, state: 'selecting' };
  const live = payment !== undefined && ['payable', 'preparing'].includes(payerState(payment, o.now));
  if (live && !o.chooseAgain) return { ...base, state: 'paying' };
  return { ...base, state: 'choosing', methods: await checkoutMethods(deps, checkout) };
}

/**
 * Each offered channel's instruments, from the connectors routing would use for this checkout's
 * amount and currency under the merchant's routing settings (a bank no connector can serve now is
 * not shown). Instruments two connectors share are shown once: select routes to whichever serves it.
 */
export async function checkoutMethods(deps: PayerCheckoutDeps, checkout: Checkout): Promise<ChannelMethods[]> {
  const settings = await findMerchantSettings(deps.store, checkout.merchantId);
  const enabled = deps.connectors.enabledFor(checkout.environment);
  return checkout.channels.flatMap((channel) => {
    const route = routePayment(
      { channel, currency: checkout.currency, amountMinor: checkout.amountMinor },
      enabled,
      settings.routing,
    );
    if (!route.ok) return [];
    const byCode = new Map<string, Instrument>();
    for (const name of new Set(route.candidates.map((c) => c.connector))) {
      for (const instrument of enabled.find((c) => c.connector === name)?.instruments ?? []) {
        if (!byCode.has(instrument.code)) byCode.set(instrument.code, instrument);
      }
    }
    return byCode.size === 0 ? [] : [{ channel, instruments: [...byCode.values()] }];
  });
}
