import { withSpan } from '../lib/tracing.ts';
import type { Queryable, Row, Store } from './store.ts';

/**
 * The store with a span per transaction (`db.transaction`) and per statement run on the store
 * itself, outside a transaction (`db.query`). runtime.ts applies it only when tracing is on, so the
 * untraced store pays nothing.
 *
 * Attributes name the database and the statement's kind (`SELECT`, `INSERT`, …), never its text:
 * the SQL is fixed, but its parameters are payments' data. A transaction span counts its
 * statements and its runs (the PostgreSQL store re-runs a transaction after a serialization
 * failure or deadlock). Statements inside a transaction get no span of their own: a create runs a
 * dozen, and one span per statement would cost more than it tells.
 *
 * Spans are made only inside traced work (a request, a job run): the pollers' statements outside
 * any (the webhook dispatcher's claims, an idle fan-out) would otherwise each make a trace.
 */
export function tracedStore(store: Store): Store {
  const base = { 'db.system.name': 'postgresql', 'tributary.store': store.kind };
  const transaction = <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> =>
    withSpan('db.transaction', { kind: 'client', requireParent: true, attributes: base }, async (span) => {
      if (span === undefined) return store.transaction(fn);
      let statements = 0;
      let runs = 0;
      try {
        return await store.transaction((tx) => {
          runs += 1;
          return fn({
            query: <R extends Row>(text: string, params?: readonly unknown[]) => {
              statements += 1;
              return tx.query<R>(text, params);
            },
            exec: (script: string) => {
              statements += 1;
              return tx.exec(script);
            },
          });
        });
      } finally {
        span.setAttribute('tributary.db.statements', statements);
        if (runs > 1) span.setAttribute('tributary.db.runs', runs);
      }
    });
  const query = <R extends Row>(text: string, params?: readonly unknown[]): Promise<R[]> =>
    withSpan(
      'db.query',
      { kind: 'client', requireParent: true, attributes: { ...base, 'db.operation.name': operationOf(text) } },
      () => store.query<R>(text, params),
    );
  // Spread keeps what a store adds to the interface (the embedded store's dump and fsync count).
  return { ...store, kind: store.kind, query, transaction };
}

/**
 * The statement's first keyword (`SELECT`, `INSERT`, `WITH`, …): its kind, nothing of its data.
 * Leading comments (the plan-stable mark, src/db/plan-stable.ts) are not the statement.
 */
export function operationOf(sql: string): string {
  const m = /^\s*(?:\/\*[^*]*\*\/\s*)*([A-Za-z]+)/.exec(sql);
  return m?.[1] === undefined ? 'unknown' : m[1].toUpperCase();
}
