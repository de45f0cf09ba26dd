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
import { type ActingAs, recordAudit } from '../audit/index.ts';

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

/** Who manages keys, for the audit log: a dashboard session's principal, or the operator (the CLI). */
export type KeyManager = ActingAs;

/** The operator on the host (the CLI, the admin socket, the first start). */
export const OPERATOR: KeyManager = { actor: { kind: 'operator', name: 'cli' } };

const inScope = (key: ApiKeyRecord, scope: KeyScope | undefined) =>
  scope === undefined || (key.merchantId === scope.merchantId && key.environment === scope.environment);

export function createMerchantService(deps: MerchantServiceDeps) {
  async function issueKey(merchantId: string, environment: Environment, q: Queryable): Promise<IssuedKey> {
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

  /** One audit row about a key, named by its id and display prefix (never the secret). */
  async function audited(
    tx: Queryable,
    by: KeyManager,
    key: ApiKeyRecord,
    action: 'api_key.created' | 'api_key.rolled' | 'api_key.revoked',
    changes: Record<string, unknown>,
  ): Promise<void> {
    await recordAudit(
      tx,
      { merchantId: key.merchantId, environment: key.environment, actor: by.actor, origin: by.origin },
      {
        action,
        objectType: 'api_key',
        objectId: key.id,
        changes: { prefix: key.displayPrefix, ...changes },
        at: deps.clock.now(),
      },
    );
  }

  return {
    /** A merchant with one sandbox and one production key. */
    async createMerchant(
      name: string,
      by: KeyManager,
    ): Promise<{ merchant: Merchant; sandbox: IssuedKey; production: IssuedKey }> {
      const now = deps.clock.now();
      const merchant: Merchant = { id: newId('merchant', now.getTime()), name, apiVersion: CURRENT_API_VERSION, createdAt: now };
      return deps.store.transaction(async (tx) => {
        await insertMerchant(tx, merchant);
        const sandbox = await issueKey(merchant.id, 'sandbox', tx);
        await audited(tx, by, sandbox.key, 'api_key.created', {});
        const production = await issueKey(merchant.id, 'production', tx);
        await audited(tx, by, production.key, 'api_key.created', {});
        return { merchant, sandbox, production };
      });
    },

    async createKey(merchantId: string, environment: Environment, by: KeyManager): Promise<IssuedKey | undefined> {
      if ((await findMerchant(deps.store, merchantId)) === undefined) return undefined;
      return deps.store.transaction(async (tx) => {
        const issued = await issueKey(merchantId, environment, tx);
        await audited(tx, by, issued.key, 'api_key.created', {});
        return issued;
      });
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
    async revokeKey(keyId: string, by: KeyManager, scope?: KeyScope): Promise<'revoked' | 'not_found' | 'already_revoked'> {
      const key = await findApiKey(deps.store, keyId);
      if (key === undefined || !inScope(key, scope)) return 'not_found';
      return deps.store.transaction(async (tx) => {
        if (!(await revokeApiKey(tx, keyId, deps.clock.now()))) return 'already_revoked' as const;
        await audited(tx, by, key, 'api_key.revoked', {});
        return 'revoked' as const;
      });
    },

    /**
     * Rolls a key: a new key for the same merchant and environment now, the old one keeps working
     * for `overlapMs` so that deployments can switch without downtime.
     */
    async rollKey(
      keyId: string,
      overlapMs: number,
      by: KeyManager,
      scope?: KeyScope,
    ): Promise<{ issued: IssuedKey; oldExpiresAt: Date } | undefined> {
      const old = await findApiKey(deps.store, keyId);
      if (old === undefined || old.revokedAt !== null || !inScope(old, scope)) return undefined;
      const oldExpiresAt = new Date(deps.clock.now().getTime() + overlapMs);
      return deps.store.transaction(async (tx) => {
        const issued = await issueKey(old.merchantId, old.environment, tx);
        await expireApiKey(tx, keyId, oldExpiresAt);
        await audited(tx, by, old, 'api_key.rolled', {
          new_key_id: issued.key.id,
          new_key_prefix: issued.key.displayPrefix,
          old_expires_at: oldExpiresAt.toISOString(),
        });
        return { issued, oldExpiresAt };
      });
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
