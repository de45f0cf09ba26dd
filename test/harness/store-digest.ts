import { createHash } from 'node:crypto';
import type { Store } from '../../src/db/store.ts';

/**
 * A digest of every row of every table of the store's schema: equal digests before and after a
 * request mean the request changed nothing. Works on both stores (the PostgreSQL test store is a
 * schema of its own, which is `current_schema()`).
 */
export async function storeDigest(store: Store): Promise<string> {
  const tables = await store.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const hash = createHash('sha256');
  for (const { table_name } of tables) {
    const [row] = await store.query<{ n: number; h: string | null }>(
      `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS h FROM "${table_name.replace(/"/g, '""')}" t`,
    );
    hash.update(`${table_name}:${String(row?.n)}:${row?.h ?? ''};`);
  }
  return hash.digest('hex');
}
