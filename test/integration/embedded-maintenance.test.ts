import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import type { Queryable, Row } from '../../src/db/store.ts';
import {
  embeddedMaintenanceJob,
  MAINTENANCE_MIN_PAUSE_MS,
  MAINTENANCE_PASS_MESSAGE,
  maintainTables,
} from '../../src/jobs/embedded-maintenance.ts';
import { overviewRefreshJob } from '../../src/jobs/overview-refresh.ts';
import { STORE_QUIET_MS } from '../../src/jobs/quiet-store.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { findPaymentStatement } from '../../src/modules/payments/payment-repo.ts';
import { insertPayments, type PlanNode, planOf, scansOf } from '../harness/query-plan.ts';
import { openTestStore, TEST_STORE, type TestStore } from '../harness/test-store.ts';
import { captureLogs } from '../harness/log-capture.ts';

/**
 * PGlite has no autovacuum; the embedded maintenance job does what autovacuum would (its rule is
 * tested on its own in test/unit/maintenance-due.test.ts). Here, on a real embedded store:
 * a table never analysed has no statistics, and then a lookup by id scoped to its tenant in the
 * statement (`id = $1 AND merchant_id = $2 AND environment = $3`) is planned on the merchant's
 * `payments_by_merchant_created` index — every payment of the merchant walked for one row —
 * instead of the primary key (measured on the bench's ceiling store, 4,000 payments: 106 buffers
 * and ~1 ms per lookup; docs/benchmarks.md). The GET's own statement probes the key alone and
 * checks the tenant on the row (decision 0033), so it is planned on the key with or without. The
 * job analyses a table that grew, vacuums one whose rows died, and leaves a quiet store alone:
 * every request waits while PGlite vacuums or analyses.
 */
const PAYMENTS = 2000;

/** The index each scan of payments in the plan uses (none: a sequential scan). */
const indexesOf = (plan: PlanNode) => scansOf(plan, 'payments').map((scan) => scan['Index Name'] ?? scan['Node Type']);

