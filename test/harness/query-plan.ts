import type { Queryable } from '../../src/db/store.ts';

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan (the fields the plan tests read). */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  /** With ANALYZE only. */
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/**
 * The plan PostgreSQL makes (with `analyze`, runs) for one statement, on either store: the
 * PostgreSQL driver hands the JSON back parsed, PGlite as text.
 */
export async function planOf(
  q: Queryable,
  sql: { text: string; params?: readonly unknown[] },
  options: { analyze?: boolean } = {},
): Promise<PlanNode> {
  const [row] = await q.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(
    `EXPLAIN (${options.analyze === true ? 'ANALYZE, ' : ''}FORMAT JSON) ${sql.text}`,
    [...(sql.params ?? [])],
  );
  const raw = row?.['QUERY PLAN'];
  return ((typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }])[0].Plan;
}
