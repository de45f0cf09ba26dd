import type { Role } from '../../kernel/index.ts';

/**
 * What each dashboard role may do (docs/team.md): the one table every dashboard page and action
 * is checked against. Reading payments and what follows them is for everyone; each change belongs
 * to the roles whose work it is. API keys are not people: a key acts with every permission of its
 * environment (docs/team.md, "Keys and people"), and a sandbox key's dashboard session likewise.
 */
export const PERMISSIONS = {
  /** Payments, checkouts, payment links, events and their timelines, settlements, the overview. */
  'payments.read': ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
  'payments.cancel': ['owner', 'admin', 'support'],
  'checkouts.expire': ['owner', 'admin', 'support'],
  'events.redeliver': ['owner', 'admin', 'developer', 'support'],
  'payer_data.erase': ['owner', 'admin', 'support'],
  'payment_links.manage': ['owner', 'admin', 'finance'],
  'refunds.create': ['owner', 'admin', 'finance'],
  'balance.read': ['owner', 'admin', 'finance', 'viewer'],
  'reconciliation.run': ['owner', 'admin', 'finance'],
  'settlement_exceptions.resolve': ['owner', 'admin', 'finance'],
  'keys.read': ['owner', 'admin', 'developer'],
  'keys.manage': ['owner', 'admin', 'developer'],
  'webhooks.read': ['owner', 'admin', 'developer', 'support', 'viewer'],
  'webhooks.manage': ['owner', 'admin', 'developer'],
  'sandbox.simulate': ['owner', 'admin', 'developer'],
  'settings.manage': ['owner', 'admin'],
  'team.read': ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
  /** Invite, remove, change roles (an admin cannot make, change or remove an owner). */
  'team.manage': ['owner', 'admin'],
  'team.transfer_ownership': ['owner'],
  'audit.read': ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function roleMay(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}
