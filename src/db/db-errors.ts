/**
 * Classifies driver errors in one place. Callers ask questions ("is the database down?", "was a
 * unique constraint violated?") instead of matching SQLSTATEs all over the code.
 */

/** The database cannot be reached or is shutting down; the request may succeed later. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as DriverError).code;
  return typeof code === 'string' ? code : undefined;
}

const UNAVAILABLE_SQLSTATE_PREFIXES = ['08', '53', '57P']; // connection, resources, shutdown
// 57014 statement timeout: the database is stalled. 25006 read-only transaction: during a
// failover a connection may reach a node that is (again) a standby before the proxy's health check
// moves it away — the primary is not reachable yet, so the request may succeed later.
const UNAVAILABLE_SQLSTATES = new Set(['57014', '25006']);
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection terminated unexpectedly',
  'Query read timeout',
  'connection timeout',
  'PGlite is closed',
  'PGlite is closing',
];

export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  const code = sqlState(error);
  if (code !== undefined) {
    if (UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE_PREFIXES.some((p) => code.startsWith(p))) {
      return true;
    }
  }
  const message = error instanceof Error ? error.message : '';
  return UNAVAILABLE_MESSAGES.some((m) => message.includes(m));
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== '23505') return false;
  if (constraint === undefined) return true;
  const c = (error as DriverError).constraint;
  // PGlite does not always fill `constraint`; fall back to the message, which names it.
  if (typeof c === 'string') return c === constraint;
  const message = (error as DriverError).message;
  return typeof message === 'string' && message.includes(constraint);
}

/** Serialization failures and deadlocks: the transaction can simply be run again. */
/**
 * A named (prepared) statement met a server session that is not the one it was prepared on — no
 * such statement (26000), or one of that name already there (42P05): a transaction pooler hands
 * each transaction another session — or its result's columns changed under it since it was
 * prepared (0A000, "cached plan must not change result type": a migration by another process).
 * The statement did not run in any of these. Decision 0030.
 */
export function isNamedStatementLost(error: unknown): boolean {
  const code = sqlState(error);
  return code === '26000' || code === '42P05' || code === '0A000';
}

export function isRetryableTransactionError(error: unknown): boolean {
  const code = sqlState(error);
  return code === '40001' || code === '40P01';
}
