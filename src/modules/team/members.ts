import { createHash, randomBytes } from 'node:crypto';
import type { Queryable, Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedMac, sameSecret } from '../../lib/keyed-mac.ts';
import { newId } from '../../lib/ids.ts';
import { type AuditSubject, recordAudit } from '../audit/index.ts';
import { findMerchant } from '../merchants/index.ts';
import { endSessionsOfUser } from './dashboard-session-repo.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import {
  countUsers,
  findInvitationByTokenHash,
  findMemberOf,
  findPendingInvitation,
  insertInvitation,
  insertRecoveryCodes,
  insertUser,
  type InvitationRow,
  listPendingInvitations,
  listUsers,
  lockOwners,
  markInvitationAccepted,
  markInvitationRevoked,
  markUserRemoved,
  setUserRole,
  type UserRow,
} from './team-repo.ts';
import { hashRecoveryCode, newRecoveryCodes, totpStepOf } from './totp.ts';
import { ROLES, type Actor, type Principal, type Role } from '../../kernel/index.ts';

/**
 * The people of a merchant's team (docs/team.md): invitations by a one-time link, joining (password
 * and two-factor), role changes, removal, ownership transfer. Every change writes one audit row in
 * its own transaction. A merchant keeps at least one owner: the owners are locked while a change
 * that could leave none is decided. An admin cannot invite, change or remove an owner.
 */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
const EMAIL_PATTERN = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>".]{2,}$/;

export interface TeamDeps {
  store: Store;
  clock: Clock;
  /** Deployment secret: signs the TOTP secret carried by the set-up form. */
  secret: string;
  publicBaseUrl: string;
  /** Sends an invitation by mail when SMTP_URL is set (the link is shown to copy either way). */
  mailInvitation?: (to: string, merchantName: string, link: string) => Promise<void>;
}

export type TeamRefusal = {
  ok: false;
  code: 'invalid' | 'not_found' | 'forbidden' | 'last_owner' | 'conflict';
  message: string;
};
const refuse = (code: TeamRefusal['code'], message: string): TeamRefusal => ({ ok: false, code, message });
const invitationGone = () => refuse('not_found', 'This invitation link is not valid: it was used, revoked or has expired.');

export const normalEmail = (email: string) => email.trim().toLowerCase();
export const isEmail = (email: string) => email.length <= 254 && EMAIL_PATTERN.test(email);
export const isRole = (role: string): role is Role => (ROLES as readonly string[]).includes(role);

const tokenHashOf = (token: string) => createHash('sha256').update(`invitation\0${token}`).digest('hex');
export const invitationLink = (deps: Pick<TeamDeps, 'publicBaseUrl'>, token: string) =>
  `${deps.publicBaseUrl.replace(/\/+$/, '')}/dashboard/invitations/${token}`;

/** Who acts on the team, as the audit log names them: a person (with role) or the operator. */
type Acting = Principal | MerchantAuditSubject;
type MerchantAuditSubject = AuditSubject & { merchantId: string };
const roleOfActor = (actor: Actor): Role | 'operator' | undefined =>
  actor.kind === 'user' ? actor.role : actor.kind === 'operator' ? 'operator' : undefined;

/** Team changes are a person's (or the operator's) work: a key session may not make them. */
function mayManage(by: Acting, target: Role): TeamRefusal | undefined {
  const role = roleOfActor(by.actor);
  if (role === undefined) return refuse('forbidden', 'Only a person signed in with e-mail can manage the team.');
  if (role === 'operator' || role === 'owner') return undefined;
  if (role !== 'admin') return refuse('forbidden', 'Your role does not allow managing the team.');
  if (target === 'owner') return refuse('forbidden', 'An admin cannot invite, change or remove an owner. Ask an owner.');
  return undefined;
}

const audit = (
  q: Queryable,
  by: Acting,
  now: Date,
  action: Parameters<typeof recordAudit>[2]['action'],
  objectType: string,
  objectId: string,
  changes: Record<string, unknown>,
) => recordAudit(q, by, { action, environment: null, objectType, objectId, changes, at: now });

// ---- reading ----

export interface Member {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
}

export interface PendingInvitation {
  id: string;
  /** null: the first owner's set-up link (the e-mail is asked at set-up). */
  email: string | null;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
}

