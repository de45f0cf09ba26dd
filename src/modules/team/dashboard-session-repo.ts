import type { Queryable } from '../../db/store.ts';
import { parseMerchantSettings } from '../merchants/index.ts';
import type { Environment, MerchantSettings, Role } from '../../kernel/index.ts';

/**
 * Dashboard sessions (migrations 0013, 0019): only the token's keyed hash is stored. A session was
 * opened by a sandbox key (`key_id`) or by a person (`user_id`, with the environment they look at).
 */
interface LiveSessionBase {
  merchantId: string;
  merchantName: string;
  environment: Environment;
  apiVersion: string;
  settings: MerchantSettings;
  createdAt: Date;
  lastSeenAt: Date;
}
export type LiveSession = LiveSessionBase &
  ({ kind: 'key'; keyId: string; keyPrefix: string } | { kind: 'user'; userId: string; email: string; role: Role });

export async function insertSession(
  q: Queryable,
  s: { tokenHash: string; now: Date } & ({ keyId: string } | { userId: string; environment: Environment }),
): Promise<void> {
  await q.query(
    `INSERT INTO dashboard_sessions (token_hash, key_id, user_id, environment, created_at, last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $5)`,
    [
      s.tokenHash,
      'keyId' in s ? s.keyId : null,
      'userId' in s ? s.userId : null,
      'environment' in s ? s.environment : null,
      s.now,
    ],
  );
}

/**
 * The session behind a token hash, if it is still live: not ended, seen since `idleSince`, opened
 * since `openedSince`, and its key neither revoked nor rolled, or its person not removed. Only
 * rolling a key sets `expires_at`, so a key with an expiry is a rolled one: its overlap is for the
 * merchant's servers to switch over, not for browsers, and a session opened with it ends at once
 * (docs/dashboard.md). A production key's session (opened before production needed a person,
 * docs/team.md) is no longer live. A person's role is read here, so a role change applies on the next request.
 */
export async function findLiveSession(
  q: Queryable,
  tokenHash: string,
  bounds: { idleSince: Date; openedSince: Date },
): Promise<LiveSession | undefined> {
  const rows = await q.query<{
    key_id: string | null;
    display_prefix: string | null;
    user_id: string | null;
    email: string | null;
    role: Role | null;
    merchant_id: string;
    name: string;
    environment: Environment;
    api_version: string;
    settings: unknown;
    created_at: Date;
    last_seen_at: Date;
  }>(
    `SELECT s.key_id, k.display_prefix, s.user_id, u.email, u.role, m.id AS merchant_id, m.name,
            COALESCE(k.environment, s.environment) AS environment, m.api_version, m.settings, s.created_at, s.last_seen_at
     FROM dashboard_sessions s
       LEFT JOIN api_keys k ON k.id = s.key_id
       LEFT JOIN users u ON u.id = s.user_id
       JOIN merchants m ON m.id = COALESCE(k.merchant_id, u.merchant_id)
     WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.last_seen_at > $2 AND s.created_at > $3
       AND ((k.id IS NOT NULL AND k.environment = 'sandbox' AND k.revoked_at IS NULL AND k.expires_at IS NULL)
         OR (u.id IS NOT NULL AND u.removed_at IS NULL))`,
    [tokenHash, bounds.idleSince, bounds.openedSince],
  );
  const r = rows[0];
  if (r === undefined) return undefined;
  const base: LiveSessionBase = {
    merchantId: r.merchant_id,
    merchantName: r.name,
    environment: r.environment,
    apiVersion: r.api_version,
    settings: parseMerchantSettings(r.settings),
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
  };
  if (r.user_id !== null && r.email !== null && r.role !== null) {
    return { ...base, kind: 'user', userId: r.user_id, email: r.email, role: r.role };
  }
  return { ...base, kind: 'key', keyId: r.key_id ?? '', keyPrefix: r.display_prefix ?? '' };
}

export async function touchSession(q: Queryable, tokenHash: string, now: Date): Promise<void> {
  await q.query(
    'UPDATE dashboard_sessions SET last_seen_at = $2 WHERE token_hash = $1 AND ended_at IS NULL AND last_seen_at < $2',
    [tokenHash, now],
  );
}

/** A person's session looks at the other environment from now on. */
export async function setSessionEnvironment(q: Queryable, tokenHash: string, environment: Environment): Promise<void> {
  await q.query(
    'UPDATE dashboard_sessions SET environment = $2 WHERE token_hash = $1 AND user_id IS NOT NULL AND ended_at IS NULL',
    [tokenHash, environment],
  );
}

export async function endSession(q: Queryable, tokenHash: string, now: Date): Promise<boolean> {
  const rows = await q.query(
    'UPDATE dashboard_sessions SET ended_at = $2 WHERE token_hash = $1 AND ended_at IS NULL RETURNING token_hash',
    [tokenHash, now],
  );
  return rows.length === 1;
}

/** Ends every open session of a person (removed from the team). */
export async function endSessionsOfUser(q: Queryable, userId: string, now: Date): Promise<number> {
  const rows = await q.query(
    'UPDATE dashboard_sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL RETURNING token_hash',
    [userId, now],
  );
  return rows.length;
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
