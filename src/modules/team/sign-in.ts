import type { Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedMac, sameSecret } from '../../lib/keyed-mac.ts';
import { type AuditSubject, recordAudit } from '../audit/index.ts';
import type { DashboardSessions } from './dashboard-sessions.ts';
import { normalEmail } from './members.ts';
import { burnPasswordCheck, verifyPassword } from './passwords.ts';
import {
  countFailedAttempts,
  deleteOldAttempts,
  findUser,
  findUsersByEmail,
  insertFailedAttempt,
  takeTotpStep,
  type UserRow,
  useRecoveryCode,
} from './team-repo.ts';
import { hashRecoveryCode, isRecoveryCodeShape, totpStepOf } from './totp.ts';
import type { Environment, RequestOrigin } from '../../kernel/index.ts';

/**
 * Signing a person in (docs/team.md): e-mail and password, then a TOTP or recovery code, then a
 * session. Whatever was wrong — unknown e-mail, wrong password, wrong or reused code — the answer is
 * the same, and failures are limited per account and per address; past the limit every attempt is
 * refused, right or wrong, with how long to wait.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;
const PENDING_STEP_MS = 5 * 60_000;
export const NOT_RIGHT = 'E-mail, password or code is not right.';

export interface SignInDeps {
  store: Store;
  clock: Clock;
  secret: string;
  sessions: DashboardSessions;
}

export type SignInRefusal = { ok: false; reason: 'not_right' | 'too_many'; message: string };

const notRight: SignInRefusal = { ok: false, reason: 'not_right', message: NOT_RIGHT };

function tooMany(minutes: number): SignInRefusal {
  return {
    ok: false,
    reason: 'too_many',
    message: `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  };
}

const subjectOf = (user: UserRow, environment: Environment, origin: RequestOrigin): AuditSubject => ({
  merchantId: user.merchantId,
  environment,
  actor: { kind: 'user', userId: user.id, email: user.email, role: user.role },
  origin,
});

/** Refused when the account or the address has too many recent failures: how many minutes are left. */
async function limited(deps: SignInDeps, accountKey: string, address: string): Promise<SignInRefusal | undefined> {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
  const counts = await countFailedAttempts(deps.store, accountKey, address, since);
  const until: number[] = [];
  if (counts.account >= MAX_FAILURES_PER_ACCOUNT && counts.accountOldest !== null) {
    until.push(counts.accountOldest.getTime() + SIGN_IN_WINDOW_MS);
  }
  if (counts.address >= MAX_FAILURES_PER_ADDRESS && counts.addressOldest !== null) {
    until.push(counts.addressOldest.getTime() + SIGN_IN_WINDOW_MS);
  }
  if (until.length === 0) return undefined;
  return tooMany(Math.max(1, Math.ceil((Math.max(...until) - now.getTime()) / 60_000)));
}

// ---- the pending step between the password and the code ----

const signPending = (deps: SignInDeps, body: string) => keyedMac(deps.secret, 'sign-in-pending', body);

function makePending(deps: SignInDeps, userIds: readonly string[], accountKey: string): string {
  const body = `${userIds.join(',')}.${deps.clock.now().getTime() + PENDING_STEP_MS}.${Buffer.from(accountKey).toString('base64url')}`;
  return `${body}.${signPending(deps, body)}`;
}

function readPending(deps: SignInDeps, pending: string): { userIds: string[]; accountKey: string } | undefined {
  const parts = pending.split('.');
  if (parts.length !== 4) return undefined;
  const body = parts.slice(0, 3).join('.');
  if (!sameSecret(signPending(deps, body), parts[3] as string)) return undefined;
  if (Number(parts[1]) <= deps.clock.now().getTime()) return undefined;
  return { userIds: (parts[0] as string).split(','), accountKey: Buffer.from(parts[2] as string, 'base64url').toString() };
}

// ---- the steps ----

export type PasswordStep = { ok: true; pending: string; choices: { userId: string; merchantName: string }[] } | SignInRefusal;

/** Records a failure: one attempt row, and one audit row per merchant the e-mail belongs to. */
async function fail(
  deps: SignInDeps,
  accountKey: string,
  origin: RequestOrigin,
  users: readonly UserRow[],
  step: string,
): Promise<void> {
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    await insertFailedAttempt(tx, accountKey, origin.address ?? 'unknown', now);
    for (const user of users) {
      await recordAudit(tx, subjectOf(user, 'production', origin), {
        action: 'user.sign_in_failed',
        environment: null,
        outcome: 'failed',
        objectType: 'user',
        objectId: user.id,
        changes: { step },
        at: now,
      });
    }
  });
}