export async function listTeam(deps: Pick<TeamDeps, 'store' | 'clock'>, merchantId: string) {
  const members = (await listUsers(deps.store, merchantId)).map((u): Member => ({
    id: u.id,
    email: u.email,
    role: u.role,
    createdAt: u.createdAt,
  }));
  const invitations = (await listPendingInvitations(deps.store, merchantId, deps.clock.now())).map((i): PendingInvitation => ({
    id: i.id,
    email: i.email,
    role: i.role,
    createdAt: i.createdAt,
    expiresAt: i.expiresAt,
  }));
  return { members, invitations };
}

export const teamSize = (deps: Pick<TeamDeps, 'store'>, merchantId: string) => countUsers(deps.store, merchantId);

// ---- invitations ----

/**
 * Writes an invitation and its `member.invited` row in `tx`: the one-time token (only its hash is
 * kept), valid 7 days. `email` null: the first owner's link, whose person gives theirs at set-up.
 */
async function writeInvitation(
  tx: Queryable,
  by: Acting,
  input: { merchantId: string; email: string | null; role: Role; invitedBy: string },
  now: Date,
): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const id = newId('invitation', now.getTime());
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  await insertInvitation(tx, { id, ...input, tokenHash: tokenHashOf(token), now, expiresAt });
  await audit(tx, by, now, 'member.invited', 'invitation', id, {
    email: input.email,
    role: input.role,
    expires_at: expiresAt.toISOString(),
  });
  return { id, token, expiresAt };
}

export type Invited = { ok: true; invitation: PendingInvitation; link: string; mailed: boolean };

/** Invites an e-mail with a role: the one-time link (valid 7 days) is returned to copy, and mailed with SMTP. */
export async function inviteMember(
  deps: TeamDeps,
  by: Acting,
  input: { email: string; role: string; merchantId?: string },
): Promise<Invited | TeamRefusal> {
  const email = normalEmail(input.email);
  if (!isEmail(email)) return refuse('invalid', 'Enter an e-mail address like name@example.com.');
  if (!isRole(input.role)) return refuse('invalid', `The role must be one of ${ROLES.join(', ')}.`);
  const role = input.role;
  const refusal = mayManage(by, role);
  if (refusal !== undefined) return refusal;
  const merchantId = by.merchantId;
  const now = deps.clock.now();
  const result = await deps.store.transaction(async (tx) => {
    const members = await listUsers(tx, merchantId);
    if (members.some((m) => m.email === email)) return refuse('conflict', 'This e-mail is already a member of the team.');
    const invitedBy =
      by.actor.kind === 'user' ? by.actor.userId : by.actor.kind === 'operator' ? `operator:${by.actor.name}` : 'unknown';
    return writeInvitation(tx, by, { merchantId, email, role, invitedBy }, now);
  });
  if ('ok' in result) return result;
  const { id, token, expiresAt } = result;
  const link = invitationLink(deps, token);
  let mailed = false;
  if (deps.mailInvitation !== undefined) {
    const merchant = await findMerchant(deps.store, merchantId);
    try {
      await deps.mailInvitation(email, merchant?.name ?? merchantId, link);
      mailed = true;
    } catch {
      mailed = false;
    }
  }
  return { ok: true, invitation: { id, email, role, createdAt: now, expiresAt }, link, mailed };
}

export async function revokeInvitation(deps: TeamDeps, by: Acting, invitationId: string): Promise<{ ok: true } | TeamRefusal> {
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const invitation = await findPendingInvitation(tx, by.merchantId, invitationId, now);
    if (invitation === undefined) return refuse('not_found', 'No such pending invitation.');
    const refusal = mayManage(by, invitation.role);
    if (refusal !== undefined) return refusal;
    await markInvitationRevoked(tx, invitation.id, now);
    await audit(tx, by, now, 'member.invitation_revoked', 'invitation', invitation.id, {
      email: invitation.email,
      role: invitation.role,
    });
    return { ok: true as const };
  });
}

/** The invitation behind a link, when it can still be accepted. */
export async function openInvitation(deps: Pick<TeamDeps, 'store' | 'clock'>, token: string): Promise<InvitationRow | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const invitation = await findInvitationByTokenHash(deps.store, tokenHashOf(token));
  const now = deps.clock.now();
  if (invitation === undefined || invitation.acceptedAt !== null || invitation.revokedAt !== null || invitation.expiresAt <= now)
    return undefined;
  return invitation;
}

