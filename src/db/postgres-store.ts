import { createHash } from 'node:crypto';
import pg from 'pg';
import { isNamedStatementLost, isRetryableTransactionError, isStoreUnavailable, StoreUnavailableError } from './db-errors.ts';
import { isPlanStable } from './plan-stable.ts';
import type { Connection, Queryable, Row, Store } from './store.ts';

export interface PostgresStoreOptions {
  connectionString: string;
  poolSize: number;
  /** How long a request may wait for a pooled connection before it is told the database is busy. */
  connectTimeoutMs: number;
  /** Server-side statement timeout: a stalled database fails fast instead of queueing requests. */
  statementTimeoutMs: number;
  /**
   * Plan-stable statements as named prepared statements (decision 0030; default true). Behind a
   * transaction pooler without prepared-statement support (pgbouncer before 1.21) set false; if it
   * is left on there, the first statement that meets another session turns it off for the process.
   */
  preparedStatements?: boolean;
  onPoolError?: (error: Error) => void;
  /** Named statements were turned off (the error that did it): logged once by the caller. */
  onPreparedStatementsOff?: (error: Error) => void;
}

// int8 → bigint (pg hands out strings by default); everything else as pg parses it.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => BigInt(value);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

const MAX_TRANSACTION_RUNS = 3;

/** Wraps driver errors that mean "the database is unreachable" so callers can answer 503. */
function translate(error: unknown): unknown {
  if (isStoreUnavailable(error) && !(error instanceof StoreUnavailableError)) {
    return new StoreUnavailableError('database unavailable', { cause: error });
  }
  return error;
}

const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 1_000;

/**
 * A plan-stable text's statement name: from the text's hash, so that one name means one text in
 * every process — a session reached through a pooler may hold another process's statements, and
 * a name it knows must never run a different text. Cached per text (the marked texts are fixed).
 */
export function statementNameOf(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `tb_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;
    if (statementNames.size < MAX_STATEMENT_NAMES) statementNames.set(text, name);
  }
  return name;
}

/** Whether plan-stable statements run named, for one store; off for good once a session refuses one. */
interface Prepared {
  on: boolean;
  turnOff(error: Error): void;
}

/**
 * `retryHere`: a statement that is not inside a transaction (the pool's, a connection's outside
 * one) runs again unnamed at once when its named form was refused — it did not run. Inside a
 * transaction the refusal aborted the transaction, so the error goes up to the transaction's loop,
 * which runs the transaction again (`transaction()` below).
 */
function queryable(client: pg.PoolClient | pg.Pool, prepared: Prepared, retryHere: boolean): Queryable {
  return {
    async query<T extends Row>(text: string, params?: readonly unknown[]): Promise<T[]> {
      try {
        if (prepared.on && isPlanStable(text)) {
          try {
            const named = await client.query<T>({ name: statementNameOf(text), text, values: (params ?? []) as unknown[] });
            return named.rows;
          } catch (error) {
            if (!isNamedStatementLost(error)) throw error;
            prepared.turnOff(error as Error);
            if (!retryHere) throw error;
          }
        }
        const result = await client.query<T>(text, params as unknown[] | undefined);
        return result.rows;
      } catch (error) {
        throw translate(error);
      }
    },
    async exec(script: string): Promise<void> {
      try {
        await client.query(script);
      } catch (error) {
        throw translate(error);
      }
    },
  };
}

async function runTransaction<T>(client: pg.PoolClient, prepared: Prepared, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const tx = queryable(client, prepared, false);
  await tx.exec('BEGIN');
  try {
    const result = await fn(tx);
    await tx.exec('COMMIT');
    return result;
  } catch (error) {
    // A broken connection cannot roll back; the server rolls back when the session ends.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 1_000,
    idle_in_transaction_session_timeout: Math.max(10_000, options.statementTimeoutMs * 2),
    application_name: 'tributary',
    types,
  });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', (error) => options.onPoolError?.(error));
  // pg-pool listens for 'error' only on idle clients and removes that listener while a client is
  // checked out. A connection that dies between two statements (backend terminated, server shut
  // down) then emitted 'error' with no listener and crashed the process. Every client gets a
  // listener for its whole life; the failed client's next query rejects, and it is destroyed on
  // release instead of going back to the pool.
  pool.on('connect', (client) => {
    client.on('error', (error) => options.onPoolError?.(error));
  });

  const prepared: Prepared = {
    on: options.preparedStatements ?? true,
    turnOff(error) {
      if (!this.on) return;
      this.on = false;
      options.onPreparedStatementsOff?.(error);
    },
  };
  const poolQueryable = queryable(pool, prepared, true);

  async function checkout(): Promise<pg.PoolClient> {
    try {
      return await pool.connect();
    } catch (error) {
      throw new StoreUnavailableError('database unavailable', { cause: error });
    }
  }

  async function transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    for (let run = 1; ; run += 1) {
      const client = await checkout();
      const preparedAtStart = prepared.on;
      let broken: unknown;
      try {
        return await runTransaction(client, prepared, fn);
      } catch (error) {
        if (isStoreUnavailable(error)) broken = error;
        // A named statement refused in this run turned them off: the transaction runs again unnamed.
        // (With them off from the start, a 26000/0A000 of some other statement is not retried.)
        const refusedNamed = preparedAtStart && !prepared.on && isNamedStatementLost(error);
        const retry = isRetryableTransactionError(error) || refusedNamed;
        if (run < MAX_TRANSACTION_RUNS && retry) continue;
        throw translate(error);
      } finally {
        // Passing the error destroys the client instead of returning a broken one to the pool.
        client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
      }
    }
  }

  function connection(client: pg.PoolClient): Connection {
    return { ...queryable(client, prepared, true), transaction: (fn) => runTransaction(client, prepared, fn) };
  }

  return {
    kind: 'postgres',
    query: poolQueryable.query,
    exec: poolQueryable.exec,
    transaction,
    async withConnection(fn) {
      const client = await checkout();
      let broken = false;
      try {
        return await fn(connection(client));
      } catch (error) {
        broken = isStoreUnavailable(error);
        throw translate(error);
      } finally {
        client.release(broken);
      }
    },
    async ping(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreUnavailableError('database ping timed out')), timeoutMs);
      });
      try {
        await Promise.race([poolQueryable.query('SELECT 1'), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
