/** The public entry of the merchants module: what other modules may use. */
export { environmentOfKey, hashApiKey } from './api-key.ts';
export { principalOfKey } from './authenticator.ts';
export { findKeyByHash, findMerchant } from './merchant-repo.ts';
export { findMerchantSettings, instructionTtlMs, parseMerchantSettings } from './merchant-settings.ts';
