import { messages as backend, parse, type PGlite, protocol, types as pgTypes } from '@electric-sql/pglite';
import { isPlanStable } from './plan-stable.ts';
import { type Answer, encodeMessages, type FrontendMessage, readAnswer, type WireField } from './pglite-wire.ts';
import type { Row } from './store.ts';

/**
 * How the embedded store sends its statements to PGlite (decisions 0025 and 0027). PGlite's
 * `query()` sends each statement as Parse, Describe, Bind, Describe, Execute and Sync: five calls
 * into its WebAssembly backend. Here every run is one call:
 *
 * - **Plan-stable statements** (marked with `planStable`, src/db/plan-stable.ts: single-row key
 *   probes, inserts from arrays) are parsed once per session as named prepared
 *   statements (Parse + Describe once, to learn their parameter types and result columns), and
 *   every later run is Bind + Execute + Sync (decision 0029: no row description to parse on every
 *   run). PostgreSQL plans them under its default `plan_cache_mode`
 *   (`auto`): for their values the first five runs, then a generic plan if it costs no more.
 * - **A statement without parameters** is named too: it has one plan whatever the mode.
 * - **Every other statement** is sent unnamed — Parse with the parameter types learned on its
 *   first run, Bind, Describe, Execute, Sync — so it is parsed and planned for its own values on
 *   every run, exactly as node-postgres's unnamed statements are on the PostgreSQL store. The
 *   queue-index decisions (0013, 0024) rest on such plans.
 *
 * The session keeps PostgreSQL's default `plan_cache_mode`, so PostgreSQL's own cached statements —
 * foreign-key checks and PL/pgSQL trigger statements — keep a generic plan after five runs, as they
 * do on PostgreSQL (under the `force_custom_plan` of decision 0025 they were planned again for
 * every row: a 64-row insert with two foreign keys cost twice as much; decision 0027).
 *
 * Parameters are serialised and values parsed by PGlite's own serialisers and parsers for the types
 * the backend reports, as its `query()` does; the protocol messages themselves are encoded by
 * pglite-wire.ts, not by PGlite's bundled serializer (decision 0029), and a run's answer is read
 * there too, not by PGlite's protocol parser, unless it holds an error (decision 0031). The cache
 * is bounded (least recently used first out, a named statement closed with the next Parse), so
 * texts built per call (a list with a varying number of filters) cannot grow it without end. If the
 * session's prepared statements are dropped under the cache (`DEALLOCATE ALL`, `DISCARD ALL`;
 * nothing in the service sends either), the cache forgets them all and prepares again.
 */

const MAX_STATEMENTS = 256;
const DESCRIBE_PORTAL: FrontendMessage = { type: 'describe', target: 'P', name: '' };
const EXECUTE: FrontendMessage = { type: 'execute' };
const SYNC: FrontendMessage = { type: 'sync' };
/**
 * PGlite's `syncToFs` copies an in-memory filesystem to persistent storage (IndexedDB, OPFS). Ours
 * are NODEFS (every write reaches the host file, and a commit its fsync: durable-node-fs.ts) and
 * PGlite's memory filesystem for tests; on both it is the base class's empty method, which PGlite
 * runs after every statement under a mutex whose compiled code leaves garbage for the old
 * generation (decision 0029). So it is not asked for.
 */
const NO_FS_SYNC = { syncToFs: false } as const;
/** A `$n` placeholder: a text without one takes no parameters. */
const PARAMETER = /\$\d/;
/** SQLSTATE 26000, invalid_sql_statement_name: "prepared statement … does not exist". */
const UNDEFINED_PREPARED_STATEMENT = '26000';

interface Known {
  /** The prepared statement's name; '' (PostgreSQL's unnamed statement) for a text parsed on every run. */
  name: string;
  paramTypes: number[];
  /**
   * A named statement's result columns, from its Describe when it was prepared: its runs send no
   * Describe, so the backend sends no row description to parse each time (decision 0029).
   * PostgreSQL refuses to run a prepared statement whose result would no longer have these columns
   * ("cached plan must not change result type"), so they cannot go stale.
   */
  fields: WireField[] | undefined;
}

/**
 * One run's exchange with the backend: the answer's bytes, copied out of PGlite's memory as they
 * are flushed, unparsed (decision 0031: PGlite's `execProtocol` would make a message object of every
 * data row, and a copy of the whole answer, before the rows are built from them).
 */
