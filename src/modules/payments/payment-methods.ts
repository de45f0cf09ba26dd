import type { AmountBounds, ConnectorCapabilities } from '../../connectors/core/connector.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { toMajorNumber } from '../../lib/money.ts';
import { routePayment } from '../routing/index.ts';

/**
 * GET /payment_method without the HTTP: what a merchant can offer in one environment, read from
 * the enabled connectors' capabilities.
 *
 * With an amount (and its currency) the answer is exactly what routing would try for
 * `channel: auto`, in routing order: the same function decides, so this list and the create call
 * can never disagree about what is eligible. Without an amount there is nothing to route; the
 * list is then the capabilities themselves, narrowed to one currency when one is given.
 */
export interface PaymentMethodQuery {
  currency?: CurrencyCode;
  /** Only with `currency`. */
  amountMinor?: bigint;
}

export interface OfferedMethod {
  capabilities: ConnectorCapabilities;
  /** The currencies shown for this connector with their bounds (one when the query names a currency). */
  currencies: { currency: CurrencyCode; bounds: AmountBounds }[];
}

export function offeredPaymentMethods(enabled: readonly ConnectorCapabilities[], query: PaymentMethodQuery): OfferedMethod[] {
  const { currency, amountMinor } = query;
  if (currency === undefined) {
    return enabled.map((capabilities) => ({
      capabilities,
      currencies: Object.entries(capabilities.currencies).map(([code, bounds]) => ({ currency: code as CurrencyCode, bounds })),
    }));
  }
  const withCurrency = (capabilities: ConnectorCapabilities): OfferedMethod[] => {
    const bounds = capabilities.currencies[currency];
    return bounds === undefined ? [] : [{ capabilities, currencies: [{ currency, bounds }] }];
  };
  if (amountMinor === undefined) return enabled.flatMap(withCurrency);

  const route = routePayment({ channel: 'auto', currency, amountMinor }, enabled);
  if (!route.ok) return [];
  // Routing may name a connector more than once (one candidate per instrument); list it once.
  const names = [...new Set(route.candidates.map((c) => c.connector))];
  return names.flatMap((name) => {
    const capabilities = enabled.find((c) => c.connector === name);
    return capabilities === undefined ? [] : withCurrency(capabilities);
  });
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A payment method as the API shows it; amounts become exact JSON numbers in major units here. */
export function paymentMethodView(m: OfferedMethod) {
  const c = m.capabilities;
  return {
    object: 'payment_method' as const,
    channel: c.channel,
    connector: c.connector,
    connector_name: c.displayName,
    instruments: c.instruments.map((i) => ({ code: i.code, name: i.name })),
    currencies: m.currencies.map(({ currency, bounds }) => ({
      currency,
      min_amount: toMajorNumber(bounds.minMinor, currency),
      max_amount: toMajorNumber(bounds.maxMinor, currency),
    })),
    instruction_expiry: {
      default_seconds: seconds(c.instructionTtl.defaultMs),
      min_seconds: seconds(c.instructionTtl.minMs),
      max_seconds: seconds(c.instructionTtl.maxMs),
    },
    supports: { cancel: c.supports.cancel, refund: c.supports.refund, partial_refund: c.supports.partialRefund },
  };
}

export type PaymentMethodView = ReturnType<typeof paymentMethodView>;
