import { isCurrencyCode } from '../lib/currencies.ts';
import { formatHumanAmount } from '../lib/money-display.ts';
import { parseMajorAmount, toMajorNumber } from '../lib/money.ts';
import { redactSecrets } from '../lib/logger.ts';
import type { TributaryError } from '../../sdk/src/index.ts';

/**
 * Output of the merchant commands (docs/cli.md): with `--json`, stdout carries only JSON (one
 * document, or one per line for `listen`); otherwise lines for people, coloured only when stdout
 * is a terminal and NO_COLOR is unset. Progress goes to stderr, and only when stderr is a terminal,
 * so a pipe or a test never sees a half-drawn line.
 */

/** A mistake in the command line: exit code 2, nothing was sent. */
export class CliUsageError extends Error {}

export const EXIT_OK = 0;
export const EXIT_API_ERROR = 1;
export const EXIT_USAGE = 2;

type Paint = (text: string) => string;

const ansi =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;

export interface Palette {
  green: Paint;
  red: Paint;
  yellow: Paint;
  dim: Paint;
  bold: Paint;
  cyan: Paint;
}

const plain: Paint = (text) => text;
const NO_PAINT: Palette = { green: plain, red: plain, yellow: plain, dim: plain, bold: plain, cyan: plain };
const PAINT: Palette = {
  green: ansi(32, 39),
  red: ansi(31, 39),
  yellow: ansi(33, 39),
  dim: ansi(2, 22),
  bold: ansi(1, 22),
  cyan: ansi(36, 39),
};

/** https://no-color.org: present and not empty turns colour off. */
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env['NO_COLOR'] ?? '') === '';
}

export class Output {
  readonly json: boolean;
  readonly paint: Palette;
  readonly #progressOn: boolean;
  #progressShown = false;

  constructor(options: { json: boolean; env?: NodeJS.ProcessEnv }) {
    const env = options.env ?? process.env;
    this.json = options.json;
    this.paint = !options.json && colourWanted(process.stdout, env) ? PAINT : NO_PAINT;
    this.#progressOn = !options.json && process.stderr.isTTY === true;
  }

  /** The result of a command: `value` as JSON with --json, else the human text. */
  result(value: unknown, human: () => string): void {
    this.clearProgress();
    process.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  }

  /** One line for people (not printed with --json). */
  line(text: string): void {
    if (this.json) return;
    this.clearProgress();
    process.stdout.write(`${text}\n`);
  }

  /** One JSON document on its own line (only with --json): `listen`'s stream. */
  jsonLine(value: unknown): void {
    if (!this.json) return;
    process.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** A warning for people and scripts alike: always stderr. */
  warn(text: string): void {
    this.clearProgress();
    process.stderr.write(`tributary: ${redactSecrets(text)}\n`);
  }

  /** A transient status line on a terminal (rewritten in place); nothing otherwise. */
  progress(text: string): void {
    if (!this.#progressOn) return;
    process.stderr.write(`\r\u001b[2K${this.paint.dim(text)}`);
    this.#progressShown = true;
  }

  clearProgress(): void {
    if (!this.#progressShown) return;
    process.stderr.write('\r\u001b[2K');
    this.#progressShown = false;
  }

  /**
   * An API error: its structure `{code, message, details, request_id}` as JSON on stdout with
   * --json (scripts read one stream), else a readable version on stderr. Errors without an API
   * answer (connection refused, timeout) get the same shape with the SDK's code.
   */
  apiError(error: TributaryError): void {
    this.clearProgress();
    const body = {
      code: error.code,
      message: error.message,
      details: error.details,
      request_id: error.requestId ?? null,
    };
    if (this.json) {
      process.stdout.write(`${JSON.stringify(body)}\n`);
      return;
    }
    const lines = [`${this.paint.red('error')} ${body.code}: ${redactSecrets(body.message)}`];
    for (const d of body.details) {
      const field = typeof d['field'] === 'string' ? `${d['field']}: ` : '';
      const message = typeof d['message'] === 'string' ? d['message'] : typeof d['issue'] === 'string' ? d['issue'] : '';
      lines.push(`  ${field}${redactSecrets(message)}`);
    }
    if (body.request_id !== null) lines.push(this.paint.dim(`  request ${body.request_id}`));
    if (error.statusCode === undefined && error.cause instanceof Error) lines.push(this.paint.dim(`  (${error.cause.message})`));
    process.stderr.write(`${lines.join('\n')}\n`);
  }

  /** A status word, coloured by what it means for the merchant. */
  status(status: string): string {
    if (status === 'succeeded' || status === 'completed' || status === 'active') return this.paint.green(status);
    if (status === 'pending' || status === 'processing' || status === 'open') return this.paint.yellow(status);
    if (['failed', 'expired', 'canceled', 'reversed', 'inactive'].includes(status)) return this.paint.red(status);
    return status;
  }
}

/**
 * An amount the API gave (a JSON number in major units) for people: "IDR 150,000.00". The number
 * is read back from its shortest decimal text, which is exact for every amount the API sends (at
 * most 15 significant digits, docs/decisions/0003), and formatted from the integer of minor units.
 */
/** The hint under one page of a list: how to ask for the next (nothing on the last page). */
export function nextPageHint(out: Output, page: { has_more: boolean; next_cursor?: string | null }): string {
  return page.has_more && page.next_cursor != null ? `\n${out.paint.dim(`more: --starting-after ${page.next_cursor}`)}` : '';
}

export function humanAmount(amount: number, currency: string): string {
  if (!isCurrencyCode(currency)) return `${currency} ${String(amount)}`;
  if (amount === 0) return formatHumanAmount(0n, currency);
  const parsed = parseMajorAmount(String(amount), currency);
  return parsed.ok ? formatHumanAmount(parsed.minor, currency) : `${currency} ${String(amount)}`;
}

const AMOUNT_ISSUES: Record<string, string> = {
  amount_not_a_number: 'is not a decimal number',
  amount_not_positive: 'must be greater than 0',
  amount_too_precise: 'has more decimals than the currency has minor units',
  amount_too_large: 'is too large',
};

/**
 * An `--amount` argument as the JSON number the API takes, checked exactly against the currency
 * first (src/lib/money.ts): `150000.00` IDR → 150000; `10.005` USD is refused here, before sending.
 */
export function amountArg(text: string, currency: string, flag = '--amount'): number {
  if (!isCurrencyCode(currency)) throw new CliUsageError(`unknown currency ${JSON.stringify(currency)} (ISO 4217, upper case)`);
  const parsed = parseMajorAmount(text.trim(), currency);
  if (!parsed.ok)
    throw new CliUsageError(`${flag} ${JSON.stringify(text)} ${AMOUNT_ISSUES[parsed.issue] ?? parsed.issue} (${currency})`);
  return toMajorNumber(parsed.minor, currency);
}

/** Fixed-width columns for people; the last column is not padded. */
export function table(rows: string[][], visibleLength: (s: string) => number = stripAnsiLength): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))));
  return rows
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell)))).join('  '),
    )
    .join('\n');
}

function stripAnsiLength(s: string): number {
  return s.replace(/\u001b\[\d+m/g, '').length;
}

/** A positive integer option (not money): `--limit 20`. */
export function intArg(text: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new CliUsageError(`${flag} must be an integer from ${min} to ${max}`);
  }
  return Number(text);
}
