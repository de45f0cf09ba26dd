import type { MerchantSettings } from './merchant-settings.ts';

/** Every row and every query belongs to one merchant in one environment; the key decides which. */
export type Environment = 'sandbox' | 'production';

/** Who is calling: decided by the API key, scoping every query. */
export interface Principal {
  merchantId: string;
  merchantName: string;
  environment: Environment;
  apiVersion: string;
  keyId: string;
  /**
   * The merchant's settings as read with the key (cached with it by the authenticator, so a
   * settings change takes effect within AUTH_CACHE_TTL_MS, like a revocation). Absent when the
   * caller did not come through the authenticator: read them then.
   */
  settings?: MerchantSettings;
}