/** The set-up form carries the TOTP secret it showed, signed, so the server can trust it back. */
export function signSetupSecret(deps: Pick<TeamDeps, 'secret'>, token: string, totpSecret: string): string {
  return keyedMac(deps.secret, 'totp-setup', `${tokenHashOf(token)}\0${totpSecret}`);
}

function setupSecretMatches(deps: Pick<TeamDeps, 'secret'>, token: string, totpSecret: string, signature: string): boolean {
  return sameSecret(signSetupSecret(deps, token, totpSecret), signature);
}

export type Joined = { ok: true; user: Pick<UserRow, 'id' | 'email' | 'role' | 'merchantId'>; recoveryCodes: string[] };

/**
 * Accepts an invitation: the password (at least 12 characters), the TOTP secret the page showed and
 * a code from the app that proves it was enrolled. Makes the person, their recovery codes (returned
 * to show once), marks the invitation used, and writes `member.joined`, in one transaction.
 */
export async function acceptInvitation(
  deps: TeamDeps,
  token: string,
  input: { password: string; passwordAgain: string; totpSecret: string; totpSignature: string; code: string; email?: string },
  origin?: AuditSubject['origin'],
): Promise<Joined | TeamRefusal> {
  const invitation = await openInvitation(deps, token);
  if (invitation === undefined) return invitationGone();
  // The first owner's link names no e-mail: the person gives theirs here.
  const email = invitation.email ?? normalEmail(input.email ?? '');
  if (!isEmail(email)) return refuse('invalid', 'Enter an e-mail address like name@example.com.');
  const problem = passwordProblem(input.password);
  if (problem !== undefined) return refuse('invalid', problem);
  if (input.password !== input.passwordAgain) return refuse('invalid', 'The two passwords are not the same.');
  if (!setupSecretMatches(deps, token, input.totpSecret, input.totpSignature)) {
    return refuse('invalid', 'The form is stale. Open the invitation link again.');
  }
  const now = deps.clock.now();
  const step = totpStepOf(input.totpSecret, input.code, now);
  if (step === undefined)
    return refuse('invalid', 'That code is not right. Enter the 6-digit code your authenticator app shows now.');
  const passwordHash = await hashPassword(input.password);
  const recoveryCodes = newRecoveryCodes();
  const userId = newId('user', now.getTime());
  return deps.store
    .transaction(async (tx) => {
      const locked = await findInvitationByTokenHash(tx, tokenHashOf(token), { forUpdate: true });
      if (locked === undefined) return invitationGone();
      const members = await listUsers(tx, locked.merchantId);
      if (members.some((m) => m.email === email)) return refuse('conflict', 'This e-mail is already a member of the team.');
      await insertUser(tx, {
        id: userId,
        merchantId: locked.merchantId,
        email,
        passwordHash,
        role: locked.role,
        totpSecret: input.totpSecret,
        totpLastStep: step,
        now,
      });
      if (!(await markInvitationAccepted(tx, locked.id, userId, now))) {
        throw new InvitationRaceError();
      }
      await insertRecoveryCodes(tx, userId, recoveryCodes.map(hashRecoveryCode));
      const subject: MerchantAuditSubject = {
        merchantId: locked.merchantId,
        environment: 'production',
        actor: { kind: 'user', userId, email, role: locked.role },
        origin,
      };
      await audit(tx, subject, now, 'member.joined', 'user', userId, {
        email,
        role: locked.role,
        invitation: locked.id,
      });
      return {
        ok: true as const,
        user: { id: userId, email, role: locked.role, merchantId: locked.merchantId },
        recoveryCodes,
      };
    })
    .catch((err: unknown) => {
      if (err instanceof InvitationRaceError) return invitationGone();
      throw err;
    });
}

/** Thrown inside the transaction to roll back the person made for an invitation used meanwhile. */
class InvitationRaceError extends Error {}

/**
 * The first owner's set-up link (first start, src/main.ts): an owner invitation naming no e-mail,
 * for a merchant that has no people yet; undefined when it has some.
 */
