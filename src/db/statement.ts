/**
 * A SQL statement as data, so that several repo writes can be sent as ONE statement (one round
 * trip, one implicit transaction) with data-modifying CTEs. Repo functions build their statement
 * with a `…Statement` builder and run it; hot paths combine builders with `withCtes`.
 *
 * A builder's text numbers its own parameters from $1; `withCtes` renumbers them. Texts must not
 * contain `$n` inside string literals (ours never do: values are always parameters).
 */
export interface Statement {
  text: string;
  params: unknown[];
}

function shift(text: string, offset: number): string {
  return offset === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/**
 * `WITH a AS (…), b AS (…) <final>`. All parts run in one statement against one snapshot, so a
 * part that must only happen after another says so in its guard (`EXISTS (SELECT 1 FROM a)`).
 */
export function withCtes(parts: readonly (readonly [name: string, statement: Statement])[], final: Statement): Statement {
  const params: unknown[] = [];
  const ctes = parts.map(([name, s]) => {
    const text = `${name} AS (${shift(s.text, params.length)})`;
    params.push(...s.params);
    return text;
  });
  const finalText = shift(final.text, params.length);
  params.push(...final.params);
  return { text: `WITH ${ctes.join(',\n')}\n${finalText}`, params };
}

/** A guard clause to append to a WHERE (or `TRUE` when there is none). */
export const guardOf = (guard: string | undefined): string => guard ?? 'TRUE';

/**
 * `INSERT INTO t (…) VALUES (…)` as `INSERT INTO t (…) SELECT … WHERE guard` when there is a
 * guard (PostgreSQL types the parameters from the target columns in both forms).
 */
export function guarded(guard: string | undefined, s: Statement): Statement {
  if (guard === undefined) return s;
  const at = s.text.lastIndexOf('VALUES (');
  if (at < 0 || !s.text.trimEnd().endsWith(')')) throw new Error('guarded() takes a single-row INSERT … VALUES (…)');
  const values = s.text.slice(at + 'VALUES ('.length, s.text.trimEnd().length - 1);
  return { text: `${s.text.slice(0, at)}SELECT ${values} WHERE ${guard}`, params: s.params };
}
