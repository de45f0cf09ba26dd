import type { Queryable } from '../../db/store.ts';
import { parseMerchantSettings } from './merchant-settings.ts';
import type { Environment, MerchantSettings } from '../../kernel/index.ts';

/** Dashboard sessions (migration 0013): only the token's keyed hash is stored. */
export interface LiveSession {
  keyId: string;
  keyPrefix: string;
  merchantId: string;
  merchantName: string;
  environment: Environment;
  apiVersion: string;
  settings: MerchantSettings;
  createdAt: Date;
  lastSeenAt: Date;
}

export async function insertSession(q: Queryable, s: { tokenHash: string; keyId: string; now: Date }): Promise<void> {
  await q.query('INSERT INTO dashboard_sessions (token_hash, key_id, created_at, last_seen_at) VALUES ($1, $2, $3, $3)', [
    s.tokenHash,
    s.keyId,
    s.now,
  ]);
}

/**
 * The session behind a token hash, if it is still live: not ended, seen since `idleSince`, opened
 * since `openedSince`, and its key neither revoked nor rolled. Only rolling a key sets `expires_at`,
 * so a key with an expiry is a rolled one: its overlap is for the merchant's servers to switch
 * over, not for browsers, and a session opened with it ends at once (docs/dashboard.md).
 */
export async function findLiveSession(
  q: Queryable,
  tokenHash: string,
  bounds: { idleSince: Date; openedSince: Date },
): Promise<LiveSession | undefined> {
  const rows = await q.query<{
    key_id: string;
    display_prefix: string;
    merchant_id: string;
    name: string;
    environment: Environment;
    api_version: string;
    settings: unknown;
    created_at: Date;
    last_seen_at: Date;
  }>(
    `SELECT s.key_id, k.display_prefix, k.merchant_id, m.name, k.environment, m.api_version, m.settings, s.created_at, s.last_seen_at
     FROM dashboard_sessions s JOIN api_keys k ON k.id = s.key_id JOIN merchants m ON m.id = k.merchant_id
     WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.last_seen_at > $2 AND s.created_at > $3
       AND k.revoked_at IS NULL AND k.expires_at IS NULL`,
    [tokenHash, bounds.idleSince, bounds.openedSince],
  );
  const r = rows[0];
  if (r === undefined) return undefined;
  return {
    keyId: r.key_id,
    keyPrefix: r.display_prefix,
    merchantId: r.merchant_id,
    merchantName: r.name,
    environment: r.environment,
    apiVersion: r.api_version,
    settings: parseMerchantSettings(r.settings),
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
  };
}

export async function touchSession(q: Queryable, tokenHash: string, now: Date): Promise<void> {
  await q.query(
    'UPDATE dashboard_sessions SET last_seen_at = $2 WHERE token_hash = $1 AND ended_at IS NULL AND last_seen_at < $2',
    [tokenHash, now],
  );
}

export async function endSession(q: Queryable, tokenHash: string, now: Date): Promise<boolean> {
  const rows = await q.query(
    'UPDATE dashboard_sessions SET ended_at = $2 WHERE token_hash = $1 AND ended_at IS NULL RETURNING token_hash',
    [tokenHash, now],
  );
  return rows.length === 1;
}

/** Forgets sessions that can no longer be used (ended, or idle past the limit); bounded per call. */
export async function deleteDeadSessions(q: Queryable, idleSince: Date, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM dashboard_sessions WHERE token_hash IN (
       SELECT token_hash FROM dashboard_sessions WHERE ended_at IS NOT NULL OR last_seen_at <= $1 LIMIT $2)
     RETURNING token_hash`,
    [idleSince, limit],
  );
  return rows.length;
}
