import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import { listMerchants } from '../modules/merchants/merchant-repo.ts';
import {
  parseMerchantSettings,
  readMerchantSettingsDocument,
  saveMerchantSettings,
} from '../modules/merchants/merchant-settings.ts';
import { createMerchantService, OPERATOR } from '../modules/merchants/merchant-service.ts';
import type { SettlementDeps } from '../modules/settlement/settlement-ingest.ts';
import { inviteAsOperator, listTeam } from '../modules/team/index.ts';
import type { Environment } from '../kernel/index.ts';
import { auditCommand } from './audit-command.ts';
import { listExceptionsCommand, resolveExceptionCommand } from './settlement-exceptions.ts';
import { importReportCommand } from './settlement-import.ts';

/**
 * The operator's store commands (`merchants …`, `keys …`, `settlement …`), as one function of the
 * store. The CLI runs it on a store it opened itself (PostgreSQL, or an embedded DATA_DIR no server
 * holds) and a running embedded server runs it for the CLI on its admin socket (DATA_DIR/admin.sock,
 * owner-only), because two processes must never open one PGlite directory (decision 0021). One
 * code path, so the answer is the same whichever process ran it.
 */
export const ADMIN_COMMANDS = [
  'merchants create',
  'merchants list',
  'merchants settings',
  'keys create',
  'keys list',
  'keys revoke',
  'keys roll',
  'settlement exceptions',
  'settlement resolve',
  'settlement import',
  'audit',
  'users create',
  'users list',
] as const;
export type AdminCommand = (typeof ADMIN_COMMANDS)[number];

export const isAdminCommand = (command: string): command is AdminCommand =>
  (ADMIN_COMMANDS as readonly string[]).includes(command);

/** A command, its one positional argument and its string options: what crosses the admin socket. */
export interface AdminInvocation {
  command: AdminCommand;
  arg: string | null;
  options: Partial<Record<AdminOption, string>>;
}

/** Every option an admin command reads (all strings; `--json` is the printer's, never sent). */
export const ADMIN_OPTIONS = [
  'name',
  'merchant',
  'environment',
  'overlap-hours',
  'set',
  'status',
  'connector',
  'note',
  'action',
  'limit',
  'email',
  'role',
] as const;
export type AdminOption = (typeof ADMIN_OPTIONS)[number];

export interface AdminDeps {
  store: Store;
  clock: Clock;
  secret: string;
  /** What `settlement import` needs (connectors, deadlines); absent: that command is refused. */
  settlement?: SettlementDeps;
  /** Where the dashboard is reached: `users create` prints a set-up link under it. */
  publicBaseUrl: string;
}

/** A mistake of the operator's (unknown merchant, bad option): exit code 2, message as is. */
export class AdminUsageError extends Error {
  override name = 'AdminUsageError';
}

