import type { Channel } from './channel.ts';

// A merchant's settings as the domain uses them, parsed leniently from `merchants.settings` by the
// merchants module; in the kernel because the caller's Principal carries them.

/** The merchant's routing preferences (merchants.settings.routing), already validated. */
export interface RoutingPreferences {
  /** For `auto`: channels in the order to try; channels left out come after, in the default order. */
  channelOrder?: readonly Channel[];
  /** Within a channel: connectors in the order to try; others follow in registration order. */
  connectorOrder?: readonly string[];
  /** Never route to these. */
  excludedConnectors?: readonly string[];
  /** Instrument per connector (e.g. `{ "sandbox_bank": "BNI" }`); ignored if the connector lacks it. */
  instruments?: Readonly<Record<string, string>>;
}

export type LatePaymentPolicy = 'accept' | 'refund';

export interface MerchantSettings {
  /** What to do with money that arrives after the payment closed. Default `refund`. */
  latePaymentPolicy: LatePaymentPolicy;
  /** How long instructions stay payable, per channel; clamped to each connector's bounds. */
  instructionTtlMs: Partial<Record<Channel, number>>;
  routing: RoutingPreferences;
}
