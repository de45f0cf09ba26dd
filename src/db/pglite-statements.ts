import { parse, type PGlite, protocol } from '@electric-sql/pglite';
import type { Row } from './store.ts';

/**
 * Named prepared statements for PGlite (decision 0025). PGlite's `query()` sends every statement
 * as an unnamed one: Parse, Describe, Bind, Describe, Execute and Sync, five calls into its
 * WebAssembly backend, and PostgreSQL parses and analyses the text again each time. The store's
 * statements are a small fixed set of texts run over and over, so each text is parsed once per
 * session here (Parse + Describe to learn its parameter types), and every later run is one call:
 * Bind + Describe + Execute + Sync. Measured on a GET by id: 0.43–0.57 ms → 0.17–0.23 ms.
 *
 * The plans do not change: the session runs with `plan_cache_mode = force_custom_plan`
 * (EMBEDDED_SESSION_PARAMS), so every execution is planned for its own parameter values, exactly as an
 * unnamed statement is — the queue-index decisions (0013, 0024) rest on such plans. What is saved
 * is parsing, analysis and the round trips. The setting is the session's, so PostgreSQL's own
 * cached statements (foreign-key checks, PL/pgSQL triggers) are planned on every run too: a cost
 * decision 0025 records, with the next step (a choice per statement).
 *
 * Parameters are serialised and rows parsed by PGlite's own serialisers and parsers for the types
 * the backend reports, as its `query()` does. The cache is bounded (least recently used first
 * out, its statement closed with the next Parse), so texts built per call (a list with a varying
 * number of filters) cannot grow it without end. If the session's prepared statements are dropped
 * under the cache (`DEALLOCATE ALL`, `DISCARD ALL`; nothing in the service sends either), the cache
 * forgets them all and prepares again.
 */

/** The embedded session's settings that the statement cache relies on (PGlite's start parameters). */
export const EMBEDDED_SESSION_PARAMS: readonly string[] = ['-c', 'plan_cache_mode=force_custom_plan'];

const MAX_STATEMENTS = 256;
/** SQLSTATE 26000, invalid_sql_statement_name: "prepared statement … does not exist". */
const UNDEFINED_PREPARED_STATEMENT = '26000';

interface Prepared {
  name: string;
  paramTypes: number[];
}

export interface StatementCache {
  /**
   * Runs one statement with its parameters. The caller holds PGlite's query lock (and, outside a
   * transaction, its transaction lock), as PGlite's own `query()` does.
   */
  run<T extends Row>(text: string, params: readonly unknown[] | undefined): Promise<T[]>;
}

export function statementCache(db: PGlite): StatementCache {
  const { serialize } = protocol;
  /** Insertion order is recency: a hit moves its entry to the end. */
  const statements = new Map<string, Prepared>();
  /** Statements evicted from the map, closed on the backend with the next Parse. */
  const toClose: string[] = [];
  let next = 1;

  async function prepare(text: string): Promise<Prepared> {
    const name = `tributary_${next++}`;
    const closing = toClose.splice(0).map((closed) => serialize.close({ type: 'S', name: closed }));
    const { messages } = await db.execProtocol(
      Buffer.concat([...closing, serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
    );
    const prepared = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    statements.set(text, prepared);
    if (statements.size > MAX_STATEMENTS) {
      const [oldest] = statements.keys();
      if (oldest !== undefined) {
        toClose.push((statements.get(oldest) as Prepared).name);
        statements.delete(oldest);
      }
    }
    return prepared;
  }

  async function execute<T extends Row>(text: string, params: readonly unknown[] | undefined): Promise<T[]> {
    let prepared = statements.get(text);
    if (prepared === undefined) prepared = await prepare(text);
    else {
      statements.delete(text);
      statements.set(text, prepared);
    }
    const types = prepared.paramTypes;
    const values = (params ?? []).map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[types[i] as number];
      return serializer === undefined ? String(value) : serializer(value);
    });
    const { messages } = await db.execProtocol(
      Buffer.concat([
        serialize.bind({ statement: prepared.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    return (parse.parseResults(messages, db.parsers, {}, undefined)[0]?.rows ?? []) as T[];
  }

  return {
    async run<T extends Row>(text: string, params: readonly unknown[] | undefined): Promise<T[]> {
      await db._checkReady(); // "PGlite is closed", as its query() says
      try {
        return await execute<T>(text, params);
      } catch (error) {
        if ((error as { code?: string }).code !== UNDEFINED_PREPARED_STATEMENT) throw error;
        // Our statements were dropped under us (DEALLOCATE ALL, DISCARD ALL): forget every name.
        // Outside a transaction nothing ran, so the statement is prepared again and run once more;
        // inside one the transaction has failed, and the caller's rollback decides what happens.
        statements.clear();
        toClose.length = 0;
        if (db.isInTransaction()) throw error;
        return await execute<T>(text, params);
      }
    },
  };
}
