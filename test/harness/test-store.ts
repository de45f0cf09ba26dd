import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import { openPostgresStore } from '../../src/db/postgres-store.ts';
import type { Store } from '../../src/db/store.ts';

/**
 * Stores for tests. TEST_STORE=postgres (or `npm run test:pg`) gives each store a fresh schema in
 * the database of DATABASE_URL (default: this machine's `test` database); otherwise an in-memory
 * PGlite started from a migrated template that is built once and cached on disk.
 */
export const TEST_STORE = process.env['TEST_STORE'] === 'postgres' ? 'postgres' : 'embedded';
export const PG_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestStore {
  store: Store;
  /** A connection string for other processes (PostgreSQL only). */
  url: string | undefined;
  schema: string | undefined;
  close(): Promise<void>;
}

const TEMPLATE_DIR = join(process.cwd(), 'test-output');

/** Covers every migration (a new or changed one makes a new template). */
function templateChecksum(): string {
  return createHash('sha256')
    .update(
      loadMigrations()
        .map((m) => m.checksum)
        .join(''),
    )
    .digest('hex');
}

let templateBlob: Promise<Blob> | undefined;

async function embeddedTemplate(): Promise<Blob> {
  const path = join(TEMPLATE_DIR, `pglite-template-${templateChecksum().slice(0, 32)}.tar`);
  if (existsSync(path)) return new Blob([readFileSync(path)]);
  const fresh = (await openEmbeddedStore({ owner: 'test-template' })) as Store & { dump(): Promise<Blob> };
  await migrate(fresh);
  const blob = await fresh.dump();
  await fresh.close();
  mkdirSync(TEMPLATE_DIR, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
  renameSync(tmp, path); // atomic: concurrent test processes never read half a file
  return blob;
}

export function postgresUrlWithSchema(schema: string): string {
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

export async function createPostgresSchema(): Promise<string> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  return schema;
}

export async function dropPostgresSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await admin.end();
  }
}

export async function openTestStore(options: { kind?: 'embedded' | 'postgres'; poolSize?: number } = {}): Promise<TestStore> {
  const kind = options.kind ?? TEST_STORE;
  if (kind === 'embedded') {
    templateBlob ??= embeddedTemplate();
    const store = await openEmbeddedStore({ owner: 'test', loadDataDir: await templateBlob });
    await migrate(store); // no-op on the template; keeps the code path the same as production
    return { store, url: undefined, schema: undefined, close: () => store.close() };
  }
  const schema = await createPostgresSchema();
  const url = postgresUrlWithSchema(schema);
  const store = await openPostgresStore({
    connectionString: url,
    poolSize: options.poolSize ?? 10,
    connectTimeoutMs: 5_000,
    statementTimeoutMs: 10_000,
  });
  await migrate(store);
  return {
    store,
    url,
    schema,
    async close() {
      await store.close();
      await dropPostgresSchema(schema);
    },
  };
}
