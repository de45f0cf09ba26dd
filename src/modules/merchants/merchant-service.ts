import type { Queryable, Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.ts';
import {
  type ApiKeyRecord,
  expireApiKey,
  findApiKey,
  findMerchant,
  insertApiKey,
  insertMerchant,
  listApiKeys,
  type Merchant,
  revokeApiKey,
} from './merchant-repo.ts';
import type { Environment } from '../../kernel/index.ts';

/** The API version current at this build; new merchants are pinned to it. */
export const CURRENT_API_VERSION = '2026-11-01';
export const KNOWN_API_VERSIONS: readonly string[] = [CURRENT_API_VERSION];

export interface MerchantServiceDeps {
  store: Store;
  clock: Clock;
  /** Deployment secret keying the API-key hash. */
  secret: string;
}

export interface IssuedKey {
  key: ApiKeyRecord;
  /** The secret itself: returned once, never stored. */
  secret: string;
}

/** Whose keys a caller may manage: the dashboard passes its session's merchant and environment. */
export interface KeyScope {
  merchantId: string;
  environment: Environment;
}

const inScope = (key: ApiKeyRecord, scope: KeyScope | undefined) =>
  scope === undefined || (key.merchantId === scope.merchantId && key.environment === scope.environment);

export function createMerchantService(deps: MerchantServiceDeps) {
  async function issueKey(merchantId: string, environment: Environment, q: Queryable = deps.store): Promise<IssuedKey> {
    const secret = generateApiKey(environment);
    const now = deps.clock.now();
    const key: ApiKeyRecord = {
      id: newId('apiKey', now.getTime()),
      merchantId,
      environment,
      displayPrefix: displayPrefix(secret),
      createdAt: now,
      expiresAt: null,
      revokedAt: null,
    };
    await insertApiKey(q, { ...key, secretHash: hashApiKey(deps.secret, secret) });
    return { key, secret };
  }

  return {
    /** A merchant with one sandbox and one production key. */
    async createMerchant(name: string): Promise<{ merchant: Merchant; sandbox: IssuedKey; production: IssuedKey }> {
      const now = deps.clock.now();
      const merchant: Merchant = { id: newId('merchant', now.getTime()), name, apiVersion: CURRENT_API_VERSION, createdAt: now };
      return deps.store.transaction(async (tx) => {
        await insertMerchant(tx, merchant);
        const sandbox = await issueKey(merchant.id, 'sandbox', tx);
        const production = await issueKey(merchant.id, 'production', tx);
        return { merchant, sandbox, production };
      });
    },

    async createKey(merchantId: string, environment: Environment): Promise<IssuedKey | undefined> {
      if ((await findMerchant(deps.store, merchantId)) === undefined) return undefined;
      return issueKey(merchantId, environment);
    },

    listKeys: (merchantId: string) => listApiKeys(deps.store, merchantId),

    /** The keys of one merchant in one environment (the dashboard: a key manages its own environment only). */
    async listKeysOf(scope: KeyScope): Promise<ApiKeyRecord[]> {
      return (await listApiKeys(deps.store, scope.merchantId)).filter((k) => k.environment === scope.environment);
    },

    /**
     * Revokes a key. With a scope (the dashboard), a key of another merchant or environment is
     * `not_found`, exactly like an unknown one.
     */
    async revokeKey(keyId: string, scope?: KeyScope): Promise<'revoked' | 'not_found' | 'already_revoked'> {
      const key = await findApiKey(deps.store, keyId);
      if (key === undefined || !inScope(key, scope)) return 'not_found';
      return (await revokeApiKey(deps.store, keyId, deps.clock.now())) ? 'revoked' : 'already_revoked';
    },

    /**
     * Rolls a key: a new key for the same merchant and environment now, the old one keeps working
     * for `overlapMs` so that deployments can switch without downtime.
     */
    async rollKey(
      keyId: string,
      overlapMs: number,
      scope?: KeyScope,
    ): Promise<{ issued: IssuedKey; oldExpiresAt: Date } | undefined> {
      const old = await findApiKey(deps.store, keyId);
      if (old === undefined || old.revokedAt !== null || !inScope(old, scope)) return undefined;
      const oldExpiresAt = new Date(deps.clock.now().getTime() + overlapMs);
      return deps.store.transaction(async (tx) => {
        const issued = await issueKey(old.merchantId, old.environment, tx);
        await expireApiKey(tx, keyId, oldExpiresAt);
        return { issued, oldExpiresAt };
      });
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
