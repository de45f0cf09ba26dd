import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import { MigrationError } from '../db/migrate.ts';
import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { listMerchants } from '../modules/merchants/merchant-repo.ts';
import {
  parseMerchantSettings,
  readMerchantSettingsDocument,
  saveMerchantSettings,
} from '../modules/merchants/merchant-settings.ts';
import { createMerchantService } from '../modules/merchants/merchant-service.ts';
import { listExceptionsCommand, resolveExceptionCommand } from './settlement-exceptions.ts';
import { importReportCommand } from './settlement-import.ts';
import { isMerchantCommand, merchantUsage, runMerchantCli } from './merchant-cli.ts';
import { runWorker } from './worker.ts';
import { backupCommand, restoreCommand } from './backup-commands.ts';
import { BackupRefusedError } from '../db/backup/backup-format.ts';
import {
  BUILT_IN_CAPABILITIES,
  openRuntime,
  publicBaseUrl,
  resolveSecret,
  type Runtime,
  sandboxMasterSecret,
} from '../runtime.ts';
import { sandboxCredentials } from '../sandbox/sandbox-secrets.ts';
import type { Environment } from '../kernel/index.ts';

/**
 * `npx tributary …`: the operator's tool. It opens the same store the server uses (on the
 * embedded store only while the server is stopped: one process per data directory).
 */
const USAGE = `Usage: tributary <command> [options]

  merchants create --name NAME [--json]         create a merchant with a sandbox and a production key
  merchants list [--json]
  merchants settings MER_ID [--set JSON] [--json] show (or replace) settings: late_payment_policy,
                                                 instruction_ttl_seconds, routing (docs/payments.md)
  keys create --merchant MER_ID --environment sandbox|production [--json]
  keys list --merchant MER_ID [--json]
  keys revoke KEY_ID [--json]
  keys roll KEY_ID [--overlap-hours N] [--json]  new key now, old one expires after N hours (default 24)
  sandbox keys [--json]                          the sandbox providers' API keys (for their control API, docs/sandbox.md)
  settlement exceptions [--status open|resolved] [--connector C] [--merchant MER_ID] [--json]
                                                 report lines the settlement ingestion did not apply (docs/money.md)
  settlement resolve STX_ID --note TEXT [--json] mark one resolved, with what was done (final)
  settlement import --connector C FILE [--json]  apply a provider's settlement report file (CSV, docs/money.md)
  backup PATH [--json]                           a consistent copy of the embedded store while the server runs (docs/backups.md)
  restore PATH [--json]                          restore a backup into an empty DATA_DIR (server stopped)
  migrate                                        apply pending migrations and exit
  worker                                         dispatch webhooks until SIGTERM (any number, on PostgreSQL)

Operator commands open the store: configuration comes from the environment (DATA_DIR, DATABASE_URL,
TRIBUTARY_SECRET); see README.`;

class UsageError extends Error {}

const iso = (d: Date | null) => d?.toISOString() ?? null;

function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

function environmentArg(value: string | undefined): Environment {
  if (value === 'sandbox' || value === 'production') return value;
  throw new UsageError('--environment must be sandbox or production');
}

