import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { planStable } from '../../src/db/plan-stable.ts';
import { openPostgresStore, statementNameOf } from '../../src/db/postgres-store.ts';
import type { Store } from '../../src/db/store.ts';
import { createPostgresSchema, dropPostgresSchema, postgresUrlWithSchema, TEST_STORE } from '../harness/test-store.ts';

// Decision 0030: on PostgreSQL a plan-stable statement is a named prepared statement of its
// session; a session that does not know it (a transaction pooler's other session) or whose result
// changed under it turns named statements off for the store, and the statement — or its whole
// transaction — runs again unnamed, once.

const PROBE = planStable('SELECT $1::int + 1 AS n');

async function preparedNames(store: Store): Promise<string[]> {
  // One session: the statement and the catalog read in one transaction.
  return store.transaction(async (tx) => {
    await tx.query(PROBE, [1]);
    const rows = await tx.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
    return rows.map((r) => r.name);
  });
}

describe(
  'PostgreSQL store: plan-stable statements prepared',
  { skip: TEST_STORE === 'postgres' ? false : 'runs in the PostgreSQL pass' },
  () => {
    let schema: string;
    const opened: Store[] = [];
    const open = async (preparedStatements?: boolean, offs?: Error[]) => {
      const store = await openPostgresStore({
        connectionString: postgresUrlWithSchema(schema),
        poolSize: 1, // one session: what a test prepares there, the next statement meets
        connectTimeoutMs: 5_000,
        statementTimeoutMs: 10_000,
        ...(preparedStatements === undefined ? {} : { preparedStatements }),
        onPreparedStatementsOff: (error) => offs?.push(error),
      });
      opened.push(store);
      return store;
    };
    before(async () => {
      schema = await createPostgresSchema();
    });
    after(async () => {
      await Promise.all(opened.map((s) => s.close()));
      await dropPostgresSchema(schema);
    });

    it('prepares a marked text once per session under its text hash, and leaves an unmarked one unnamed', async () => {
      const store = await open();
      assert.deepEqual(await preparedNames(store), [statementNameOf(PROBE)]);
      const rows = await store.transaction(async (tx) => {
        await tx.query('SELECT $1::int + 2 AS n', [1]);
        return tx.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements');
      });
      assert.deepEqual(rows, [{ name: statementNameOf(PROBE), statement: PROBE }]);
      assert.equal((await store.query<{ n: number }>(PROBE, [41]))[0]?.n, 42);
      // The name is the text's: the same in every process, another for another text.
      assert.match(statementNameOf(PROBE), /^tb_[0-9a-f]{40}$/);
      assert.notEqual(statementNameOf(PROBE), statementNameOf(planStable('SELECT $1::int + 2 AS n')));
    });

    it('prepares nothing when turned off (DB_PREPARED_STATEMENTS=off)', async () => {
      const store = await open(false);
      assert.deepEqual(await preparedNames(store), []);
    });

    it('runs a statement again unnamed, at once, when its session lost it outside a transaction', async () => {
      const offs: Error[] = [];
      const store = await open(true, offs);
      assert.equal((await store.query<{ n: number }>(PROBE, [1]))[0]?.n, 2);
      // What a transaction pooler's other session looks like to the client: the statement is gone.
      await store.exec('DEALLOCATE ALL');
      assert.equal((await store.query<{ n: number }>(PROBE, [6]))[0]?.n, 7);
      assert.deepEqual(
        offs.map((e) => (e as Error & { code?: string }).code),
        ['26000'],
      );
      assert.deepEqual(await preparedNames(store), [], 'later statements run unnamed');
    });

    it('runs the whole transaction again unnamed when a statement in it was refused, and writes once', async () => {
      const offs: Error[] = [];
      const store = await open(true, offs);
      await store.exec('CREATE TABLE written (x int)');
      assert.equal((await store.query<{ n: number }>(PROBE, [1]))[0]?.n, 2);
      await store.exec('DEALLOCATE ALL');
      let runs = 0;
      const n = await store.transaction(async (tx) => {
        runs += 1;
        await tx.query('INSERT INTO written VALUES (1)');
        return (await tx.query<{ n: number }>(PROBE, [9]))[0]?.n;
      });
      assert.equal(n, 10);
      assert.equal(runs, 2, 'the refused run rolled back, the second committed');
      assert.deepEqual(await store.query('SELECT x FROM written'), [{ x: 1 }]);
      assert.equal(offs.length, 1);
    });

    it('turns named statements off when a migration changed a statement result (0A000), and reads the new columns', async () => {
      const offs: Error[] = [];
      const store = await open(true, offs);
      await store.exec('CREATE TABLE grown (id int PRIMARY KEY); INSERT INTO grown VALUES (1)');
      const read = planStable('SELECT * FROM grown WHERE id = $1');
      assert.deepEqual(await store.query(read, [1]), [{ id: 1 }]);
      await store.exec("ALTER TABLE grown ADD COLUMN label text NOT NULL DEFAULT 'new'");
      assert.deepEqual(await store.query(read, [1]), [{ id: 1, label: 'new' }]);
      assert.deepEqual(
        offs.map((e) => (e as Error & { code?: string }).code),
        ['0A000'],
      );
    });
  },
);
