import type { Queryable } from '../../db/store.ts';
import { parseMerchantSettings } from './merchant-settings.ts';
import type { Environment, MerchantSettings } from '../../kernel/index.ts';

export interface Merchant {
  id: string;
  name: string;
  apiVersion: string;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  displayPrefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

interface MerchantRow {
  id: string;
  name: string;
  api_version: string;
  created_at: Date;
  [key: string]: unknown;
}

interface KeyRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  display_prefix: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  [key: string]: unknown;
}

const merchantFromRow = (r: MerchantRow): Merchant => ({
  id: r.id,
  name: r.name,
  apiVersion: r.api_version,
  createdAt: r.created_at,
});
const keyFromRow = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment,
  displayPrefix: r.display_prefix,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

export async function insertMerchant(q: Queryable, m: Merchant): Promise<void> {
  await q.query('INSERT INTO merchants (id, name, api_version, created_at) VALUES ($1, $2, $3, $4)', [
    m.id,
    m.name,
    m.apiVersion,
    m.createdAt,
  ]);
}

export async function findMerchant(q: Queryable, id: string): Promise<Merchant | undefined> {
  const rows = await q.query<MerchantRow>('SELECT id, name, api_version, created_at FROM merchants WHERE id = $1', [id]);
  return rows[0] === undefined ? undefined : merchantFromRow(rows[0]);
}

export async function listMerchants(q: Queryable, limit: number): Promise<Merchant[]> {
  const rows = await q.query<MerchantRow>(
    'SELECT id, name, api_version, created_at FROM merchants ORDER BY created_at, id LIMIT $1',
    [limit],
  );
  return rows.map(merchantFromRow);
}

export async function countMerchants(q: Queryable): Promise<number> {
  const rows = await q.query<{ n: bigint }>('SELECT count(*) AS n FROM merchants');
  return Number(rows[0]?.n ?? 0n);
}

export async function insertApiKey(q: Queryable, k: ApiKeyRecord & { secretHash: string }): Promise<void> {
  await q.query(
    `INSERT INTO api_keys (id, merchant_id, environment, secret_hash, display_prefix, created_at, expires_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [k.id, k.merchantId, k.environment, k.secretHash, k.displayPrefix, k.createdAt, k.expiresAt, k.revokedAt],
  );
}

export async function listApiKeys(q: Queryable, merchantId: string): Promise<ApiKeyRecord[]> {
  const rows = await q.query<KeyRow>(
    `SELECT id, merchant_id, environment, display_prefix, created_at, expires_at, revoked_at
     FROM api_keys WHERE merchant_id = $1 ORDER BY created_at, id`,
    [merchantId],
  );
  return rows.map(keyFromRow);
}

export async function findApiKey(q: Queryable, id: string): Promise<ApiKeyRecord | undefined> {
  const rows = await q.query<KeyRow>(
    'SELECT id, merchant_id, environment, display_prefix, created_at, expires_at, revoked_at FROM api_keys WHERE id = $1',
    [id],
  );
  return rows[0] === undefined ? undefined : keyFromRow(rows[0]);
}

export async function revokeApiKey(q: Queryable, id: string, now: Date): Promise<boolean> {
  const rows = await q.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id', [id, now]);
  return rows.length === 1;
}

/** Sets (or shortens) a key's expiry: rolling a key keeps the old one working until then. */
export async function expireApiKey(q: Queryable, id: string, expiresAt: Date): Promise<boolean> {
  const rows = await q.query(
    `UPDATE api_keys SET expires_at = $2 WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2) RETURNING id`,
    [id, expiresAt],
  );
  return rows.length === 1;
}

export interface KeyPrincipalRow {
  keyId: string;
  keyPrefix: string;
  merchantId: string;
  merchantName: string;
  environment: Environment;
  apiVersion: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  settings: MerchantSettings;
}

export async function findKeyByHash(q: Queryable, secretHash: string): Promise<KeyPrincipalRow | undefined> {
  const rows = await q.query<{
    id: string;
    display_prefix: string;
    merchant_id: string;
    name: string;
    environment: Environment;
    api_version: string;
    expires_at: Date | null;
    revoked_at: Date | null;
    settings: unknown;
  }>(
    `SELECT k.id, k.display_prefix, k.merchant_id, m.name, k.environment, m.api_version, k.expires_at, k.revoked_at, m.settings
     FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.secret_hash = $1`,
    [secretHash],
  );
  const r = rows[0];
  if (r === undefined) return undefined;
  return {
    keyId: r.id,
    keyPrefix: r.display_prefix,
    merchantId: r.merchant_id,
    merchantName: r.name,
    environment: r.environment,
    apiVersion: r.api_version,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    settings: parseMerchantSettings(r.settings),
  };
}
