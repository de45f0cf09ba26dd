import type { Queryable } from '../../db/store.ts';
import type { Role } from '../../kernel/index.ts';

/** The team's tables (migration 0019): people, recovery codes, invitations, failed sign-in attempts. */
export interface UserRow {
  id: string;
  merchantId: string;
  merchantName: string;
  email: string;
  passwordHash: string;
  role: Role;
  totpSecret: string | null;
  totpLastStep: number;
  createdAt: Date;
}

type UserDbRow = {
  id: string;
  merchant_id: string;
  merchant_name: string;
  email: string;
  password_hash: string;
  role: Role;
  totp_secret: string | null;
  totp_last_step: string | number;
  created_at: Date;
};

const USER_COLUMNS = `u.id, u.merchant_id, m.name AS merchant_name, u.email, u.password_hash, u.role, u.totp_secret,
  u.totp_last_step, u.created_at`;

const userOf = (r: UserDbRow): UserRow => ({
  id: r.id,
  merchantId: r.merchant_id,
  merchantName: r.merchant_name,
  email: r.email,
  passwordHash: r.password_hash,
  role: r.role,
  totpSecret: r.totp_secret,
  totpLastStep: Number(r.totp_last_step),
  createdAt: r.created_at,
});

export async function insertUser(
  q: Queryable,
  u: {
    id: string;
    merchantId: string;
    email: string;
    passwordHash: string;
    role: Role;
    totpSecret: string;
    now: Date;
    totpLastStep: number;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO users (id, merchant_id, email, password_hash, role, totp_secret, totp_last_step, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [u.id, u.merchantId, u.email, u.passwordHash, u.role, u.totpSecret, u.totpLastStep, u.now],
  );
}

/** Members of every merchant with this e-mail (sign-in: an e-mail may belong to several merchants). */
export async function findUsersByEmail(q: Queryable, email: string): Promise<UserRow[]> {
  const rows = await q.query<UserDbRow>(
    `SELECT ${USER_COLUMNS} FROM users u JOIN merchants m ON m.id = u.merchant_id
     WHERE u.email = $1 AND u.removed_at IS NULL ORDER BY u.created_at`,
    [email],
  );
  return rows.map(userOf);
}

export async function findUser(q: Queryable, id: string, opts: { forUpdate?: boolean } = {}): Promise<UserRow | undefined> {
  const rows = await q.query<UserDbRow>(
    `SELECT ${USER_COLUMNS} FROM users u JOIN merchants m ON m.id = u.merchant_id
     WHERE u.id = $1 AND u.removed_at IS NULL${opts.forUpdate === true ? ' FOR UPDATE OF u' : ''}`,
    [id],
  );
  const r = rows[0];
  return r === undefined ? undefined : userOf(r);
}

export async function findMemberOf(q: Queryable, merchantId: string, id: string): Promise<UserRow | undefined> {
  const user = await findUser(q, id, { forUpdate: true });
  return user?.merchantId === merchantId ? user : undefined;
}

export async function listUsers(q: Queryable, merchantId: string): Promise<UserRow[]> {
  const rows = await q.query<UserDbRow>(
    `SELECT ${USER_COLUMNS} FROM users u JOIN merchants m ON m.id = u.merchant_id
     WHERE u.merchant_id = $1 AND u.removed_at IS NULL ORDER BY u.created_at, u.id`,
    [merchantId],
  );
  return rows.map(userOf);
}

/** Locks the merchant's owners (a change that could leave none runs with them locked) and counts them. */
export async function lockOwners(q: Queryable, merchantId: string): Promise<number> {
  const rows = await q.query(
    "SELECT id FROM users WHERE merchant_id = $1 AND role = 'owner' AND removed_at IS NULL ORDER BY id FOR UPDATE",
    [merchantId],
  );
  return rows.length;
}

export async function countUsers(q: Queryable, merchantId: string): Promise<number> {
  const rows = await q.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM users WHERE merchant_id = $1 AND removed_at IS NULL',
    [merchantId],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function setUserRole(q: Queryable, id: string, role: Role): Promise<void> {
  await q.query('UPDATE users SET role = $2 WHERE id = $1', [id, role]);
}

export async function markUserRemoved(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query('UPDATE users SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL', [id, now]);
}

/** Takes a TOTP step: true when it is later than the last one accepted (then it is the last one). */
export async function takeTotpStep(q: Queryable, id: string, step: number): Promise<boolean> {
  const rows = await q.query('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2 RETURNING id', [
    id,
    step,
  ]);
  return rows.length === 1;
}

export async function insertRecoveryCodes(q: Queryable, userId: string, hashes: readonly string[]): Promise<void> {
  for (const hash of hashes) {
    await q.query('INSERT INTO user_recovery_codes (user_id, code_hash) VALUES ($1, $2)', [userId, hash]);
  }
}

/** Uses a recovery code: true when it was the person's and unused (it is used now). */
export async function useRecoveryCode(q: Queryable, userId: string, hash: string, now: Date): Promise<boolean> {
  const rows = await q.query(
    'UPDATE user_recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING code_hash',
    [userId, hash, now],
  );
  return rows.length === 1;
}

export async function countUnusedRecoveryCodes(q: Queryable, userId: string): Promise<number> {
  const rows = await q.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL',
    [userId],
  );
  return Number(rows[0]?.n ?? 0);
}

// ---- invitations ----

export interface InvitationRow {
  id: string;
  merchantId: string;
  merchantName: string;
  /** null: the first owner's set-up link, whose e-mail is asked at set-up. */
  email: string | null;
  role: Role;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

type InvitationDbRow = {
  id: string;
  merchant_id: string;
  merchant_name: string;
  email: string | null;
  role: Role;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
};

const INVITATION_COLUMNS = `i.id, i.merchant_id, m.name AS merchant_name, i.email, i.role, i.invited_by, i.created_at, i.expires_at,
  i.accepted_at, i.revoked_at`;

const invitationOf = (r: InvitationDbRow): InvitationRow => ({
  id: r.id,
  merchantId: r.merchant_id,
  merchantName: r.merchant_name,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  acceptedAt: r.accepted_at,
  revokedAt: r.revoked_at,
});

export async function insertInvitation(
  q: Queryable,
  i: {
    id: string;
    merchantId: string;
    email: string | null;
    role: Role;
    tokenHash: string;
    invitedBy: string;
    now: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO invitations (id, merchant_id, email, role, token_hash, invited_by, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [i.id, i.merchantId, i.email, i.role, i.tokenHash, i.invitedBy, i.now, i.expiresAt],
  );
}

export async function findInvitationByTokenHash(
  q: Queryable,
  tokenHash: string,
  opts: { forUpdate?: boolean } = {},
): Promise<InvitationRow | undefined> {
  const rows = await q.query<InvitationDbRow>(
    `SELECT ${INVITATION_COLUMNS} FROM invitations i JOIN merchants m ON m.id = i.merchant_id
     WHERE i.token_hash = $1${opts.forUpdate === true ? ' FOR UPDATE OF i' : ''}`,
    [tokenHash],
  );
  const r = rows[0];
  return r === undefined ? undefined : invitationOf(r);
}

/** Invitations not accepted, revoked or expired, newest first. */
export async function listPendingInvitations(q: Queryable, merchantId: string, now: Date): Promise<InvitationRow[]> {
  const rows = await q.query<InvitationDbRow>(
    `SELECT ${INVITATION_COLUMNS} FROM invitations i JOIN merchants m ON m.id = i.merchant_id
     WHERE i.merchant_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > $2
     ORDER BY i.created_at DESC, i.id DESC LIMIT 200`,
    [merchantId, now],
  );
  return rows.map(invitationOf);
}

export async function findPendingInvitation(
  q: Queryable,
  merchantId: string,
  id: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const rows = await q.query<InvitationDbRow>(
    `SELECT ${INVITATION_COLUMNS} FROM invitations i JOIN merchants m ON m.id = i.merchant_id
     WHERE i.merchant_id = $1 AND i.id = $2 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > $3
     FOR UPDATE OF i`,
    [merchantId, id, now],
  );
  const r = rows[0];
  return r === undefined ? undefined : invitationOf(r);
}

export async function markInvitationRevoked(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query('UPDATE invitations SET revoked_at = $2 WHERE id = $1', [id, now]);
}

/** Accepts an invitation once: false when it was accepted, revoked or expired meanwhile. */
export async function markInvitationAccepted(q: Queryable, id: string, userId: string, now: Date): Promise<boolean> {
  const rows = await q.query(
    `UPDATE invitations SET accepted_at = $3, user_id = $2
     WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $3 RETURNING id`,
    [id, userId, now],
  );
  return rows.length === 1;
}

// ---- sign-in attempts ----

export async function insertFailedAttempt(q: Queryable, accountKey: string, address: string, now: Date): Promise<void> {
  await q.query('INSERT INTO sign_in_attempts (account_key, address, at) VALUES ($1, $2, $3)', [accountKey, address, now]);
}

/** Failures since `since` for the account and for the address, and the oldest of each (when the limit lifts). */
export async function countFailedAttempts(
  q: Queryable,
  accountKey: string,
  address: string,
  since: Date,
): Promise<{ account: number; accountOldest: Date | null; address: number; addressOldest: Date | null }> {
  const rows = await q.query<{
    account: string | number;
    account_oldest: Date | null;
    address: string | number;
    address_oldest: Date | null;
  }>(
    `SELECT (SELECT count(*) FROM sign_in_attempts WHERE account_key = $1 AND at > $3) AS account,
            (SELECT min(at) FROM sign_in_attempts WHERE account_key = $1 AND at > $3) AS account_oldest,
            (SELECT count(*) FROM sign_in_attempts WHERE address = $2 AND at > $3) AS address,
            (SELECT min(at) FROM sign_in_attempts WHERE address = $2 AND at > $3) AS address_oldest`,
    [accountKey, address, since],
  );
  const r = rows[0];
  return {
    account: Number(r?.account ?? 0),
    accountOldest: r?.account_oldest ?? null,
    address: Number(r?.address ?? 0),
    addressOldest: r?.address_oldest ?? null,
  };
}

/** Forgets attempts older than the window; bounded per call. */
export async function deleteOldAttempts(q: Queryable, before: Date): Promise<void> {
  await q.query('DELETE FROM sign_in_attempts WHERE at <= $1', [before]);
}
