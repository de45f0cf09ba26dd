import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { Store } from './store.ts';

/**
 * Forward-only numbered SQL migrations (src/db/sql/NNNN_name.sql), applied at start under a
 * transaction-level advisory lock so that several processes starting at once apply each one
 * exactly once. Each migration runs in its own transaction together with its bookkeeping row. An applied
 * migration whose file changed is an error: history is never rewritten.
 */
const SQL_DIR = new URL('./sql/', import.meta.url);
/** Arbitrary constant shared by every Tributary process: "tributary migrations". */
const MIGRATION_LOCK_KEY = '7292048211934810';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export function loadMigrations(): Migration[] {
  const files = readdirSync(SQL_DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const migrations = files.map((file) => {
    const sql = readFileSync(new URL(file, SQL_DIR), 'utf8');
    return {
      version: Number(file.slice(0, 4)),
      name: file.replace(/\.sql$/, ''),
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    };
  });
  // Numbers are unique and increasing; gaps are allowed (parallel branches reserve numbers).
  migrations.forEach((m, i) => {
    const previous = migrations[i - 1];
    if (previous !== undefined && previous.version >= m.version) {
      throw new MigrationError(`duplicate migration number ${m.version}: ${previous.name} and ${m.name}`);
    }
  });
  return migrations;
}

export async function migrate(store: Store): Promise<{ applied: string[] }> {
  const migrations = loadMigrations();
  // Every step is one transaction that first takes a transaction-level advisory lock. No session
  // state: the lock ends with its transaction, so migrations also run through a pooler in
  // transaction mode (pgbouncer), where consecutive statements may reach different server
  // sessions and a session-level lock/unlock pair would not (docs/scaling.md).
  const lock = `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
  const known = await store.transaction(async (tx) => {
    await tx.query(lock);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    const latest = migrations.at(-1);
    for (const row of rows) {
      const file = migrations.find((m) => m.version === row.version);
      if (file === undefined) {
        // Forward-only: a schema a newer release migrated may already lack what this build reads,
        // so this build must not run on it (nor "fix" it). Name both ends so the operator knows
        // which release to run, or which backup to restore.
        const newer = latest === undefined || row.version > latest.version;
        throw new MigrationError(
          newer
            ? `database has migration ${row.name}, which this build does not know: the schema is newer than this build ` +
                `(whose latest migration is ${latest?.name ?? 'none'}). A newer release upgraded it and there is no ` +
                'downgrade: run that release (or newer), or restore the backup taken before the upgrade.'
            : `database has migration ${row.name}, which this build does not know (this build's latest is ` +
                `${latest.name}): it was migrated by a build from another branch.`,
        );
      }
      if (file.checksum !== row.checksum) {
        throw new MigrationError(`migration ${row.name} was changed after it was applied; add a new migration instead`);
      }
    }
    return new Set(rows.map((r) => r.version));
  });
  const applied: string[] = [];
  for (const m of migrations) {
    if (known.has(m.version)) continue;
    const ran = await store.transaction(async (tx) => {
      await tx.query(lock);
      // Another process may have applied it while this one waited for the lock.
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (done.length > 0) return false;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        m.checksum,
      ]);
      return true;
    });
    if (ran) applied.push(m.name);
  }
  return { applied };
}

/** True when every migration of this build is applied (readiness). */
export async function migrationsCurrent(store: Store): Promise<boolean> {
  const rows = await store.query<{ n: bigint }>('SELECT count(*) AS n FROM schema_migrations');
  return Number(rows[0]?.n ?? 0n) === loadMigrations().length;
}
