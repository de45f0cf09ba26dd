import type { Queryable } from '../../db/store.ts';
import type { Tenant } from './endpoint-repo.ts';
import type { Environment } from '../../kernel/index.ts';

/** The merchant's secret for payment `callback_url`s, one per environment. */
export interface CallbackSecretRecord {
  merchantId: string;
  environment: Environment;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  revealedAt: Date | null;
  createdAt: Date;
  rotatedAt: Date | null;
}

interface Row {
  merchant_id: string;
  environment: Environment;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
  revealed_at: Date | null;
  created_at: Date;
  rotated_at: Date | null;
  [key: string]: unknown;
}

const COLUMNS =
  'merchant_id, environment, secret_ciphertext, previous_secret_ciphertext, previous_secret_expires_at, revealed_at, created_at, rotated_at';

const fromRow = (r: Row): CallbackSecretRecord => ({
  merchantId: r.merchant_id,
  environment: r.environment,
  secretCiphertext: r.secret_ciphertext,
  previousSecretCiphertext: r.previous_secret_ciphertext,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  revealedAt: r.revealed_at,
  createdAt: r.created_at,
  rotatedAt: r.rotated_at,
});

/** `forUpdate` locks the row until the transaction ends (rotation reads, then replaces). */
export async function findCallbackSecret(q: Queryable, t: Tenant, forUpdate = false): Promise<CallbackSecretRecord | undefined> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM callback_secrets WHERE merchant_id = $1 AND environment = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [t.merchantId, t.environment],
  );
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

/** Callback secrets of several tenants at once (the dispatcher signs a batch). */
export async function callbackSecretsOf(q: Queryable, tenants: readonly Tenant[]): Promise<CallbackSecretRecord[]> {
  if (tenants.length === 0) return [];
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM callback_secrets WHERE (merchant_id, environment) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [tenants.map((t) => t.merchantId), tenants.map((t) => t.environment)],
  );
  return rows.map(fromRow);
}

/** Creates the secret unless one exists (two creators racing: the first wins, both read it). */
export async function insertCallbackSecretIfAbsent(q: Queryable, t: Tenant, secretCiphertext: string, now: Date): Promise<void> {
  await q.query(
    `INSERT INTO callback_secrets (merchant_id, environment, secret_ciphertext, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id, environment) DO NOTHING`,
    [t.merchantId, t.environment, secretCiphertext, now],
  );
}

/** Marks the secret revealed; true only for the one caller that revealed it (shown once). */
export async function markCallbackSecretRevealed(q: Queryable, t: Tenant, now: Date): Promise<boolean> {
  const rows = await q.query(
    `UPDATE callback_secrets SET revealed_at = $3 WHERE merchant_id = $1 AND environment = $2 AND revealed_at IS NULL
     RETURNING merchant_id`,
    [t.merchantId, t.environment, now],
  );
  return rows.length === 1;
}

/** Replaces the secret; the old one keeps signing until `previousExpiresAt`. */
export async function rotateCallbackSecret(
  q: Queryable,
  t: Tenant,
  r: { secretCiphertext: string; previousSecretCiphertext: string | null; previousExpiresAt: Date | null; now: Date },
): Promise<CallbackSecretRecord | undefined> {
  const rows = await q.query<Row>(
    `UPDATE callback_secrets SET secret_ciphertext = $3, previous_secret_ciphertext = $4, previous_secret_expires_at = $5,
       rotated_at = $6, revealed_at = $6
     WHERE merchant_id = $1 AND environment = $2 RETURNING ${COLUMNS}`,
    [t.merchantId, t.environment, r.secretCiphertext, r.previousSecretCiphertext, r.previousExpiresAt, r.now],
  );
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}
