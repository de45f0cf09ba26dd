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

/** Every scan of `relation` in a plan (the write node of an UPDATE or DELETE aside), depth first. */
export function scansOf(node: PlanNode, relation: string): PlanNode[] {
  const own = node['Relation Name'] === relation && node['Node Type'] !== 'ModifyTable' ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => scansOf(child, relation))];
}

/**
 * Payments `pay_<g padded to 26>` for g in [from, to] of one merchant (which must exist), written in
 * one statement, not through the API: a plan test needs the rows, not their history. A `canceled`
 * payment is closed.
 */
export async function insertPayments(
  q: Queryable,
  merchantId: string,
  range: { from: number; to: number },
  status: string,
): Promise<void> {
  await q.query(
    `INSERT INTO payments (id, merchant_id, environment, status, amount_minor, currency, reference_no, channel_requested,
       channel, instructions, api_version, version, expires_at, created_at, updated_at, closed_at)
     SELECT 'pay_' || lpad(g::text, 26, '0'), $4, 'sandbox', $3, 10000, 'IDR', 'ref-' || g, 'bank',
       'bank', '{"type":"virtual_account"}'::jsonb, '2024-01-01', 1, now() + interval '1 day', now(), now(),
       CASE WHEN $3 = 'canceled' THEN now() END
     FROM generate_series($1::int, $2::int) AS g`,
    [range.from, range.to, status, merchantId],
  );
}
