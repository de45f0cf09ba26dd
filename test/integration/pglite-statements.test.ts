import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_SESSION_PARAMS, type StatementCache, statementCache } from '../../src/db/pglite-statements.ts';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import type { Store } from '../../src/db/store.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The embedded store's prepared statements (decision 0025) give what PGlite's own `query()` gives —
 * the same rows and types, the same errors — on a real PGlite, and stay bounded.
 */
describe('PGlite prepared statements', { skip: TEST_STORE === 'postgres' ? 'the embedded store only' : false }, () => {
  let db: PGlite;
  let cache: StatementCache;
  const run = (text: string, params?: unknown[]) => db._runExclusiveQuery(() => cache.run(text, params));

  before(async () => {
    db = await PGlite.create({
      parsers: { 20: (value: string) => BigInt(value) },
      startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SESSION_PARAMS],
    });
    await db.exec(
      `CREATE TABLE t (id text PRIMARY KEY, n bigint, at timestamptz, ok boolean, doc jsonb, tags text[], amounts int[], note text)`,
    );
    cache = statementCache(db);
  });
  after(() => db.close());

  it("returns PGlite's own rows and types for every kind of parameter", async () => {
    const insert = `INSERT INTO t (id, n, at, ok, doc, tags, amounts, note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        RETURNING *, n * 2 AS twice, at + interval '1 day' AS later, doc -> 'a' AS a`;
    const params = [
      'x1',
      9_007_199_254_740_993n,
      new Date('2026-11-27T10:00:00.123Z'),
      true,
      { a: [1, 'two'], b: null },
      ['p', 'q r', 'with "quote"'],
      [1, 2, 3],
      null,
    ];
    const ours = await run(insert, params);
    const theirs = (await db.query(insert, ['x2', ...params.slice(1)])).rows;
    assert.equal(ours.length, 1);
    assert.deepEqual({ ...ours[0], id: 'x' }, { ...(theirs[0] as object), id: 'x' });
    assert.equal(ours[0]?.['n'], 9_007_199_254_740_993n, 'int8 as bigint, exact');
    assert.ok(ours[0]?.['at'] instanceof Date);
    assert.deepEqual(ours[0]?.['doc'], { a: [1, 'two'], b: null });
    assert.deepEqual(ours[0]?.['tags'], ['p', 'q r', 'with "quote"']);
    assert.equal(ours[0]?.['note'], null);
    assert.deepEqual(await run('SELECT id FROM t WHERE id = ANY($1::text[]) ORDER BY id', [['x1', 'x2', 'nope']]), [
      { id: 'x1' },
      { id: 'x2' },
    ]);
    assert.deepEqual(await run('SELECT 1 AS one WHERE false'), [], 'no rows is an empty list');
  });

  it('prepares a text once and runs it again by name', async () => {
    const text = 'SELECT count(*) AS n FROM t WHERE id <> $1';
    await run(text, ['a']);
    await run(text, ['b']);
    const named = await run('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [text]);
    assert.deepEqual(named, [{ n: 1 }]);
  });

  it("throws PostgreSQL's errors with their SQLSTATE and constraint, and the session goes on", async () => {
    await assert.rejects(run('INSERT INTO t (id) VALUES ($1)', ['x1']), (error: { code?: string; constraint?: string }) => {
      assert.equal(error.code, '23505');
      assert.equal(error.constraint, 't_pkey');
      return true;
    });
    await assert.rejects(run('SELEC 1'), (error: { code?: string }) => error.code === '42601');
    await assert.rejects(run('SELECT 1 / $1::int AS q', [0]), (error: { code?: string }) => error.code === '22012');
    assert.deepEqual(await run('SELECT 1 / $1::int AS q', [1]), [{ q: 1 }], 'the failed text runs again');
  });

  it('prepares again when the session dropped its statements (DEALLOCATE ALL, DISCARD ALL)', async () => {
    const text = 'SELECT count(*)::int AS n FROM t WHERE id <> $1';
    const [before] = await run(text, ['none']);
    for (const drop of ['DEALLOCATE ALL', 'DISCARD ALL']) {
      await db.exec(drop);
      assert.deepEqual(await run(text, ['none']), [before], `the same answer after ${drop}`);
    }
    assert.deepEqual(await run('SHOW plan_cache_mode'), [{ plan_cache_mode: 'force_custom_plan' }], 'DISCARD ALL keeps it');

    // Inside a transaction the failed statement cannot be run again: the transaction has failed,
    // the error reaches the caller, and after its rollback the text is prepared again.
    await db.exec('BEGIN');
    await db.exec('DEALLOCATE ALL');
    await assert.rejects(run(text, ['none']), (error: { code?: string }) => error.code === '26000');
    await db.exec('ROLLBACK');
    assert.deepEqual(await run(text, ['none']), [before]);
  });

  it('keeps at most 256 statements, closing the least recently used', async () => {
    const hot = 'SELECT $1::int + 0 AS hot';
    await run(hot, [1]);
    for (let i = 0; i < 300; i += 1) {
      await run(`SELECT $1::int + ${i} AS v`, [i]);
      if (i % 50 === 0) await run(hot, [i]); // used recently: stays
    }
    const [{ n, hotKept }] = (await run(
      `SELECT count(*)::int AS n, bool_or(statement = $1) AS "hotKept" FROM pg_prepared_statements`,
      [hot],
    )) as [{ n: number; hotKept: boolean }];
    assert.ok(n <= 257 && n >= 250, `${n} statements prepared`);
    assert.equal(hotKept, true);
    assert.deepEqual(await run('SELECT $1::int + 0 AS v', [7]), [{ v: 7 }], 'an evicted text is prepared again');
  });
});

describe(
  'the embedded store on prepared statements',
  { skip: TEST_STORE === 'postgres' ? 'the embedded store only' : false },
  () => {
    let store: Store;
    before(async () => {
      store = await openEmbeddedStore({ owner: 'test' });
      await store.exec('CREATE TABLE u (id int PRIMARY KEY)');
    });
    after(() => store.close());

    it('plans every execution for its own values (force_custom_plan)', async () => {
      assert.deepEqual(await store.query('SHOW plan_cache_mode'), [{ plan_cache_mode: 'force_custom_plan' }]);
    });

    it('rolls a failed transaction back, and its handle is closed once it ended', async () => {
      let handle: Parameters<Parameters<Store['transaction']>[0]>[0] | undefined;
      await assert.rejects(
        store.transaction(async (tx) => {
          handle = tx;
          await tx.query('INSERT INTO u (id) VALUES ($1)', [1]);
          await tx.query('INSERT INTO u (id) VALUES ($1)', [1]);
        }),
        (error: { code?: string }) => error.code === '23505',
      );
      assert.deepEqual(await store.query('SELECT count(*)::int AS n FROM u'), [{ n: 0 }], 'nothing of it stayed');
      await store.transaction((tx) => tx.query('INSERT INTO u (id) VALUES ($1)', [2]));
      assert.deepEqual(await store.query('SELECT id FROM u'), [{ id: 2 }], 'the same statement runs after the rollback');
      await assert.rejects(async () => handle?.query('SELECT 1'), /ended/);
    });
  },
);
