import type { MerchantSettings } from './merchant-settings.ts';

/** Every row and every query belongs to one merchant in one environment; the key decides which. */
export type Environment = 'sandbox' | 'production';

/** A dashboard person's role (docs/team.md): what each may do is one table, `modules/team/permissions.ts`. */
export const ROLES = ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who did it, as the audit log records it (docs/audit-log.md): an API key (by its id and the
 * displayable prefix, never the secret), a person signed into the dashboard, or the operator on
 * the host (the CLI, the admin socket), by name; or the service itself acting for a payer or in a job
 * (`system`, named after what acted: `checkout:cs_…`, `completer`).
 */
export type Actor =
  | { kind: 'api_key'; keyId: string; keyPrefix: string }
  | { kind: 'user'; userId: string; email: string; role: Role }
  | { kind: 'operator'; name: string }
  | { kind: 'system'; name: string };

/** Where a request came from, for the audit log: set per request by the HTTP layer, absent elsewhere. */
export interface RequestOrigin {
  address: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** Who is calling: decided by the API key or the dashboard session, scoping every query. */
export interface Principal {
  merchantId: string;
  merchantName: string;
  environment: Environment;
  apiVersion: string;
  actor: Actor;
  origin?: RequestOrigin;
  /**
   * The merchant's settings as read with the key (cached with it by the authenticator, so a
   * settings change takes effect within AUTH_CACHE_TTL_MS, like a revocation). Absent when the
   * caller did not come through the authenticator: read them then.
   */
  settings?: MerchantSettings;
}

/** The API key a principal acts with, when it is one (the dashboard's key screen marks "this session"). */
export const keyIdOf = (principal: Principal): string | undefined =>
  principal.actor.kind === 'api_key' ? principal.actor.keyId : undefined;
