import type { Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { environmentOfKey, hashApiKey } from './api-key.ts';
import { findKeyByHash, type KeyPrincipalRow } from './merchant-repo.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * Turns a presented API key into a principal, with its merchant's settings. Lookups are cached per
 * key hash for AUTH_CACHE_TTL_MS (default 5 s) to keep the hot path free of them; a revocation or
 * a settings change therefore takes effect within that time in every process. The cache is bounded.
 */
/** Who a key acts for: the principal of a key row (an API request, or a dashboard session's key). */
export function principalOfKey(
  row: Pick<KeyPrincipalRow, 'keyId' | 'keyPrefix' | 'merchantId' | 'merchantName' | 'environment' | 'apiVersion' | 'settings'>,
): Principal {
  return {
    merchantId: row.merchantId,
    merchantName: row.merchantName,
    environment: row.environment,
    apiVersion: row.apiVersion,
    actor: { kind: 'api_key', keyId: row.keyId, keyPrefix: row.keyPrefix },
    settings: row.settings,
  };
}

export interface Authenticator {
  authenticate(presentedKey: string): Promise<Principal | undefined>;
}

const MAX_CACHE_ENTRIES = 10_000;

export function createAuthenticator(deps: { store: Store; clock: Clock; secret: string; cacheTtlMs: number }): Authenticator {
  const cache = new Map<
    string,
    { principal: Principal | undefined; expiresAt: Date | null; revokedAt: Date | null; cachedAtMs: number }
  >();
  return {
    async authenticate(presentedKey) {
      const environment = environmentOfKey(presentedKey);
      if (environment === undefined) return undefined;
      const hash = hashApiKey(deps.secret, presentedKey);
      const now = deps.clock.now();
      let entry = cache.get(hash);
      if (entry === undefined || now.getTime() - entry.cachedAtMs >= deps.cacheTtlMs) {
        const row = await findKeyByHash(deps.store, hash);
        entry = {
          principal: row === undefined || row.environment !== environment ? undefined : principalOfKey(row),
          expiresAt: row?.expiresAt ?? null,
          revokedAt: row?.revokedAt ?? null,
          cachedAtMs: now.getTime(),
        };
        if (deps.cacheTtlMs > 0) {
          if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
          cache.set(hash, entry);
        }
      }
      if (entry.revokedAt !== null && entry.revokedAt <= now) return undefined;
      if (entry.expiresAt !== null && entry.expiresAt <= now) return undefined;
      return entry.principal;
    },
  };
}
