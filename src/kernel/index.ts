/**
 * The domain kernel: the vocabulary every module shares (tenant and principal, environment,
 * channel, merchant settings, the dependencies of a lifecycle change, a keyed operation's result).
 * It imports no module; every module may import it. Money and the clock are leaf helpers in
 * `lib/` (`lib/money.ts`, `lib/clock.ts`).
 */
export { CHANNELS, type Channel, type ChannelRequest } from './channel.ts';
export type { KeyedResult } from './keyed-result.ts';
export type { LatePaymentPolicy, MerchantSettings, RoutingPreferences } from './merchant-settings.ts';
export type { LifecycleDeps } from './module-deps.ts';
export { type Actor, type Environment, keyIdOf, type Principal, type RequestOrigin, type Role, ROLES } from './tenant.ts';
