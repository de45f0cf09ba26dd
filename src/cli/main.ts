import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import { MigrationError } from '../db/migrate.ts';
import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { resolve as resolvePath } from 'node:path';
import { AdminRequestFailed, NoServerError, requestAdmin } from '../db/backup/admin-socket.ts';
import {
  ADMIN_OPTIONS,
  type AdminCommand,
  type AdminInvocation,
  type AdminOutput,
  AdminUsageError,
  isAdminCommand,
  runAdminCommand,
} from './admin-commands.ts';
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

/**
 * `npx tributary …`: the operator's tool. It opens the same store the server uses; on the embedded
 * store, while a server holds DATA_DIR (one process per data directory), the store commands are
 * run by that server over DATA_DIR/admin.sock instead (src/cli/admin-commands.ts).
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
  audit [--merchant MER_ID] [--action A] [--limit N] [--json]
                                                 the audit log, newest first (docs/audit-log.md)
  users create --merchant MER_ID --email EMAIL [--role ROLE] [--json]
                                                 a one-time set-up link for a dashboard person (default role owner; docs/team.md)
  users list --merchant MER_ID [--json]          the merchant's people and pending invitations
  backup PATH [--json]                           a consistent copy of the embedded store while the server runs (docs/backups.md)
  restore PATH [--json]                          restore a backup into an empty DATA_DIR (server stopped)
  migrate                                        apply pending migrations and exit
  worker                                         dispatch webhooks until SIGTERM (any number, on PostgreSQL)

Operator commands open the store: configuration comes from the environment (DATA_DIR, DATABASE_URL,
TRIBUTARY_SECRET); see README. On the embedded store, while a server runs on DATA_DIR, merchants,
keys, users, settlement and audit commands are run by that server (DATA_DIR/admin.sock, owner-only).`;

class UsageError extends Error {}

/** A settlement import of a large file takes a while; store commands answer in milliseconds. */
const ADMIN_TIMEOUT_MS = 5 * 60_000;

function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** The command line as the shared admin code takes it; a file argument made absolute for the server. */
function invocationOf(command: AdminCommand, arg: string | undefined, values: Record<string, unknown>): AdminInvocation {
  const options: AdminInvocation['options'] = {};
  for (const name of ADMIN_OPTIONS) {
    const value = values[name];
    if (typeof value === 'string') options[name] = value;
  }
  const positional = arg === undefined ? null : command === 'settlement import' ? resolvePath(arg) : arg;
  return { command, arg: positional, options };
}

/** The running server's answer, or undefined when no server listens on DATA_DIR/admin.sock. */
async function askRunningServer(dataDir: string, invocation: AdminInvocation): Promise<AdminOutput | undefined> {
  try {
    return (await requestAdmin(resolvePath(dataDir), { op: 'command', ...invocation }, ADMIN_TIMEOUT_MS)) as AdminOutput;
  } catch (error) {
    if (error instanceof NoServerError) return undefined;
    if (error instanceof AdminRequestFailed) throw new UsageError(`${error.message} (answered by the running server)`);
    throw error;
  }
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
      action: { type: 'string' },
      limit: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
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
  const command = `${group} ${action ?? ''}`.trim();
  const invocation = isAdminCommand(command) ? invocationOf(command, arg, values) : undefined;
  if (invocation !== undefined && config.databaseUrl === undefined) {
    // A running embedded server holds DATA_DIR (decision 0021): ask it, over its owner-only socket,
    // to run the command. No server answering: open the directory ourselves, below.
    const out = await askRunningServer(config.dataDir, invocation);
    if (out !== undefined) {
      print(values.json, out.value, out.human);
      return;
    }
  }
  const log = createLogger(process.env['LOG_LEVEL'] ?? (group === 'worker' ? 'info' : 'warn'));
  const runtime: Runtime = await openRuntime(config, 'cli', log);
  try {
    const json = values.json;
    if (invocation !== undefined) {
      const out = await runAdminCommand(
        {
          store: runtime.store,
          clock: systemClock,
          secret: runtime.secret,
          publicBaseUrl: publicBaseUrl(config),
          settlement: {
            store: runtime.store,
            clock: systemClock,
            log,
            publicBaseUrl: publicBaseUrl(config),
            connectors: runtime.connectors,
            connectorTimeoutMs: config.connectorTimeoutMs,
          },
        },
        invocation,
      );
      print(json, out.value, out.human);
      return;
    }
    switch (command) {
      case 'migrate':
        print(json, { ok: true }, 'migrations are up to date');
        return;
      case 'worker':
        await runWorker(config, runtime, log);
        return;
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
    error instanceof AdminUsageError ||
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
