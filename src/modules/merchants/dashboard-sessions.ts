import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { environmentOfKey, hashApiKey } from './api-key.ts';
import { principalOfKey } from './authenticator.ts';
import { deleteDeadSessions, endSession, findLiveSession, insertSession, touchSession } from './dashboard-session-repo.ts';
import { findKeyByHash } from './merchant-repo.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * Sessions of the merchant dashboard (docs/dashboard.md, decision 0019). The secret API key is
 * presented once, at login; from then on the browser holds a random 256-bit token (in an HttpOnly
 * cookie) and the database holds only HMAC(deployment secret, token), so a stolen table opens no
 * session. A session resolves to the same Principal an API key does, so every screen calls the
 * same module functions as the API routes, scoped the same way.
 */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** However active, a session ends a week after login (then the key is asked for again). */
export const SESSION_MAX_AGE_MS = 7 * 24 * 3_600_000;
/** last_seen_at is written at most this often per session (a page view is not worth a write). */
const TOUCH_EVERY_MS = 5 * 60_000;
const DEAD_SESSIONS_PER_LOGIN = 100;

export interface DashboardSession {
  principal: Principal;
  tokenHash: string;
  /** The per-session anti-CSRF token every state-changing form carries. */
  csrfToken: string;
}

export type LoginResult =
  { ok: true; token: string; session: DashboardSession } | { ok: false; reason: 'invalid_key' | 'rolled_key' };

export interface DashboardSessionDeps {
  store: Store;
  clock: Clock;
  /** Deployment secret: keys the token hash, the CSRF token and (elsewhere) the API-key hash. */
  secret: string;
}

export function createDashboardSessions(deps: DashboardSessionDeps) {
  const tokenHash = (token: string) => createHmac('sha256', deps.secret).update(`dashboard-session\0${token}`).digest('hex');
  // Derived rather than stored: only the holder of the cookie's token can know it, and it changes
  // with every session. Keyed by the hash so the raw token need not be kept around.
  const csrfOf = (hash: string) => createHmac('sha256', deps.secret).update(`dashboard-csrf\0${hash}`).digest('base64url');

  return {
    /**
     * Opens a session for a presented key. The key is read straight from the store (not the
     * authenticator's cache), so a key revoked a moment ago cannot log in.
     */
    async login(presentedKey: string): Promise<LoginResult> {
      const environment = environmentOfKey(presentedKey);
      if (environment === undefined) return { ok: false, reason: 'invalid_key' };
      const row = await findKeyByHash(deps.store, hashApiKey(deps.secret, presentedKey));
      const now = deps.clock.now();
      if (row === undefined || row.environment !== environment || row.revokedAt !== null)
        return { ok: false, reason: 'invalid_key' };
      if (row.expiresAt !== null) return { ok: false, reason: row.expiresAt <= now ? 'invalid_key' : 'rolled_key' };
      await deleteDeadSessions(deps.store, new Date(now.getTime() - SESSION_IDLE_MS), DEAD_SESSIONS_PER_LOGIN);
      const token = randomBytes(32).toString('base64url');
      const hash = tokenHash(token);
      await insertSession(deps.store, { tokenHash: hash, keyId: row.keyId, now });
      return {
        ok: true,
        token,
        session: {
          principal: principalOfKey(row),
          tokenHash: hash,
          csrfToken: csrfOf(hash),
        },
      };
    },

    /** The live session of a cookie token, or undefined (unknown, ended, idle, too old, key revoked or rolled). */
    async resolve(token: string): Promise<DashboardSession | undefined> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
      const hash = tokenHash(token);
      const now = deps.clock.now();
      const live = await findLiveSession(deps.store, hash, {
        idleSince: new Date(now.getTime() - SESSION_IDLE_MS),
        openedSince: new Date(now.getTime() - SESSION_MAX_AGE_MS),
      });
      if (live === undefined) return undefined;
      if (now.getTime() - live.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await touchSession(deps.store, hash, now);
      return { principal: principalOfKey(live), tokenHash: hash, csrfToken: csrfOf(hash) };
    },

    async logout(session: DashboardSession): Promise<void> {
      await endSession(deps.store, session.tokenHash, deps.clock.now());
    },

    /** Constant-time comparison of a presented CSRF token with the session's. */
    csrfMatches(session: DashboardSession, presented: string | undefined): boolean {
      if (presented === undefined) return false;
      const a = Buffer.from(session.csrfToken);
      const b = Buffer.from(presented);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}

export type DashboardSessions = ReturnType<typeof createDashboardSessions>;
