import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgresStore } from '../../src/db/postgres-store.ts';
import { createPostgresSchema, dropPostgresSchema, postgresUrlWithSchema, TEST_STORE } from '../harness/test-store.ts';

// PostgreSQL only (several processes' pools): the advisory lock makes concurrent starts safe.
describe(
  'migrations on a fresh PostgreSQL schema, four pools racing',
  { skip: TEST_STORE === 'postgres' ? false : 'runs in the PostgreSQL pass' },
  () => {
    it('apply every migration exactly once', async () => {
      const schema = await createPostgresSchema();
      const stores = await Promise.all(
        Array.from({ length: 4 }, () =>
          openPostgresStore({
            connectionString: postgresUrlWithSchema(schema),
            poolSize: 2,
            connectTimeoutMs: 5_000,
            statementTimeoutMs: 10_000,
          }),
        ),
      );
      try {
        const results = await Promise.all(stores.map((s) => migrate(s)));
        const applied = results.flatMap((r) => r.applied);
        assert.equal(new Set(applied).size, applied.length, 'no migration applied twice');
        assert.ok(applied.includes('0001_core'));
        const rows = await stores[0]!.query<{ n: bigint }>('SELECT count(*) AS n FROM schema_migrations');
        assert.equal(rows[0]?.n, BigInt(applied.length));
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        await dropPostgresSchema(schema);
      }
    });
  },
);