export async function firstOwnerLink(deps: TeamDeps, merchantId: string): Promise<Invited | undefined> {
  const now = deps.clock.now();
  const by: MerchantAuditSubject = { merchantId, environment: 'production', actor: { kind: 'operator', name: 'first-start' } };
  const made = await deps.store.transaction(async (tx) => {
    if ((await countUsers(tx, merchantId)) > 0) return undefined;
    return writeInvitation(tx, by, { merchantId, email: null, role: 'owner', invitedBy: 'operator:first-start' }, now);
  });
  if (made === undefined) return undefined;
  return {
    ok: true,
    invitation: { id: made.id, email: null, role: 'owner', createdAt: now, expiresAt: made.expiresAt },
    link: invitationLink(deps, made.token),
    mailed: false,
  };
}

/**
 * The operator's invitation (first start, `tributary users create`): a one-time link for a person
 * of `merchantId` with `role`, made by the operator.
 */
export async function inviteAsOperator(
  deps: TeamDeps,
  input: { merchantId: string; email: string; role: string; operator: string },
): Promise<Invited | TeamRefusal> {
  const merchant = await findMerchant(deps.store, input.merchantId);
  if (merchant === undefined) return refuse('not_found', `No merchant ${input.merchantId}.`);
  const by: MerchantAuditSubject = {
    merchantId: merchant.id,
    environment: 'production',
    actor: { kind: 'operator', name: input.operator },
  };
  return inviteMember(deps, by, { email: input.email, role: input.role });
}

// ---- role change, removal, ownership ----

export async function changeRole(
  deps: TeamDeps,
  by: Acting,
  userId: string,
  newRole: string,
): Promise<{ ok: true } | TeamRefusal> {
  if (!isRole(newRole)) return refuse('invalid', `The role must be one of ${ROLES.join(', ')}.`);
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const owners = await lockOwners(tx, by.merchantId);
    const target = await findMemberOf(tx, by.merchantId, userId);
    if (target === undefined) return refuse('not_found', 'No such member.');
    const refusal = mayManage(by, target.role) ?? mayManage(by, newRole);
    if (refusal !== undefined) return refusal;
    if (target.role === newRole) return { ok: true as const };
    if (target.role === 'owner' && owners <= 1) {
      return refuse('last_owner', 'This is the last owner: make another member owner first (transfer ownership).');
    }
    await setUserRole(tx, target.id, newRole);
    await audit(tx, by, now, 'member.role_changed', 'user', target.id, {
      email: target.email,
      role: { from: target.role, to: newRole },
    });
    return { ok: true as const };
  });
}

export async function removeMember(deps: TeamDeps, by: Acting, userId: string): Promise<{ ok: true } | TeamRefusal> {
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const owners = await lockOwners(tx, by.merchantId);
    const target = await findMemberOf(tx, by.merchantId, userId);
    if (target === undefined) return refuse('not_found', 'No such member.');
    const refusal = mayManage(by, target.role);
    if (refusal !== undefined) return refusal;
    if (target.role === 'owner' && owners <= 1) return refuse('last_owner', 'The last owner cannot be removed.');
    await markUserRemoved(tx, target.id, now);
    // Their sessions end now (the session lookup also refuses a removed person).
    await endSessionsOfUser(tx, target.id, now);
    await audit(tx, by, now, 'member.removed', 'user', target.id, { email: target.email, role: target.role });
    return { ok: true as const };
  });
}

/** An owner hands ownership to another member: they become owner, the owner becomes admin. */
export async function transferOwnership(deps: TeamDeps, by: Acting, userId: string): Promise<{ ok: true } | TeamRefusal> {
  if (by.actor.kind !== 'user' || by.actor.role !== 'owner') return refuse('forbidden', 'Only an owner can transfer ownership.');
  const fromId = by.actor.userId;
  if (userId === fromId) return refuse('invalid', 'Choose another member to transfer ownership to.');
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    await lockOwners(tx, by.merchantId);
    const from = await findMemberOf(tx, by.merchantId, fromId);
    const to = await findMemberOf(tx, by.merchantId, userId);
    if (from === undefined || from.role !== 'owner') return refuse('forbidden', 'Only an owner can transfer ownership.');
    if (to === undefined) return refuse('not_found', 'No such member.');
    await setUserRole(tx, to.id, 'owner');
    await setUserRole(tx, from.id, 'admin');
    await audit(tx, by, now, 'member.ownership_transferred', 'user', to.id, {
      to: { email: to.email, role: { from: to.role, to: 'owner' } },
      from: { email: from.email, role: { from: 'owner', to: 'admin' } },
    });
    return { ok: true as const };
  });
}