export interface AdminOutput {
  value: unknown;
  human: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

function environmentArg(value: string | undefined): Environment {
  if (value === 'sandbox' || value === 'production') return value;
  throw new AdminUsageError('--environment must be sandbox or production');
}

export async function runAdminCommand(deps: AdminDeps, invocation: AdminInvocation): Promise<AdminOutput> {
  const { store, clock } = deps;
  const merchants = createMerchantService({ store, clock, secret: deps.secret });
  const o = invocation.options;
  const arg = invocation.arg ?? undefined;
  switch (invocation.command) {
    case 'merchants create': {
      const name = o.name?.trim();
      if (name === undefined || name === '' || name.length > 200)
        throw new AdminUsageError('--name is required (1-200 characters)');
      const created = await merchants.createMerchant(name, OPERATOR);
      return {
        value: { id: created.merchant.id, api_keys: { sandbox: created.sandbox.secret, production: created.production.secret } },
        human: `Created merchant ${created.merchant.id} (${name}). Keys (shown once):\n  sandbox    ${created.sandbox.secret}\n  production ${created.production.secret}`,
      };
    }
    case 'merchants list': {
      const list = await listMerchants(store, 1000);
      return {
        value: list.map((m) => ({ id: m.id, name: m.name, api_version: m.apiVersion, created_at: iso(m.createdAt) })),
        human: list.map((m) => `${m.id}  ${m.name}`).join('\n') || 'no merchants',
      };
    }
    case 'merchants settings': {
      if (arg === undefined) throw new AdminUsageError('merchants settings MER_ID [--set JSON]');
      if (o.set !== undefined) {
        let document: unknown;
        try {
          document = JSON.parse(o.set);
        } catch {
          throw new AdminUsageError('--set must be a JSON object');
        }
        if (typeof document !== 'object' || document === null || Array.isArray(document)) {
          throw new AdminUsageError('--set must be a JSON object');
        }
        if (!(await saveMerchantSettings(store, arg, document as Record<string, unknown>, OPERATOR, clock.now()))) {
          throw new AdminUsageError(`no merchant ${arg}`);
        }
      }
      const stored = await readMerchantSettingsDocument(store, arg);
      if (stored === undefined) throw new AdminUsageError(`no merchant ${arg}`);
      const effective = parseMerchantSettings(stored);
      const view = {
        id: arg,
        settings: stored,
        effective: {
          late_payment_policy: effective.latePaymentPolicy,
          instruction_ttl_ms: effective.instructionTtlMs,
          routing: effective.routing,
        },
      };
      return { value: view, human: JSON.stringify(view, null, 2) };
    }
    case 'keys create': {
      if (o.merchant === undefined) throw new AdminUsageError('--merchant is required');
      const issued = await merchants.createKey(o.merchant, environmentArg(o.environment), OPERATOR);
      if (issued === undefined) throw new AdminUsageError(`no merchant ${o.merchant}`);
      return {
        value: {
          id: issued.key.id,
          merchant_id: issued.key.merchantId,
          environment: issued.key.environment,
          api_key: issued.secret,
        },
        human: `Created ${issued.key.id} (${issued.key.environment}). Key (shown once): ${issued.secret}`,
      };
    }
    case 'keys list': {
      if (o.merchant === undefined) throw new AdminUsageError('--merchant is required');
      const keys = await merchants.listKeys(o.merchant);
      const rows = keys.map((k) => ({
        id: k.id,
        environment: k.environment,
        prefix: k.displayPrefix,
        created_at: iso(k.createdAt),
        expires_at: iso(k.expiresAt),
        revoked_at: iso(k.revokedAt),
      }));
      return {
        value: rows,
        human:
          rows
            .map(
              (k) =>
                `${k.id}  ${k.environment.padEnd(10)} ${k.prefix}  ${k.revoked_at === null ? (k.expires_at === null ? 'active' : `expires ${k.expires_at}`) : 'revoked'}`,
            )
            .join('\n') || 'no keys',
      };
    }
    case 'keys revoke': {
      if (arg === undefined) throw new AdminUsageError('keys revoke KEY_ID');
      const outcome = await merchants.revokeKey(arg, OPERATOR);
      if (outcome === 'not_found') throw new AdminUsageError(`no key ${arg}`);
      return {
        value: { id: arg, revoked: true },
        human: outcome === 'revoked' ? `Revoked ${arg}` : `${arg} was already revoked`,
      };
    }
    case 'keys roll': {
      if (arg === undefined) throw new AdminUsageError('keys roll KEY_ID');
      const hoursText = o['overlap-hours'] ?? '24';
      if (!/^\d+$/.test(hoursText) || Number(hoursText) > 24 * 30) throw new AdminUsageError('--overlap-hours must be 0-720');
      const rolled = await merchants.rollKey(arg, Number(hoursText) * 3_600_000, OPERATOR);
      if (rolled === undefined) throw new AdminUsageError(`no active key ${arg}`);
      return {
        value: {
          id: rolled.issued.key.id,
          api_key: rolled.issued.secret,
          previous_key: { id: arg, expires_at: iso(rolled.oldExpiresAt) },
        },
        human: `New key ${rolled.issued.key.id} (shown once): ${rolled.issued.secret}\n${arg} keeps working until ${iso(rolled.oldExpiresAt)}`,
      };
    }
    case 'settlement exceptions':
    case 'settlement resolve': {
      const resolve = invocation.command === 'settlement resolve';
      if (resolve && arg === undefined) throw new AdminUsageError('settlement resolve STX_ID --note TEXT');
      const out = resolve
        ? await resolveExceptionCommand(store, arg as string, o.note, clock.now())
        : await listExceptionsCommand(store, {
            ...(o.status === undefined ? {} : { status: o.status }),
            ...(o.connector === undefined ? {} : { connector: o.connector }),
            ...(o.merchant === undefined ? {} : { merchant: o.merchant }),
          });
      if (!out.ok) throw new AdminUsageError(out.problem);
      return { value: out.value, human: out.human };
    }
    case 'audit': {
      const out = await auditCommand(store, o);
      if (!out.ok) throw new AdminUsageError(out.problem);
      return { value: out.value, human: out.human };
    }
    case 'users create': {
      // A person joins by a one-time set-up link (password, authenticator): docs/team.md, "First start".
      if (o.merchant === undefined || o.email === undefined) {
        throw new AdminUsageError(
          'users create --merchant MER_ID --email EMAIL [--role owner|admin|developer|finance|support|viewer]',
        );
      }
      const invited = await inviteAsOperator(
        { store, clock, secret: deps.secret, publicBaseUrl: deps.publicBaseUrl },
        { merchantId: o.merchant, email: o.email, role: o.role ?? 'owner', operator: 'cli' },
      );
      if (!invited.ok) throw new AdminUsageError(invited.message);
      return {
        value: {
          invitation_id: invited.invitation.id,
          email: invited.invitation.email,
          role: invited.invitation.role,
          setup_url: invited.link,
          expires_at: iso(invited.invitation.expiresAt),
        },
        human: `Set-up link for ${invited.invitation.email} (${invited.invitation.role}), works once until ${iso(invited.invitation.expiresAt)}:\n  ${invited.link}`,
      };
    }
    case 'users list': {
      if (o.merchant === undefined) throw new AdminUsageError('--merchant is required');
      const team = await listTeam({ store, clock }, o.merchant);
      const value = {
        users: team.members.map((m) => ({ id: m.id, email: m.email, role: m.role, created_at: iso(m.createdAt) })),
        invitations: team.invitations.map((i) => ({ id: i.id, email: i.email, role: i.role, expires_at: iso(i.expiresAt) })),
      };
      const human = [
        ...value.users.map((u) => `${u.id}  ${u.role.padEnd(9)} ${u.email}`),
        ...value.invitations.map((i) => `${i.id}  ${i.role.padEnd(9)} ${i.email}  (invited, until ${i.expires_at})`),
      ];
      return { value, human: human.join('\n') || 'no users' };
    }
    case 'settlement import': {
      if (deps.settlement === undefined) throw new AdminUsageError('settlement import is not available here');
      const out = await importReportCommand(deps.settlement, o.connector, arg);
      if (!out.ok) throw new AdminUsageError(out.problem);
      return { value: out.value, human: out.human };
    }
  }
}

/** The invocation from the socket's JSON, checked field by field (the socket is owner-only, but still). */
export function adminInvocationOf(raw: unknown): AdminInvocation | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r['command'] !== 'string' || !isAdminCommand(r['command'])) return undefined;
  if (r['arg'] !== null && typeof r['arg'] !== 'string') return undefined;
  const options: Partial<Record<AdminOption, string>> = {};
  const given = r['options'];
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return undefined;
  for (const [name, value] of Object.entries(given)) {
    if (!(ADMIN_OPTIONS as readonly string[]).includes(name) || typeof value !== 'string') return undefined;
    options[name as AdminOption] = value;
  }
  return { command: r['command'], arg: r['arg'], options };
}
