/** The public entry of the merchants module: what other modules may use. */
export { findMerchant } from './merchant-repo.ts';
export { findMerchantSettings, instructionTtlMs } from './merchant-settings.ts';
