import { parseArgs } from 'node:util';
import { Tributary, TributaryError } from '../../sdk/src/index.ts';
import { CliUsageError, EXIT_API_ERROR, EXIT_OK, EXIT_USAGE, Output } from './cli-output.ts';
import type { Command, Options, Values } from './cli-command.ts';
import { CHECKOUT_COMMANDS } from './checkouts-commands.ts';
import { EVENTS_COMMANDS } from './events-commands.ts';
import { LISTEN_COMMAND } from './listen-command.ts';
import { PAYMENT_LINK_COMMANDS } from './payment-links-commands.ts';
import { PAYMENTS_COMMANDS } from './payments-commands.ts';
import { REFUNDS_COMMANDS } from './refunds-commands.ts';
import { SANDBOX_COMMANDS } from './sandbox-commands.ts';
import { TRIGGER_COMMAND } from './trigger-command.ts';

/**
 * The merchant's commands of the `tributary` bin (docs/cli.md): the API through the SDK
 * (`@tributary/node`, sdk/src), with a merchant API key. Unlike the operator commands they never
 * open the store, so they run from any machine that reaches the API.
 */

const GLOBAL_OPTIONS: Options = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

const COMMANDS: readonly Command[] = [
  ...PAYMENTS_COMMANDS,
  ...CHECKOUT_COMMANDS,
  ...PAYMENT_LINK_COMMANDS,
  ...REFUNDS_COMMANDS,
  ...EVENTS_COMMANDS,
  ...SANDBOX_COMMANDS,
  LISTEN_COMMAND,
  TRIGGER_COMMAND,
];

const GROUPS = new Set(COMMANDS.map((c) => c.name.split(' ')[0]));

/** The usage lines of every merchant command, for `tributary --help`. */
export function merchantUsage(): string {
  const width = 46;
  const lines = COMMANDS.map((c) => {
    const head = `  ${c.name}${c.synopsis === '' ? '' : ` ${c.synopsis}`}`;
    return head.length + 1 > width ? `${head}\n${' '.repeat(width + 1)}${c.summary}` : `${head.padEnd(width)} ${c.summary}`;
  });
  return [
    'Merchant commands (the API, with TRIBUTARY_API_KEY or --api-key; TRIBUTARY_BASE_URL or --base-url,',
    `default ${DEFAULT_BASE_URL}; --json for scripts; docs/cli.md):`,
    '',
    ...lines,
  ].join('\n');
}

/**
 * True when argv names a merchant command. The command words come first (`tributary payments
 * list --json`); `sandbox keys` stays an operator command, `sandbox simulate` is a merchant one.
 */
export function isMerchantCommand(argv: readonly string[]): boolean {
  const [group, action] = argv;
  if (group === undefined || !GROUPS.has(group)) return false;
  if (group === 'sandbox') return action === 'simulate';
  return true;
}

function findCommand(argv: readonly string[]): { command: Command | undefined; rest: string[] } {
  const [group, action] = argv;
  const two = COMMANDS.find((c) => c.name === `${group} ${action}`);
  if (two !== undefined) return { command: two, rest: argv.slice(2) };
  const one = COMMANDS.find((c) => c.name === group);
  if (one !== undefined) return { command: one, rest: argv.slice(1) };
  return { command: undefined, rest: [] };
}

function usageOf(command: Command): string {
  return `Usage: tributary ${command.name}${command.synopsis === '' ? '' : ` ${command.synopsis}`}\n\n${command.summary}\n\nAlso: --api-key KEY, --base-url URL, --json (docs/cli.md)`;
}

/** Runs one merchant command; resolves with the process exit code (0, 1 API error, 2 usage). */
export async function runMerchantCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const json = argv.includes('--json');
  const { command, rest } = findCommand(argv);
  if (command === undefined) {
    const group = argv[0] ?? '';
    const actions = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name);
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(`${actions.map((a) => usageOf(COMMANDS.find((c) => c.name === a) as Command)).join('\n\n')}\n`);
      return EXIT_OK;
    }
    process.stderr.write(`tributary: unknown command "${argv.slice(0, 2).join(' ')}"; try: ${actions.join(', ')}\n`);
    return EXIT_USAGE;
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, options: { ...GLOBAL_OPTIONS, ...command.options } });
  } catch (error) {
    process.stderr.write(`tributary: ${(error as Error).message}\n\n${usageOf(command)}\n`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (values['help'] === true) {
    process.stdout.write(`${usageOf(command)}\n`);
    return EXIT_OK;
  }
  const out = new Output({ json, env });
  try {
    if (positionals.length < command.args.min || positionals.length > command.args.max) {
      throw new CliUsageError(`wrong number of arguments\n\n${usageOf(command)}`);
    }
    const baseUrl = baseUrlOf(values['base-url'] as string | undefined, env);
    let client: Tributary | undefined;
    const apiKey = () => {
      const key = (values['api-key'] as string | undefined) ?? env['TRIBUTARY_API_KEY'];
      if (key === undefined || key.trim() === '') {
        throw new CliUsageError('an API key is needed: set TRIBUTARY_API_KEY (or pass --api-key sk_test_…)');
      }
      return key.trim();
    };
    await command.run({
      out,
      values,
      args: positionals,
      env,
      baseUrl,
      apiKey,
      client: () => (client ??= new Tributary(apiKey(), { baseUrl })),
    });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CliUsageError) {
      out.clearProgress();
      process.stderr.write(`tributary: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof TributaryError) {
      out.apiError(error);
      return EXIT_API_ERROR;
    }
    throw error;
  }
}

function baseUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = flag ?? env['TRIBUTARY_BASE_URL'] ?? DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliUsageError(`--base-url ${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliUsageError('--base-url must be http(s)');
  if (url.username !== '' || url.password !== '') throw new CliUsageError('--base-url must not carry credentials');
  return url.toString().replace(/\/+$/, '');
}