describe(
  'embedded maintenance',
  { skip: TEST_STORE === 'postgres' ? 'the job runs on the embedded store only (PostgreSQL has autovacuum)' : false },
  () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore();
    });
    after(() => t.close());

    it(`analyses a table that grew (${PAYMENTS} payments), vacuums it when its rows die, and leaves a quiet store alone`, async () => {
      const q = t.store;
      const logs = captureLogs();
      const job = embeddedMaintenanceJob({ store: q, log: logs.log });
      // A fresh store: the migrations' few rows are below every threshold.
      assert.deepEqual(await maintainTables(q), { vacuumed: [], analysed: [] }, 'a fresh store needs nothing');

      await q.query(
        `INSERT INTO merchants (id, name, api_version, created_at) VALUES ('mer_maint', 'Maint', '2024-01-01', now())`,
      );
      await insertPayments(q, 'mer_maint', { from: 1, to: PAYMENTS }, 'pending');
      const id = `pay_${'1000'.padStart(26, '0')}`;
      const get = {
        text: 'SELECT * FROM payments WHERE id = $1 AND merchant_id = $2 AND environment = $3',
        params: [id, 'mer_maint', 'sandbox'],
      };

      // The trap, reproduced: no statistics, the merchant's index.
      const before = indexesOf(await planOf(q, get));
      assert.deepEqual(before, ['payments_by_merchant_created'], `before the job: ${before.join(', ')}`);
      // The GET's statement is out of it (decision 0033).
      assert.deepEqual(indexesOf(await planOf(q, findPaymentStatement(id))), ['payments_pkey'], 'the GET, before the job');

      // 2,000 inserted rows: past the analyse threshold (50) and the insert-vacuum one (1,000).
      const beforeRun = Date.now();
      assert.equal(await job.run(), 1);
      // The pass is logged with each statement: what, when it started, how long PGlite was held.
      const passes = logs
        .text()
        .split('\n')
        .filter((line) => line.includes(MAINTENANCE_PASS_MESSAGE))
        .map((line) => JSON.parse(line) as { maintenance: { what: string; started_at: number; ms: number }[] });
      assert.equal(passes.length, 1, logs.text());
      const logged = passes[0]?.maintenance ?? [];
      assert.deepEqual(
        logged.map((s) => s.what),
        ['read', 'vacuum payments', 'analyze payments'],
      );
      for (const s of logged) assert.ok(s.started_at >= beforeRun && s.started_at <= Date.now() && s.ms > 0, JSON.stringify(s));
      const stats = async () =>
        (
          await q.query<{ last_vacuum: Date | null; last_analyze: Date | null; n_dead_tup: number }>(
            `SELECT last_vacuum, last_analyze, n_dead_tup::int AS n_dead_tup FROM pg_stat_user_tables
             WHERE relname = 'payments' AND schemaname = current_schema()`,
          )
        )[0];
      const first = await stats();
      assert.ok(first?.last_vacuum !== null && first?.last_analyze !== null, `payments maintained: ${JSON.stringify(first)}`);
      // Its smaller statistics target was for its own ANALYZEs only.
      const [target] = await q.query<{ default_statistics_target: string }>('SHOW default_statistics_target');
      assert.equal(target?.default_statistics_target, '100');
      const after = indexesOf(await planOf(q, get));
      assert.deepEqual(after, ['payments_pkey'], `after the job: ${after.join(', ')}`);

      // Nothing changed since: nothing is vacuumed or analysed again.
      assert.deepEqual(await maintainTables(q), { vacuumed: [], analysed: [] }, 'a quiet store is left alone');

      // Half the payments change: 1,000 dead rows (past 50 + 20 % of 2,000) and 1,000 changed
      // (past 50 + 10 %): vacuumed and analysed, and the dead rows are gone.
      await q.query(`UPDATE payments SET status = 'expired', closed_at = now(), version = version + 1 WHERE id <= $1`, [
        `pay_${String(PAYMENTS / 2).padStart(26, '0')}`,
      ]);
      assert.deepEqual(await maintainTables(q), { vacuumed: ['payments'], analysed: ['payments'] });
      assert.equal((await stats())?.n_dead_tup, 0);
    });

    it('pauses between its statements at least as long as the one before took, so requests queued behind it are answered between them', async () => {
      const own = await openTestStore();
      try {
        await own.store.query(
          `INSERT INTO merchants (id, name, api_version, created_at) VALUES ('mer_pace', 'Pace', '2024-01-01', now())`,
        );
        await insertPayments(own.store, 'mer_pace', { from: 1, to: PAYMENTS }, 'pending');
        // What reached the database, in order, with how long each took, and the pauses the pass asked for.
        const log: ({ sql: string; ms: number } | { pause: number })[] = [];
        const timed = async <R>(sql: string, run: () => Promise<R>): Promise<R> => {
          const started = performance.now();
          try {
            return await run();
          } finally {
            log.push({ sql, ms: performance.now() - started });
          }
        };
        const q: Queryable = {
          query: <T extends Row>(text: string, params?: readonly unknown[]) =>
            timed(text, () => own.store.query<T>(text, params)),
          exec: (script: string) => timed(script, () => own.store.exec(script)),
        };
        const pass = await maintainTables(q, {
          pause: async (ms) => {
            log.push({ pause: ms });
          },
        });
        assert.ok(pass.vacuumed.includes('payments') && pass.analysed.includes('payments'), JSON.stringify(pass));

        const maintenance = log.filter((e) => 'sql' in e && /^(VACUUM|SET LOCAL)/.test(e.sql));
        assert.equal(maintenance.length, pass.vacuumed.length + pass.analysed.length);
        // Every VACUUM and ANALYZE comes after a pause at least as long as what ran since the pause
        // before it (the statistics read, or the previous VACUUM or ANALYZE), and never shorter than the floor.
        let sinceLastPause = 0;
        for (const [i, e] of log.entries()) {
          if ('pause' in e) {
            assert.ok(
              e.pause >= MAINTENANCE_MIN_PAUSE_MS && e.pause >= sinceLastPause,
              `pause ${i}: ${e.pause} ms after ${sinceLastPause} ms of statements`,
            );
            sinceLastPause = 0;
            continue;
          }
          if (/^(VACUUM|SET LOCAL)/.test(e.sql))
            assert.ok('pause' in (log[i - 1] ?? {}), `statement ${i} (${e.sql}) follows a pause`);
          sinceLastPause += e.ms;
        }
        assert.equal(log.filter((e) => 'pause' in e).length, maintenance.length, 'one pause before each, none after the last');
      } finally {
        await own.close();
      }
    });

    it('counts the store quiet only with no call in flight, a transaction from its BEGIN to its end', async () => {
      const store = t.store;
      assert.ok(store.quietForMs !== undefined, 'the embedded store says how long it has been quiet');
      const quiet = () => store.quietForMs?.() ?? -1;
      const slow = store.query('SELECT pg_sleep(0.05)');
      assert.equal(quiet(), 0, 'a statement in flight');
      await slow;
      let inside = -1;
      let betweenStatements = -1;
      await store.transaction(async (tx) => {
        await tx.query('SELECT 1');
        inside = quiet();
        await new Promise((resolve) => setTimeout(resolve, 30));
        betweenStatements = quiet();
        await tx.query('SELECT 2');
      });
      assert.equal(inside, 0, 'inside a transaction');
      assert.equal(betweenStatements, 0, 'a transaction open between its statements');
      await new Promise((resolve) => setTimeout(resolve, 40));
      assert.ok(quiet() >= 30, `quiet after: ${quiet()} ms`);
    });

    /** A store with payments due for maintenance, and a caller that queries it every 20 ms until stopped. */
    async function busyStore(merchant: string) {
      const own = await openTestStore();
      await own.store.query(`INSERT INTO merchants (id, name, api_version, created_at) VALUES ($1, $1, '2024-01-01', now())`, [
        merchant,
      ]);
      await insertPayments(own.store, merchant, { from: 1, to: PAYMENTS }, 'pending');
      let busy = true;
      // When the last call came back: the store is quiet from then on.
      let stoppedAt = Number.POSITIVE_INFINITY;
      const callEnds: number[] = [];
      const calls = (async () => {
        while (busy) {
          await own.store.query('SELECT count(*) FROM merchants');
          stoppedAt = Date.now();
          callEnds.push(stoppedAt);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      return {
        own,
        callEnds,
        stop: async () => {
          busy = false;
          await calls;
          return stoppedAt;
        },
      };
    }

    const passLines = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.includes(MAINTENANCE_PASS_MESSAGE))
        .map(
          (line) =>
            JSON.parse(line) as { maintenance: { what: string; started_at: number; waited_ms: number }[]; forced: boolean },
        );

    it('waits for a quiet moment of the store before each statement (decision 0034)', async () => {
      const { own, stop } = await busyStore('mer_quiet');
      try {
        const logs = captureLogs();
        const run = embeddedMaintenanceJob({ store: own.store, log: logs.log }).run();
        // The calls go on for a second and a half: nothing of the pass may start meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const stoppedAt = await stop();
        assert.ok((await run) > 0, 'the pass did its work');
        const [line, ...more] = passLines(logs.text());
        assert.equal(more.length, 0, logs.text());
        assert.equal(line?.forced, false, 'it never had to run without a quiet moment');
        const statements = line?.maintenance ?? [];
        assert.deepEqual(statements[0]?.what, 'read');
        for (const s of statements) {
          // The clock's millisecond and the timers' granularity: a few ms of slack below the quiet time.
          assert.ok(
            s.started_at >= stoppedAt + STORE_QUIET_MS - 5,
            `${s.what} started ${s.started_at - stoppedAt} ms after the calls stopped`,
          );
        }
        const first = statements[0];
        assert.ok(
          first !== undefined && first.waited_ms >= 1_000,
          `the read waited for the calls to stop: ${first?.waited_ms} ms`,
        );
        // ...and then looked again promptly: the read started within a second of the store going quiet.
        assert.ok(first.started_at <= stoppedAt + STORE_QUIET_MS + 1_000, `read ${first.started_at - stoppedAt} ms after`);
      } finally {
        await stop();
        await own.close();
      }
    });

    it('runs the pass anyway when the store stays busy past the wait, and says so', async () => {
      const { own, stop, callEnds } = await busyStore('mer_busy');
      try {
        const logs = captureLogs();
        const started = Date.now();
        const handled = await embeddedMaintenanceJob({ store: own.store, log: logs.log, maxWaitMs: 400 }).run();
        await stop();
        assert.ok(handled > 0, 'the pass did its work');
        const [line] = passLines(logs.text());
        assert.equal(line?.forced, true, logs.text());
        const statements = line?.maintenance ?? [];
        assert.ok(statements.some((s) => s.what === 'vacuum payments') && statements.some((s) => s.what === 'analyze payments'));
        // Each statement started with a call less than the quiet time behind it: not in a quiet moment.
        for (const s of statements) {
          const last = Math.max(...callEnds.filter((end) => end <= s.started_at));
          assert.ok(s.started_at - last < STORE_QUIET_MS, `${s.what}: ${s.started_at - last} ms after a call`);
        }
        assert.ok((statements[0]?.started_at ?? 0) - started >= 350, 'the pass waited for quiet until the bound ran out');
      } finally {
        await stop();
        await own.close();
      }
    });

    it("the overview's refresh, too, waits for a quiet moment before it recounts a day (decision 0034)", async () => {
      const { own, stop } = await busyStore('mer_overview');
      try {
        const run = overviewRefreshJob({ store: own.store, clock: systemClock }).run();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const rows = async () =>
          own.store.query<{ last_run_at: Date }>(`SELECT last_run_at FROM overview_refresh WHERE id = 'events'`);
        assert.deepEqual(await rows(), [], 'no refresh while the calls go on');
        const stoppedAt = await stop();
        assert.ok((await run) >= 1, "today's payments recounted");
        const [done] = await rows();
        const at = done?.last_run_at.getTime() ?? 0;
        assert.ok(at >= stoppedAt + STORE_QUIET_MS - 5, `refreshed ${at - stoppedAt} ms after the calls stopped`);
      } finally {
        await stop();
        await own.close();
      }
    });

    it('vacuums our tables and the system catalogs before their transaction ids get old enough to wrap around', async () => {
      // autovacuum_freeze_max_age at the lowest PostgreSQL accepts (100,000; the default is 200
      // million), then 110,000 transaction ids used up: one subtransaction with a write each.
      const db = await PGlite.create({
        startParams: [...PGlite.defaultStartParams, '-c', 'autovacuum_freeze_max_age=100000'],
      });
      try {
        const q: Queryable = {
          query: async <T extends Row>(text: string, params?: readonly unknown[]) =>
            (await db.query<T>(text, params === undefined ? undefined : [...params])).rows,
          exec: async (script: string) => {
            await db.exec(script);
          },
        };
        await db.exec('CREATE TABLE burn (i int)');
        await db.exec(`DO $$ BEGIN FOR i IN 1..110000 LOOP
            BEGIN INSERT INTO burn VALUES (i); EXCEPTION WHEN OTHERS THEN NULL; END;
          END LOOP; END $$`);
        const oldest = async (where: string) =>
          (await q.query<{ age: number }>(`SELECT max(age(relfrozenxid))::int AS age FROM pg_class WHERE ${where}`))[0]?.age ?? 0;
        const catalogs = `relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r'`;
        assert.ok((await oldest(catalogs)) > 100_000, 'the catalogs are past the limit');

        const pass = await maintainTables(q);
        assert.ok(pass.vacuumed.includes('burn'), `our table, by age: ${pass.vacuumed.join(', ')}`);
        for (const catalog of ['pg_catalog.pg_class', 'pg_catalog.pg_attribute', 'pg_catalog.pg_database']) {
          assert.ok(pass.vacuumed.includes(catalog), `${catalog} vacuumed`);
        }
        assert.ok((await oldest(catalogs)) < 100_000, 'every catalog frozen below the limit');
        assert.ok((await oldest(`relname = 'burn'`)) < 100_000);
        const again = await maintainTables(q);
        assert.deepEqual(again.vacuumed, [], 'nothing is due again');
      } finally {
        await db.close();
      }
    });
  },
);