export async function passwordStep(
  deps: SignInDeps,
  input: { email: string; password: string },
  origin: RequestOrigin,
): Promise<PasswordStep> {
  const accountKey = normalEmail(input.email).slice(0, 254);
  const address = origin.address ?? 'unknown';
  const now = deps.clock.now();
  await deleteOldAttempts(deps.store, new Date(now.getTime() - SIGN_IN_WINDOW_MS));
  const blocked = await limited(deps, accountKey, address);
  if (blocked !== undefined) return blocked;
  const password = input.password.slice(0, 200);
  const users = accountKey === '' ? [] : await findUsersByEmail(deps.store, accountKey);
  const matched: UserRow[] = [];
  if (users.length === 0) await burnPasswordCheck(password);
  for (const user of users)
    if (user.totpSecret !== null && (await verifyPassword(password, user.passwordHash))) matched.push(user);
  if (matched.length === 0) {
    await fail(deps, accountKey, origin, users, 'password');
    return notRight;
  }
  return {
    ok: true,
    pending: makePending(
      deps,
      matched.map((u) => u.id),
      accountKey,
    ),
    choices: matched.map((u) => ({ userId: u.id, merchantName: u.merchantName })),
  };
}

export type CodeStep =
  { ok: true; token: string; userId: string } | SignInRefusal | { ok: false; reason: 'expired'; message: string };

/**
 * The second step: a TOTP code (once: its step must be later than the last one accepted) or an
 * unused recovery code. Opens the session and writes `user.signed_in` (and `user.recovery_code_used`)
 * in one transaction.
 */
export async function codeStep(
  deps: SignInDeps,
  input: { pending: string; userId?: string; code: string; environment?: Environment },
  origin: RequestOrigin,
): Promise<CodeStep> {
  const pending = readPending(deps, input.pending);
  if (pending === undefined) return { ok: false, reason: 'expired', message: 'The sign-in took too long. Start again.' };
  const blocked = await limited(deps, pending.accountKey, origin.address ?? 'unknown');
  if (blocked !== undefined) return blocked;
  const userId = pending.userIds.length === 1 ? pending.userIds[0] : input.userId;
  if (userId === undefined || !pending.userIds.includes(userId)) return notRight;
  const user = await findUser(deps.store, userId);
  if (user === undefined || user.totpSecret === null) return notRight;
  const environment = input.environment ?? 'production';
  const now = deps.clock.now();
  const code = input.code.trim().slice(0, 40);
  const secret = user.totpSecret;
  const outcome = await deps.store.transaction(async (tx) => {
    let method: 'totp' | 'recovery_code' | undefined;
    const step = totpStepOf(secret, code, now);
    if (step !== undefined && (await takeTotpStep(tx, user.id, step))) method = 'totp';
    else if (
      step === undefined &&
      isRecoveryCodeShape(code) &&
      (await useRecoveryCode(tx, user.id, hashRecoveryCode(code), now))
    ) {
      method = 'recovery_code';
    }
    if (method === undefined) return undefined;
    const subject = subjectOf(user, environment, origin);
    if (method === 'recovery_code') {
      await recordAudit(tx, subject, {
        action: 'user.recovery_code_used',
        environment: null,
        objectType: 'user',
        objectId: user.id,
        at: now,
      });
    }
    const token = await deps.sessions.openForUser(tx, user.id, environment);
    await recordAudit(tx, subject, {
      action: 'user.signed_in',
      environment: null,
      objectType: 'user',
      objectId: user.id,
      changes: { second_factor: method, environment },
      at: now,
    });
    return token;
  });
  if (outcome === undefined) {
    await fail(deps, pending.accountKey, origin, [user], 'code');
    return notRight;
  }
  return { ok: true, token: outcome, userId: user.id };
}

/** Ends a person's session and writes `user.signed_out` (a key session just ends). */
export async function signOut(deps: SignInDeps, session: Parameters<DashboardSessions['logout']>[0]): Promise<void> {
  const actor = session.principal.actor;
  if (actor.kind !== 'user') {
    await deps.sessions.logout(session);
    return;
  }
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    await deps.sessions.logout(session, tx);
    await recordAudit(tx, session.principal, {
      action: 'user.signed_out',
      environment: null,
      objectType: 'user',
      objectId: actor.userId,
      at: now,
    });
  });
}
