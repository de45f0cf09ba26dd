/** The public entry of the team module (docs/team.md): people, roles, invitations, two-factor sign-in. */
export { type Permission, PERMISSIONS, roleMay } from './permissions.ts';
export {
  createDashboardSessions,
  type DashboardSession,
  type DashboardSessions,
  SESSION_MAX_AGE_MS,
} from './dashboard-sessions.ts';
export {
  acceptInvitation,
  changeRole,
  INVITATION_TTL_MS,
  inviteAsOperator,
  inviteMember,
  isRole,
  listTeam,
  type Member,
  openInvitation,
  type PendingInvitation,
  removeMember,
  revokeInvitation,
  signSetupSecret,
  type TeamDeps,
  type TeamRefusal,
  teamSize,
  firstOwnerLink,
  transferOwnership,
} from './members.ts';
export { createInvitationMailer } from './invitation-mailer.ts';
export { PASSWORD_MIN_LENGTH } from './passwords.ts';
export {
  codeStep,
  MAX_FAILURES_PER_ACCOUNT,
  MAX_FAILURES_PER_ADDRESS,
  NOT_RIGHT,
  passwordStep,
  type SignInDeps,
  signOut,
} from './sign-in.ts';
export { newTotpSecret, totpCodeAt, totpUri } from './totp.ts';