async function exchange(db: PGlite, message: Uint8Array): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await db.execProtocolRawStream(message, { ...NO_FS_SYNC, onRawData: (data) => chunks.push(Buffer.from(data)) });
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/**
 * An answer that `readAnswer` does not read — it holds an error, a notice or a notification — read
 * by PGlite's own parser, as `execProtocol` reads it: the first error is thrown as PGlite throws it
 * (its SQLSTATE, constraint and detail as own properties); notices are dropped, as PGlite drops them
 * without an `onNotice` (the embedded store LISTENs to nothing, so a notification has no listener).
 */
function answerByPglite(bytes: Buffer): Answer {
  const answer: Answer = { fields: undefined, rows: [] };
  let error: backend.DatabaseError | undefined;
  new protocol.Parser().parse(bytes, (message) => {
    if (error !== undefined) return;
    if (message instanceof backend.DatabaseError) error = message;
    else if (message.name === 'rowDescription') answer.fields = (message as backend.RowDescriptionMessage).fields;
    else if (message.name === 'dataRow') answer.rows.push((message as backend.DataRowMessage).fields);
  });
  if (error !== undefined) throw error;
  return answer;
}

/** The rows of one run's answer, their values parsed by PGlite's parsers, as its `query()` parses them. */
function rowsOf<T extends Row>(answer: Answer, described: WireField[] | undefined, parsers: PGlite['parsers']): T[] {
  const fields = answer.fields ?? described;
  if (fields === undefined) return [];
  return answer.rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) {
      const field = fields[i] as WireField;
      row[field.name] = pgTypes.parseType(values[i] ?? null, field.dataTypeID, parsers);
    }
    return row as T;
  });
}

export interface StatementCache {
  /**
   * Runs one statement with its parameters. Each protocol exchange is one synchronous
   * `execProtocol`; outside a transaction the caller holds the store's session lock
   * (pglite-store.ts).
   */
  run<T extends Row>(text: string, params: readonly unknown[] | undefined): Promise<T[]>;
}

export function statementCache(db: PGlite): StatementCache {
  /** Insertion order is recency: a hit moves its entry to the end. */
  const statements = new Map<string, Known>();
  /** Statements evicted from the map, closed on the backend with the next Parse. */
  const toClose: string[] = [];
  let next = 1;

  /**
   * Parses `text` and learns its parameter types; named when it is plan-stable or has no
   * parameters (PostgreSQL plans a statement without parameters once whatever the mode: there is
   * no value for a custom plan to use).
   */
  async function learn(text: string): Promise<Known> {
    const name = isPlanStable(text) || !PARAMETER.test(text) ? `tributary_${next++}` : '';
    const batch: FrontendMessage[] = toClose.splice(0).map((closed) => ({ type: 'close', name: closed }));
    batch.push({ type: 'parse', name, text, types: [] }, { type: 'describe', target: 'S', name }, SYNC);
    const { messages } = await db.execProtocol(encodeMessages(batch), NO_FS_SYNC);
    const description = messages.find((m) => m.name === 'rowDescription') as backend.RowDescriptionMessage | undefined;
    const known: Known = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      // NoData (a statement without a result) is no columns.
      fields: name === '' ? undefined : (description?.fields ?? []),
    };
    statements.set(text, known);
    if (statements.size > MAX_STATEMENTS) {
      const [oldest] = statements.keys();
      if (oldest !== undefined) {
        const evicted = (statements.get(oldest) as Known).name;
        if (evicted !== '') toClose.push(evicted);
        statements.delete(oldest);
      }
    }
    return known;
  }

  async function execute<T extends Row>(text: string, params: readonly unknown[] | undefined): Promise<T[]> {
    let known = statements.get(text);
    if (known === undefined) known = await learn(text);
    else {
      statements.delete(text);
      statements.set(text, known);
    }
    const types = known.paramTypes;
    const values = (params ?? []).map((value, i): string | null => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[types[i] as number];
      return serializer === undefined ? String(value) : serializer(value);
    });
    const bind: FrontendMessage = { type: 'bind', statement: known.name, values };
    const bytes = await exchange(
      db,
      encodeMessages(
        known.fields === undefined
          ? [{ type: 'parse', name: '', text, types }, bind, DESCRIBE_PORTAL, EXECUTE, SYNC]
          : [bind, EXECUTE, SYNC],
      ),
    );
    return rowsOf<T>(readAnswer(bytes) ?? answerByPglite(bytes), known.fields, db.parsers);
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
