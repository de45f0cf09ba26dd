import pg from 'pg';
import { isRetryableTransactionError, isStoreUnavailable, StoreUnavailableError } from './db-errors.ts';
import type { Connection, Queryable, Row, Store } from './store.ts';

export interface PostgresStoreOptions {
  connectionString: string;
  poolSize: number;
  /** How long a request may wait for a pooled connection before it is told the database is busy. */
  connectTimeoutMs: number;
  /** Server-side statement timeout: a stalled database fails fast instead of queueing requests. */
  statementTimeoutMs: number;
  onPoolError?: (error: Error) => void;
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

function queryable(client: pg.PoolClient | pg.Pool): Queryable {
  return {
    async query<T extends Row>(text: string, params?: readonly unknown[]): Promise<T[]> {
      try {
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

async function runTransaction<T>(client: pg.PoolClient, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const tx = queryable(client);
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

  const poolQueryable = queryable(pool);

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
      let broken: unknown;
      try {
        return await runTransaction(client, fn);
      } catch (error) {
        if (isStoreUnavailable(error)) broken = error;
        if (run < MAX_TRANSACTION_RUNS && isRetryableTransactionError(error)) continue;
        throw translate(error);
      } finally {
        // Passing the error destroys the client instead of returning a broken one to the pool.
        client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
      }
    }
  }

  function connection(client: pg.PoolClient): Connection {
    return { ...queryable(client), transaction: (fn) => runTransaction(client, fn) };
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