async function run(argv: string[]): Promise<void> {
  // The merchant's commands talk to the API with an API key and never open the store.
  if (isMerchantCommand(argv)) {
    const code = await runMerchantCli(argv);
    // fetch's idle keep-alive connection would hold the process open for a while after the work
    // is done: exit once what was written has been flushed.
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(code);
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      merchant: { type: 'string' },
      environment: { type: 'string' },
      'overlap-hours': { type: 'string' },
      set: { type: 'string' },
      status: { type: 'string' },
      connector: { type: 'string' },
      note: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, action, arg] = positionals;
  if (values.help || group === undefined) {
    process.stdout.write(`${USAGE}\n\n${merchantUsage()}\n`);
    return;
  }
  const config = loadConfig();
  if (`${group} ${action ?? ''}`.trim() === 'sandbox keys') {
    // Needs only the secret, not the store: works while an embedded server holds DATA_DIR.
    const master = sandboxMasterSecret(config, resolveSecret(config));
    const keys = Object.fromEntries(
      BUILT_IN_CAPABILITIES.filter((c) => c.simulator).map((c) => [c.connector, sandboxCredentials(master, c.connector).apiKey]),
    );
    print(
      values.json,
      keys,
      Object.entries(keys)
        .map(([connector, key]) => `${connector.padEnd(16)} ${key}`)
        .join('\n'),
    );
    return;
  }
  if (group === 'backup' || group === 'restore') {
    // Neither opens the runtime: the running server holds DATA_DIR (backup asks it), and a restore
    // writes an empty one.
    if (action === undefined) throw new UsageError(`${group} PATH`);
    const out = group === 'backup' ? await backupCommand(config, action) : await restoreCommand(config, action);
    print(values.json, out.value, out.human);
    return;
  }
  const log = createLogger(process.env['LOG_LEVEL'] ?? (group === 'worker' ? 'info' : 'warn'));
  const runtime: Runtime = await openRuntime(config, 'cli', log);
  try {
    const merchants = createMerchantService({ store: runtime.store, clock: systemClock, secret: runtime.secret });
    const json = values.json;
    const command = `${group} ${action ?? ''}`.trim();
    switch (command) {
      case 'migrate':
        print(json, { ok: true }, 'migrations are up to date');
        return;
      case 'worker':
        await runWorker(config, runtime, log);
        return;
      case 'merchants create': {
        const name = values.name?.trim();
        if (name === undefined || name === '' || name.length > 200) throw new UsageError('--name is required (1-200 characters)');
        const created = await merchants.createMerchant(name);
        print(
          json,
          { id: created.merchant.id, api_keys: { sandbox: created.sandbox.secret, production: created.production.secret } },
          `Created merchant ${created.merchant.id} (${name}). Keys (shown once):\n  sandbox    ${created.sandbox.secret}\n  production ${created.production.secret}`,
        );
        return;
      }
      case 'merchants list': {
        const list = await listMerchants(runtime.store, 1000);
        print(
          json,
          list.map((m) => ({ id: m.id, name: m.name, api_version: m.apiVersion, created_at: iso(m.createdAt) })),
          list.map((m) => `${m.id}  ${m.name}`).join('\n') || 'no merchants',
        );
        return;
      }
      case 'merchants settings': {
        if (arg === undefined) throw new UsageError('merchants settings MER_ID [--set JSON]');
        if (values.set !== undefined) {
          let document: unknown;
          try {
            document = JSON.parse(values.set);
          } catch {
            throw new UsageError('--set must be a JSON object');
          }
          if (typeof document !== 'object' || document === null || Array.isArray(document)) {
            throw new UsageError('--set must be a JSON object');
          }
          if (!(await saveMerchantSettings(runtime.store, arg, document as Record<string, unknown>))) {
            throw new UsageError(`no merchant ${arg}`);
          }
        }
        const stored = await readMerchantSettingsDocument(runtime.store, arg);
        if (stored === undefined) throw new UsageError(`no merchant ${arg}`);
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
        print(json, view, JSON.stringify(view, null, 2));
        return;
      }
      case 'keys create': {
        if (values.merchant === undefined) throw new UsageError('--merchant is required');
        const issued = await merchants.createKey(values.merchant, environmentArg(values.environment));
        if (issued === undefined) throw new UsageError(`no merchant ${values.merchant}`);
        print(
          json,
          { id: issued.key.id, merchant_id: issued.key.merchantId, environment: issued.key.environment, api_key: issued.secret },
          `Created ${issued.key.id} (${issued.key.environment}). Key (shown once): ${issued.secret}`,
        );
        return;
      }
      case 'keys list': {
        if (values.merchant === undefined) throw new UsageError('--merchant is required');
        const keys = await merchants.listKeys(values.merchant);
        const rows = keys.map((k) => ({
          id: k.id,
          environment: k.environment,
          prefix: k.displayPrefix,
          created_at: iso(k.createdAt),
          expires_at: iso(k.expiresAt),
          revoked_at: iso(k.revokedAt),
        }));
        print(
          json,
          rows,
          rows
            .map(
              (k) =>
                `${k.id}  ${k.environment.padEnd(10)} ${k.prefix}  ${k.revoked_at === null ? (k.expires_at === null ? 'active' : `expires ${k.expires_at}`) : 'revoked'}`,
            )
            .join('\n') || 'no keys',
        );
        return;
      }
      case 'keys revoke': {
        if (arg === undefined) throw new UsageError('keys revoke KEY_ID');
        const outcome = await merchants.revokeKey(arg);
        if (outcome === 'not_found') throw new UsageError(`no key ${arg}`);
        print(json, { id: arg, revoked: true }, outcome === 'revoked' ? `Revoked ${arg}` : `${arg} was already revoked`);
        return;
      }
      case 'keys roll': {
        if (arg === undefined) throw new UsageError('keys roll KEY_ID');
        const hoursText = values['overlap-hours'] ?? '24';
        if (!/^\d+$/.test(hoursText) || Number(hoursText) > 24 * 30) throw new UsageError('--overlap-hours must be 0-720');
        const rolled = await merchants.rollKey(arg, Number(hoursText) * 3_600_000);
        if (rolled === undefined) throw new UsageError(`no active key ${arg}`);
        print(
          json,
          {
            id: rolled.issued.key.id,
            api_key: rolled.issued.secret,
            previous_key: { id: arg, expires_at: iso(rolled.oldExpiresAt) },
          },
          `New key ${rolled.issued.key.id} (shown once): ${rolled.issued.secret}\n${arg} keeps working until ${iso(rolled.oldExpiresAt)}`,
        );
        return;
      }
      case 'settlement exceptions':
      case 'settlement resolve': {
        if (action === 'resolve' && arg === undefined) throw new UsageError('settlement resolve STX_ID --note TEXT');
        const out =
          action === 'resolve'
            ? await resolveExceptionCommand(runtime.store, arg as string, values.note, systemClock.now())
            : await listExceptionsCommand(runtime.store, {
                ...(values.status === undefined ? {} : { status: values.status }),
                ...(values.connector === undefined ? {} : { connector: values.connector }),
                ...(values.merchant === undefined ? {} : { merchant: values.merchant }),
              });
        if (!out.ok) throw new UsageError(out.problem);
        print(json, out.value, out.human);
        return;
      }
      case 'settlement import': {
        const deps = {
          store: runtime.store,
          clock: systemClock,
          log,
          publicBaseUrl: publicBaseUrl(config),
          connectors: runtime.connectors,
          connectorTimeoutMs: config.connectorTimeoutMs,
        };
        const out = await importReportCommand(deps, values.connector, arg);
        if (!out.ok) throw new UsageError(out.problem);
        print(json, out.value, out.human);
        return;
      }
      default:
        throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
    }
  } finally {
    await runtime.close();
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof DataDirInUseError ||
    error instanceof MigrationError ||
    error instanceof BackupRefusedError
  ) {
    process.stderr.write(`tributary: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
