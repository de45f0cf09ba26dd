import { randomBytes } from 'node:crypto';
import type { Queryable, Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedMac, sameSecret } from '../../lib/keyed-mac.ts';
import { environmentOfKey, findKeyByHash, hashApiKey, principalOfKey } from '../merchants/index.ts';
import {
  deleteDeadSessions,
  endSession,
  findLiveSession,
  insertSession,
  type LiveSession,
  setSessionEnvironment,
  touchSession,
} from './dashboard-session-repo.ts';
import type { Environment, Principal } from '../../kernel/index.ts';

/**
 * Sessions of the merchant dashboard (docs/dashboard.md, docs/team.md, decision 0019). A person
 * signs in with e-mail, password and a TOTP code (sign-in.ts); a sandbox secret key may still be
 * presented once, at login (a production key may not: production needs a person). From then on the browser holds a random 256-bit token (in an HttpOnly
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
  { ok: true; token: string; session: DashboardSession } | { ok: false; reason: 'invalid_key' | 'rolled_key' | 'production_key' };

/** Who a live session acts as: its key's principal, or the person with their role. */
function principalOfSession(live: LiveSession): Principal {
  if (live.kind === 'key') return principalOfKey(live);
  return {
    merchantId: live.merchantId,
    merchantName: live.merchantName,
    environment: live.environment,
    apiVersion: live.apiVersion,
    actor: { kind: 'user', userId: live.userId, email: live.email, role: live.role },
    settings: live.settings,
  };
}

export interface DashboardSessionDeps {
  store: Store;
  clock: Clock;
  /** Deployment secret: keys the token hash, the CSRF token and (elsewhere) the API-key hash. */
  secret: string;
}

export function createDashboardSessions(deps: DashboardSessionDeps) {
  const tokenHash = (token: string) => keyedMac(deps.secret, 'dashboard-session', token, 'hex');
  // Derived rather than stored: only the holder of the cookie's token can know it, and it changes
  // with every session. Keyed by the hash so the raw token need not be kept around.
  const csrfOf = (hash: string) => keyedMac(deps.secret, 'dashboard-csrf', hash);
  /** A new session row (a key's or a person's), after forgetting a few dead ones: its token and hash. */
  async function open(q: Queryable, opener: { keyId: string } | { userId: string; environment: Environment }) {
    const now = deps.clock.now();
    await deleteDeadSessions(q, new Date(now.getTime() - SESSION_IDLE_MS), DEAD_SESSIONS_PER_LOGIN);
    const token = randomBytes(32).toString('base64url');
    const hash = tokenHash(token);
    await insertSession(q, { tokenHash: hash, ...opener, now });
    return { token, hash };
  }

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
      // Production data needs a person (docs/team.md, "Keys and people").
      if (row.environment === 'production') return { ok: false, reason: 'production_key' };
      const { token, hash } = await open(deps.store, { keyId: row.keyId });
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
      return { principal: principalOfSession(live), tokenHash: hash, csrfToken: csrfOf(hash) };
    },

    /**
     * Opens a person's session, in `q` (the sign-in's transaction, with its audit row): the token
     * for the cookie. The principal is read on the next request, like every session's.
     */
    async openForUser(q: Queryable, userId: string, environment: Environment): Promise<string> {
      return (await open(q, { userId, environment })).token;
    },

    /** A person's session switches to the other environment (a key session stays in its key's). */
    async switchEnvironment(session: DashboardSession, environment: Environment): Promise<void> {
      await setSessionEnvironment(deps.store, session.tokenHash, environment);
    },

    async logout(session: DashboardSession, q: Queryable = deps.store): Promise<void> {
      await endSession(q, session.tokenHash, deps.clock.now());
    },

    /** Constant-time comparison of a presented CSRF token with the session's. */
    csrfMatches(session: DashboardSession, presented: string | undefined): boolean {
      return presented !== undefined && sameSecret(session.csrfToken, presented);
    },
  };
}

export type DashboardSessions = ReturnType<typeof createDashboardSessions>;
