/** The public entry of the team module (docs/team.md): people, roles, invitations, two-factor sign-in. */
export { type Permission, PERMISSIONS, roleMay } from './permissions.ts';
