import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { planStable } from '../../src/db/plan-stable.ts';
import { type StatementCache, statementCache } from '../../src/db/pglite-statements.ts';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import type { Store } from '../../src/db/store.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The embedded store's statements (decisions 0025, 0027) give what PGlite's own `query()` gives —
 * the same rows and types, the same errors — on a real PGlite, named and unnamed, and stay bounded.
 */
describe('PGlite statements', { skip: TEST_STORE === 'postgres' ? 'the embedded store only' : false }, () => {
  let db: PGlite;
  let cache: StatementCache;
  const run = (text: string, params?: unknown[]) => db._runExclusiveQuery(() => cache.run(text, params));

  before(async () => {
    db = await PGlite.create({ parsers: { 20: (value: string) => BigInt(value) } });
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
    const named = await run(planStable(insert), ['x3', ...params.slice(1)]);
    assert.equal(ours.length, 1);
    assert.deepEqual({ ...ours[0], id: 'x' }, { ...(theirs[0] as object), id: 'x' });
    assert.deepEqual({ ...named[0], id: 'x' }, { ...(theirs[0] as object), id: 'x' }, 'the same as a named statement');
    assert.equal(ours[0]?.['n'], 9_007_199_254_740_993n, 'int8 as bigint, exact');
    assert.ok(ours[0]?.['at'] instanceof Date);
    assert.deepEqual(ours[0]?.['doc'], { a: [1, 'two'], b: null });
    assert.deepEqual(ours[0]?.['tags'], ['p', 'q r', 'with "quote"']);
    assert.equal(ours[0]?.['note'], null);
    assert.deepEqual(await run('SELECT id FROM t WHERE id = ANY($1::text[]) ORDER BY id', [['x1', 'x2', 'nope']]), [
      { id: 'x1' },
      { id: 'x2' },
    ]);
    await run('DELETE FROM t WHERE id = $1', ['x3']);
    assert.deepEqual(await run('SELECT 1 AS one WHERE false'), [], 'no rows is an empty list');
  });

  it('sends text of any width byte for byte, in the statement and its parameters (pglite-wire.ts)', async () => {
    const wide = 'Pembayaran café — Rp 1.000 €, 𝄞 ✓';
    const [row] = await run(`SELECT $1::text AS v, octet_length($1::text) AS bytes, '${wide}' AS literal, $2::text AS none`, [
      wide,
      null,
    ]);
    assert.deepEqual(row, { v: wide, bytes: Buffer.byteLength(wide), literal: wide, none: null });
    const [named] = await run(planStable('SELECT $1::text AS v, $2::text AS empty'), [wide, '']);
    assert.deepEqual(named, { v: wide, empty: '' });
  });

  it('prepares a plan-stable text once, runs it by name, and lets PostgreSQL keep a generic plan for it', async () => {
    const text = planStable('SELECT id FROM t WHERE id = $1');
    for (let i = 0; i < 7; i += 1) await run(text, [`k${i}`]);
    const named = await run(
      'SELECT count(*)::int AS n, sum(custom_plans)::int AS custom, sum(generic_plans)::int AS generic FROM pg_prepared_statements WHERE statement = $1',
      [text],
    );
    // Five runs planned for their values, then the generic plan of a key probe, which costs no more.
    assert.deepEqual(named, [{ n: 1, custom: 5, generic: 2 }]);
  });

  it('runs a named statement without a Describe, on the columns learned when it was prepared, which PostgreSQL keeps true', async () => {
    await db.exec('CREATE TABLE shape (id text PRIMARY KEY, a int)');
    await db.exec("INSERT INTO shape VALUES ('s1', 1)");
    const text = planStable('SELECT * FROM shape WHERE id = $1');
    assert.deepEqual(await run(text, ['s1']), [{ id: 's1', a: 1 }]);
    assert.deepEqual(await run(text, ['s1']), [{ id: 's1', a: 1 }], 'the second run, without a row description');
    assert.deepEqual(await run(planStable('INSERT INTO shape VALUES ($1, $2)'), ['s2', 2]), [], 'no result: no columns');
    await db.exec('ALTER TABLE shape ADD COLUMN b int');
    // The learned columns would now be stale; PostgreSQL refuses the run instead of answering in
    // another shape, and a new text (the store's queries are fixed texts) is prepared afresh.
    await assert.rejects(run(text, ['s1']), (error: Error & { code?: string }) => error.code === '0A000');
    assert.deepEqual(await run(planStable('SELECT *, 0 AS z FROM shape WHERE id = $1'), ['s2']), [
      { id: 's2', a: 2, b: null, z: 0 },
    ]);
  });

  it('runs any other text unnamed: parsed and planned for its own values on every run', async () => {
    const text = 'SELECT id FROM t WHERE id > $1 ORDER BY id LIMIT $2';
    for (let i = 0; i < 7; i += 1) await run(text, ['', 1]);
    assert.deepEqual(await run('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [text]), [{ n: 0 }]);
    assert.deepEqual(await run(text, ['x1', 5]), [{ id: 'x2' }], 'the parameter types learned on the first run still apply');
    const fixed = 'SELECT count(*)::int AS n FROM t';
    await run(fixed);
    assert.deepEqual(
      await run('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [fixed]),
      [{ n: 1 }],
      'a text without parameters has one plan anyway: named',
    );
    assert.deepEqual(
      await run('SHOW plan_cache_mode'),
      [{ plan_cache_mode: 'auto' }],
      "PostgreSQL's default for its own statements",
    );
  });

  it("throws PostgreSQL's errors with their SQLSTATE and constraint, and the session goes on", async () => {
    await assert.rejects(run('INSERT INTO t (id) VALUES ($1)', ['x1']), (error: { code?: string; constraint?: string }) => {
      assert.equal(error.code, '23505');
      assert.equal(error.constraint, 't_pkey');
      return true;
    });
    await assert.rejects(run('SELEC 1'), (error: { code?: string }) => error.code === '42601');
    for (const text of ['SELECT 1 / $1::int AS q', planStable('SELECT 1 / $1::int AS q')]) {
      await assert.rejects(run(text, [0]), (error: { code?: string }) => error.code === '22012');
      assert.deepEqual(await run(text, [1]), [{ q: 1 }], 'the failed text runs again');
    }
  });

  it('prepares again when the session dropped its statements (DEALLOCATE ALL, DISCARD ALL)', async () => {
    const text = planStable('SELECT count(*)::int AS n FROM t WHERE id <> $1');
    const [before] = await run(text, ['none']);
    for (const drop of ['DEALLOCATE ALL', 'DISCARD ALL']) {
      await db.exec(drop);
      assert.deepEqual(await run(text, ['none']), [before], `the same answer after ${drop}`);
    }

    // Inside a transaction the failed statement cannot be run again: the transaction has failed,
    // the error reaches the caller, and after its rollback the text is prepared again.
    await db.exec('BEGIN');
    await db.exec('DEALLOCATE ALL');
    await assert.rejects(run(text, ['none']), (error: { code?: string }) => error.code === '26000');
    await db.exec('ROLLBACK');
    assert.deepEqual(await run(text, ['none']), [before]);
  });

  it('keeps at most 256 statements, closing the least recently used', async () => {
    const hot = planStable('SELECT $1::int + 0 AS hot');
    await run(hot, [1]);
    for (let i = 0; i < 300; i += 1) {
      await run(planStable(`SELECT $1::int + ${i} AS v`), [i]);
      if (i % 50 === 0) await run(hot, [i]); // used recently: stays
    }
    const [{ n, hotKept }] = (await run(
      `SELECT count(*)::int AS n, bool_or(statement = $1) AS "hotKept" FROM pg_prepared_statements`,
      [hot],
    )) as [{ n: number; hotKept: boolean }];
    assert.ok(n <= 256 && n >= 250, `${n} statements prepared`);
    assert.equal(hotKept, true);
    assert.deepEqual(await run(planStable('SELECT $1::int + 0 AS v'), [7]), [{ v: 7 }], 'an evicted text is prepared again');
  });
});

describe(
  'the embedded store on its statement cache',
  { skip: TEST_STORE === 'postgres' ? 'the embedded store only' : false },
  () => {
    let store: Store;
    before(async () => {
      store = await openEmbeddedStore({ owner: 'test' });
      await store.exec('CREATE TABLE u (id int PRIMARY KEY)');
    });
    after(() => store.close());

    it("keeps PostgreSQL's default plan_cache_mode (auto), as the PostgreSQL store's sessions do", async () => {
      assert.deepEqual(await store.query('SHOW plan_cache_mode'), [{ plan_cache_mode: 'auto' }]);
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

    it('never reports a COMMIT that PostgreSQL answered with ROLLBACK as committed', async () => {
      await store.exec('DELETE FROM u');
      // The caller swallows a failed statement and returns: the transaction had failed, so
      // PostgreSQL answers COMMIT with ROLLBACK, and the caller is told (PGlite's
      // TransactionAbortedError, SQLSTATE 25P02).
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.query('INSERT INTO u (id) VALUES ($1)', [10]);
          await tx.query('INSERT INTO u (id) VALUES ($1)', [10]).catch(() => undefined);
          return 'done';
        }),
        (error: { code?: string; name?: string }) => error.code === '25P02',
      );
      assert.deepEqual(await store.query('SELECT count(*)::int AS n FROM u'), [{ n: 0 }], 'nothing of it stayed');
      assert.equal(
        await store.transaction((tx) => tx.query('INSERT INTO u (id) VALUES ($1)', [11]).then(() => 'committed')),
        'committed',
      );
      assert.deepEqual(await store.query('SELECT id FROM u'), [{ id: 11 }], 'a transaction that succeeds is committed');
    });
  },
);
