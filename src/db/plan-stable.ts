/**
 * Marks a statement whose best plan does not depend on its parameter values nor on how large its
 * tables are: single-row probes of a primary or unique key, inserts from `unnest` arrays — one
 * sensible plan whatever the values (decision 0027). The mark is a comment at the start of the
 * text, so it travels with the text to whichever store runs it, across the embedded store's thread
 * boundary too, and PostgreSQL ignores it.
 *
 * What it changes: both stores parse a marked text once per session and keep it as a named
 * prepared statement (the PostgreSQL store since decision 0030, unless DB_PREPARED_STATEMENTS=off),
 * for which PostgreSQL may keep a generic plan (after five runs, when it costs no more than the
 * ones made for the values); every other statement is parsed and planned for its own values on
 * every run, as node-postgres's unnamed statements are. Mark only
 * statements whose text is fixed (a text built with a varying set of filters is a new statement
 * each time) and whose plan cannot turn on a value: never a queue's claim, a range, a `LIMIT $n`,
 * a list's filters — nor a lookup by an array (`= ANY($1)`, `IN (SELECT * FROM unnest(…))`, rows
 * by `ctid`): a generic plan costs the array at a fixed length, and one cached while the table was
 * small scans all of it once it has grown (seen: the webhook record statement as a sequential
 * scan of the deliveries; decision 0027).
 */
const MARK = '/* plan-stable */ ';

export function planStable(text: string): string {
  return MARK + text;
}

export function isPlanStable(text: string): boolean {
  return text.startsWith(MARK);
}
