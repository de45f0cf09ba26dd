/** How a payer pays: a bank transfer to a virtual account, an e-wallet, or cash at a counter. */
export type Channel = 'bank' | 'ewallet' | 'counter';
export const CHANNELS: readonly Channel[] = ['bank', 'ewallet', 'counter'];
/** What a create may ask for: a channel, or `auto` to let routing choose. */
export type ChannelRequest = Channel | 'auto';
