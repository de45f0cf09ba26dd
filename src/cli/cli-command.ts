import type { ParseArgsConfig } from 'node:util';
import type { Tributary } from '../../sdk/src/index.ts';
import { CliUsageError, type Output } from './cli-output.ts';

/** What every merchant command is given, and the argument helpers they share (docs/cli.md). */

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CommandContext {
  out: Output;
  values: Values;
  /** What follows the command words (`payments get PAY_ID` → [PAY_ID]). */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The API key as given (never printed): `trigger` refuses a production key before any call. */
  apiKey(): string;
  /** The SDK client; the key is checked to be present when first asked for. */
  client(): Tributary;
  baseUrl: string;
}

export interface Command {
  /** The command words: `payments create`. */
  name: string;
  /** Arguments and options, for the usage text. */
  synopsis: string;
  summary: string;
  options: Options;
  /** How many positional arguments it takes after its words. */
  args: { min: number; max: number };
  run(ctx: CommandContext): Promise<void>;
}

export function stringOpt(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function requiredOpt(ctx: CommandContext, name: string): string {
  const v = stringOpt(ctx, name);
  if (v === undefined || v.trim() === '') throw new CliUsageError(`--${name} is required`);
  return v;
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliUsageError(`${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** A positional id with its prefix checked, so a typo is a usage error and not a 404. */
export function idArg(ctx: CommandContext, index: number, prefix: string, what: string): string {
  const id = ctx.args[index];
  if (id === undefined || !id.startsWith(`${prefix}_`)) throw new CliUsageError(`${what} id expected (${prefix}_…)`);
  return id;
}
