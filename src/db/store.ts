/**
 * The store: the one thing every repo function talks to. Two implementations, chosen at start:
 * PGlite in DATA_DIR (embedded, the default) and PostgreSQL through a pg pool (DATABASE_URL).
 *
 * Repo functions take a `Queryable`, so the same function runs on the store itself or inside a
 * transaction. Inside `transaction(fn)`, use only the `tx` handed to `fn`: PGlite is a single
 * session, and a query on the store itself would wait for the open transaction forever.
 *
 * Values are normalised here, once: int8 → bigint on both drivers, timestamptz → Date, jsonb →
 * parsed JSON. Pass jsonb parameters as JSON text (`JSON.stringify`), never as JS arrays (pg would
 * turn an array into a SQL array).
 */
export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface Connection extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

export type StoreKind = 'embedded' | 'postgres';

export interface Store extends Connection {
  readonly kind: StoreKind;
  /** Runs `fn` on one dedicated session (for session-level advisory locks). */
  withConnection<T>(fn: (conn: Connection) => Promise<T>): Promise<T>;
  /** Resolves when the database answers within `timeoutMs`, rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
  /**
   * Embedded only: copies the data directory into `into` (a new directory) between transactions,
   * with writes held back for the copy only (docs/backups.md). Absent on PostgreSQL.
   */
  snapshot?(into: string): Promise<{ pauseMs: number }>;
  /**
   * Embedded only: milliseconds since the store last had a call in flight (0 while one is; a
   * transaction counts from its BEGIN to its end). The maintenance pass and the overview's refresh
   * wait for a quiet store (decision 0034). Absent on PostgreSQL, whose own processes do such work
   * beside the requests.
   */
  quietForMs?(): number;
}
