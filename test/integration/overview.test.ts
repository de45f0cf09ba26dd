import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Queryable } from '../../src/db/store.ts';
import {
  OVERVIEW_MIN_PAUSE_MS,
  OVERVIEW_REFRESH_LOCK,
  readOverview,
  refreshOverview,
  ttpBucketOf,
  TTP_BUCKETS,
} from '../../src/modules/overview/index.ts';
import { moveTo, seedPayment } from '../harness/payment-fixtures.ts';
import { appForSuite, json, quickStart, SUITE_START, type TestApp } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The overview's day aggregates (docs/overview.md) on this store: after the refresh they equal a
 * recount made here, independently, from payments, attempts and refunds; a second run changes
 * nothing; a run after new payments (the incremental path, from the events) and a rebuild from
 * scratch agree; and the page shows one merchant's one environment only, with its freshness.
 */

const MIN = 60_000;
const DAY = 86_400_000;
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

interface PaymentRow extends Record<string, unknown> {
  id: string;
  merchant_id: string;
  environment: string;
  created_at: Date;
  succeeded_at: Date | null;
  currency: string;
  channel: string | null;
  status: string;
  amount_minor: bigint;
  late_payment: { amount_minor: string } | null;
}

/** Both tables as sorted lines of text, from the store. */
async function aggregates(db: Queryable): Promise<{ cohort: string[]; activity: string[] }> {
  const cohort = await db.query(
    `SELECT merchant_id, environment, to_char(day, 'YYYY-MM-DD') AS day, currency, channel, connector, created_count,
       processing_count, pending_count, succeeded_count, failed_count, expired_count, canceled_count, reversed_count,
       paid_count, paid_minor, late_count, late_minor, array_to_string(ttp_buckets, ',') AS ttp
     FROM overview_cohort_days`,
  );
  const activity = await db.query(
    `SELECT merchant_id, environment, to_char(day, 'YYYY-MM-DD') AS day, currency, paid_count, paid_minor, refunds_count,
       refunded_minor FROM overview_activity_days`,
  );
  const line = (r: Record<string, unknown>) => Object.values(r).map(String).join('|');
  return { cohort: cohort.map(line).sort(), activity: activity.map(line).sort() };
}

/** The same two tables recounted here, in TypeScript, from the source rows. */
async function recount(db: Queryable): Promise<{ cohort: string[]; activity: string[] }> {
  const payments = await db.query<PaymentRow>(
    `SELECT id, merchant_id, environment, created_at, succeeded_at, currency, channel, status, amount_minor, late_payment FROM payments`,
  );
  const attempts = await db.query<{ payment_id: string; seq: number; connector: string }>(
    `SELECT payment_id, seq, connector FROM payment_attempts`,
  );
  const refunds = await db.query<{
    merchant_id: string;
    environment: string;
    currency: string;
    amount_minor: bigint;
    completed_at: Date;
  }>(`SELECT merchant_id, environment, currency, amount_minor, completed_at FROM refunds WHERE status = 'succeeded'`);
  const latest = new Map<string, { seq: number; connector: string }>();
  for (const a of attempts) {
    const seen = latest.get(a.payment_id);
    if (seen === undefined || a.seq > seen.seq) latest.set(a.payment_id, { seq: a.seq, connector: a.connector });
  }
  const statuses = ['processing', 'pending', 'succeeded', 'failed', 'expired', 'canceled', 'reversed'];
  const cohort = new Map<
    string,
    { counts: bigint[]; paid: bigint; paidMinor: bigint; late: bigint; lateMinor: bigint; ttp: number[] }
  >();
  const activity = new Map<string, bigint[]>();
  const act = (key: string) => {
    const row = activity.get(key) ?? [0n, 0n, 0n, 0n];
    activity.set(key, row);
    return row;
  };
  for (const p of payments) {
    const key = [
      p.merchant_id,
      p.environment,
      utcDay(p.created_at),
      p.currency,
      p.channel ?? '',
      latest.get(p.id)?.connector ?? '',
    ].join('|');
    const row = cohort.get(key) ?? {
      counts: statuses.map(() => 0n),
      paid: 0n,
      paidMinor: 0n,
      late: 0n,
      lateMinor: 0n,
      ttp: new Array<number>(TTP_BUCKETS).fill(0),
    };
    row.counts[statuses.indexOf(p.status)] = (row.counts[statuses.indexOf(p.status)] ?? 0n) + 1n;
    if (p.succeeded_at !== null) {
      row.paid += 1n;
      row.paidMinor += p.amount_minor;
      const b = ttpBucketOf((p.succeeded_at.getTime() - p.created_at.getTime()) / 1000);
      row.ttp[b] = (row.ttp[b] ?? 0) + 1;
      const a = act([p.merchant_id, p.environment, utcDay(p.succeeded_at), p.currency].join('|'));
      a[0] = (a[0] ?? 0n) + 1n;
      a[1] = (a[1] ?? 0n) + p.amount_minor;
    }
    if (p.late_payment !== null) {
      row.late += 1n;
      row.lateMinor += BigInt(p.late_payment.amount_minor);
    }
    cohort.set(key, row);
  }
  for (const r of refunds) {
    const a = act([r.merchant_id, r.environment, utcDay(r.completed_at), r.currency].join('|'));
    a[2] = (a[2] ?? 0n) + 1n;
    a[3] = (a[3] ?? 0n) + r.amount_minor;
  }
  return {
    cohort: [...cohort.entries()]
      .map(([key, r]) => {
        const created = r.counts.reduce((s, c) => s + c, 0n);
        return [key, created, ...r.counts, r.paid, r.paidMinor, r.late, r.lateMinor, r.ttp.join(',')].join('|');
      })
      .sort(),
    activity: [...activity.entries()].map(([key, r]) => [key, ...r].join('|')).sort(),
  };
}

async function signIn(t: TestApp, key: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ api_key: key }).toString(),
  });
  assert.equal(res.statusCode, 303, res.body);
  const header = res.headers['set-cookie'];
  const cookie = (Array.isArray(header) ? header[0] : header)?.split(';')[0];
  assert.ok(cookie !== undefined && cookie.length > 0, 'no session cookie');
  return cookie;
}

const home = (t: TestApp, cookie?: string): Promise<LightMyRequestResponse> =>
  t.app.inject({ method: 'GET', url: '/dashboard', headers: cookie === undefined ? {} : { cookie } });

describe(`overview aggregates (${TEST_STORE})`, () => {
  const ctx = appForSuite();
  const db = () => ctx.t.testStore.store;
  // One row per chunk statement (decision 0036): every day here spans several chunks, and days with
  // payments created in the same millisecond make a chunk of that millisecond. The pauses asked for
  // are recorded, not slept.
  const pauses: number[] = [];
  const refresh = () =>
    refreshOverview({
      store: db(),
      clock: ctx.clock,
      chunkRows: 1,
      pause: async (ms) => {
        pauses.push(ms);
      },
    });

  /** A payment created through the API with `key` (default merchant A sandbox), paid `afterMs` later. */
  const paidViaApi = async (amount: number, channel: 'bank' | 'ewallet', afterMs: number, key?: string) => {
    const res = await ctx.t.call('POST', '/payment/create', {
      body: quickStart({ amount, channel }),
      ...(key === undefined ? {} : { key }),
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = String(json(res)['id']);
    ctx.clock.advance(afterMs);
    const sim = await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, {
      body: { outcome: 'succeeded' },
      ...(key === undefined ? {} : { key }),
    });
    assert.equal(sim.statusCode, 202, sim.body);
    await ctx.t.deliverNotifications();
    return id;
  };

  it('before any run, the page says the overview is not computed yet and draws nothing', async () => {
    const cookie = await signIn(ctx.t, ctx.t.a.sandboxKey);
    const page = await home(ctx.t, cookie);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /id="freshness"[^>]*>\s*The overview has not been computed yet/);
    assert.doesNotMatch(page.body, /<svg/);
  });

  it('without a session, /dashboard sends to the sign-in page', async () => {
    const res = await home(ctx.t);
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers['location']), /^\/dashboard\/login/);
  });

  it('the first run rebuilds every day, equal to a recount from payments, attempts and refunds', async () => {
    const a = ctx.t.a.id;
    // History written straight to the store (no events): days before today, various outcomes.
    for (const [daysAgo, status, minutes] of [
      [3, 'succeeded', 2],
      [3, 'failed', 0],
      [2, 'succeeded', 45],
      [2, 'expired', 0],
      [2, 'pending', 0],
      [1, 'canceled', 0],
    ] as const) {
      const createdAt = new Date(SUITE_START.getTime() - daysAgo * DAY);
      const p = await seedPayment(db(), { merchantId: a, createdAt, status: status === 'succeeded' ? 'pending' : status });
      if (status === 'succeeded') await moveTo(db(), p.id, 'succeeded', new Date(createdAt.getTime() + minutes * MIN));
    }
    // A late payment on an expired one (the column the lifecycle sets).
    const late = await seedPayment(db(), {
      merchantId: a,
      createdAt: new Date(SUITE_START.getTime() - 2 * DAY),
      status: 'expired',
    });
    await db().query(`UPDATE payments SET late_payment = $2, version = version + 1 WHERE id = $1`, [
      late.id,
      JSON.stringify({
        attempt_id: 'att_x',
        received_at: SUITE_START.toISOString(),
        amount_minor: '4200000',
        resolution: 'refund_required',
        reason: 'expired',
      }),
    ]);
    // Other merchant, other environment: must never show on A's sandbox overview.
    await seedPayment(db(), {
      merchantId: a,
      environment: 'production',
      createdAt: SUITE_START,
      status: 'succeeded',
      amountMinor: 33_333_300n,
    });
    await paidViaApi(777_777, 'bank', 3 * MIN, ctx.t.b.sandboxKey);
    // Through the API (attempts, events): paid after 3 min and 20 s; one refunded in part.
    const paid = await paidViaApi(150_000, 'bank', 3 * MIN);
    await paidViaApi(250_000, 'ewallet', 20_000);
    const refund = await ctx.t.call('POST', `/payment/${paid}/refund`, { body: { amount: 50_000 } });
    assert.equal(refund.statusCode, 201, refund.body);
    await ctx.t.deliverNotifications();
    const refunded = await db().query<{ status: string }>(`SELECT status FROM refunds WHERE payment_id = $1`, [paid]);
    assert.deepEqual(
      refunded.map((r) => r.status),
      ['succeeded'],
    );

    const outcome = await refresh();
    assert.equal(outcome.ran, true);
    assert.equal(outcome.rebuilt, true);
    assert.ok(outcome.daysRecomputed >= 4, `days: ${outcome.daysRecomputed}`);
    const got = await aggregates(db());
    assert.ok(got.cohort.length >= 6 && got.activity.length >= 3, JSON.stringify(got));
    assert.deepEqual(got, await recount(db()));
  });

  it('running again changes nothing (a recount, not an increment)', async () => {
    const before = await aggregates(db());
    const outcome = await refresh();
    assert.equal(outcome.rebuilt, false);
    assert.deepEqual(await aggregates(db()), before);
  });

  it('folds new payments in from the events (incremental run), and a rebuild from scratch agrees', async () => {
    ctx.clock.advance(DAY);
    await paidViaApi(90_000, 'ewallet', 7 * MIN);
    const pending = await ctx.t.call('POST', '/payment/create', { body: quickStart({ amount: 10_000, channel: 'bank' }) });
    assert.equal(pending.statusCode, 201, pending.body);
    const before = await aggregates(db());
    ctx.clock.advance(90_000);
    const outcome = await refresh();
    assert.equal(outcome.rebuilt, false);
    assert.ok(outcome.daysRecomputed >= 1);
    const incremental = await aggregates(db());
    assert.notDeepEqual(incremental, before, 'the new payments were folded in');
    assert.deepEqual(incremental, await recount(db()));

    await db().query(`DELETE FROM overview_refresh`);
    await db().query(`DELETE FROM overview_cohort_days`);
    await db().query(`DELETE FROM overview_activity_days`);
    const rebuilt = await refresh();
    assert.equal(rebuilt.rebuilt, true);
    assert.deepEqual(await aggregates(db()), incremental);
  });

  it('recounts a day in chunks and pauses between them, at least as long as each took', async () => {
    ctx.clock.advance(MIN);
    for (const amount of [11_000, 12_000, 13_000]) {
      const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ amount, channel: 'bank' }) });
      assert.equal(res.statusCode, 201, res.body);
      ctx.clock.advance(1_000);
    }
    const [today] = await db().query<{ n: bigint }>(
      `SELECT count(*) AS n FROM payments WHERE merchant_id = $1 AND environment = 'sandbox' AND created_at >= $2`,
      [ctx.t.a.id, new Date(`${utcDay(ctx.clock.now())}T00:00:00Z`)],
    );
    assert.ok(Number(today?.n) >= 5, `payments today: ${today?.n}`);
    pauses.length = 0;
    ctx.clock.advance(MIN);
    assert.equal((await refresh()).ran, true);
    assert.deepEqual(await aggregates(db()), await recount(db()));
    // At least one pause between each two of today's chunks (one payment each here).
    assert.ok(pauses.length >= Number(today?.n) - 1, `pauses: ${pauses.length}`);
    for (const ms of pauses) assert.ok(ms >= OVERVIEW_MIN_PAUSE_MS, `pause ${ms} ms`);
  });

  it(
    'one process refreshes at a time: while another holds the lock, a run skips and changes nothing',
    { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only: the embedded store is one process with one session' },
    async () => {
      const before = await aggregates(db());
      const [state] = await db().query<{ last_run_at: Date }>(`SELECT last_run_at FROM overview_refresh`);
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked: () => void = () => undefined;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = db().withConnection(async (conn) => {
        await conn.query(`SELECT pg_advisory_lock(${OVERVIEW_REFRESH_LOCK})`);
        locked();
        await released;
        await conn.query(`SELECT pg_advisory_unlock(${OVERVIEW_REFRESH_LOCK})`);
      });
      await isLocked;
      ctx.clock.advance(MIN);
      await paidViaApi(40_000, 'bank', MIN);
      const skipped = await refresh();
      release();
      await holder;
      assert.deepEqual(skipped, { ran: false, daysRecomputed: 0, rebuilt: false });
      assert.deepEqual(await aggregates(db()), before);
      const [after] = await db().query<{ last_run_at: Date }>(`SELECT last_run_at FROM overview_refresh`);
      assert.deepEqual(after?.last_run_at, state?.last_run_at);
      assert.equal((await refresh()).ran, true);
      assert.deepEqual(await aggregates(db()), await recount(db()));
    },
  );

  it('an event dated ahead (a clock running fast) does not carry the cursor past later events', async () => {
    const [any] = await db().query<{ id: string }>(`SELECT id FROM payments WHERE merchant_id = $1 LIMIT 1`, [ctx.t.a.id]);
    await db().query(
      `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, api_version, payload, created_at)
       VALUES ('evt_ahead', $1, 'sandbox', 'payment.settled', 'payment', $2, 99, '2026-11-01', '{}', $3)`,
      [ctx.t.a.id, any?.id, new Date(ctx.clock.now().getTime() + DAY)],
    );
    assert.equal((await refresh()).ran, true);
    ctx.clock.advance(10 * MIN);
    await paidViaApi(60_000, 'bank', MIN);
    ctx.clock.advance(MIN);
    await refresh();
    assert.deepEqual(await aggregates(db()), await recount(db()));
    await db().query(`DELETE FROM events WHERE id = 'evt_ahead'`);
  });

  it("reads one merchant's one environment: totals match its own payments only", async () => {
    const now = ctx.clock.now();
    const o = await readOverview(db(), { merchantId: ctx.t.a.id, environment: 'sandbox' }, now);
    const [own] = await db().query<{ n: bigint; paid: bigint; minor: bigint }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE succeeded_at IS NOT NULL) AS paid,
         coalesce(sum(amount_minor) FILTER (WHERE succeeded_at IS NOT NULL), 0)::bigint AS minor
       FROM payments WHERE merchant_id = $1 AND environment = 'sandbox' AND created_at >= $2`,
      [ctx.t.a.id, new Date(`${o.days[0]}T00:00:00Z`)],
    );
    assert.equal(o.createdCount, own?.n);
    assert.equal(o.statuses.succeeded + o.statuses.reversed, own?.paid);
    const idr = o.volume.find((v) => v.currency === 'IDR');
    assert.equal(
      idr?.days.reduce((s, d) => s + d.minor, 0n),
      own?.minor,
    );
    assert.deepEqual(
      o.refunds.map((r) => [r.currency, r.count, r.minor]),
      [['IDR', 1n, 5_000_000n]],
    );
    assert.deepEqual(
      o.late.map((r) => [r.currency, r.count, r.minor]),
      [['IDR', 1n, 4_200_000n]],
    );
    assert.equal(
      o.timeToPay.reduce((s, c) => s + c, 0),
      Number(own?.paid),
    );
    const production = await readOverview(db(), { merchantId: ctx.t.a.id, environment: 'production' }, now);
    assert.equal(production.createdCount, 1n);
    assert.equal(
      production.volume[0]?.days.reduce((s, d) => s + d.minor, 0n),
      33_333_300n,
    );
    const b = await readOverview(db(), { merchantId: ctx.t.b.id, environment: 'sandbox' }, now);
    assert.equal(
      b.volume[0]?.days.reduce((s, d) => s + d.minor, 0n),
      77_777_700n,
    );
  });

  it('the page shows the numbers as text, fresh, and nothing of another merchant or environment', async () => {
    const cookie = await signIn(ctx.t, ctx.t.a.sandboxKey);
    const page = await home(ctx.t, cookie);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /id="nav-overview" class="current"/);
    assert.match(page.body, /id="freshness">\s*Updated <time/);
    assert.match(page.body, /<svg\s+class="chart-svg"[^>]*role="img"[^>]*aria-label="Gross volume per day in IDR/);
    // A's gross volume (1,500,000 + 2,500,000 + 900,000 IDR, API ones; 300,000 seeded) as text.
    const [sum] = await db().query<{ minor: bigint }>(
      `SELECT sum(amount_minor)::bigint AS minor FROM payments WHERE merchant_id = $1 AND environment = 'sandbox' AND succeeded_at IS NOT NULL`,
      [ctx.t.a.id],
    );
    const digits = (sum?.minor ?? 0n).toString();
    const major = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    assert.ok(page.body.includes(`IDR ${major}.${digits.slice(-2)}`), `gross volume IDR ${major} on the page`);
    assert.match(page.body, /id="ttp-median"/);
    assert.match(page.body, /<table class="chart-table meters stack" id="rate-channel">/);
    assert.doesNotMatch(page.body, /777,777/, "merchant B's amount");
    assert.doesNotMatch(page.body, /333,333/, 'the production amount');
  });

  it('says so when the numbers are stale (the refresh has not run for more than 5 minutes)', async () => {
    ctx.clock.advance(10 * MIN);
    const cookie = await signIn(ctx.t, ctx.t.a.sandboxKey);
    const page = await home(ctx.t, cookie);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /class="notice bad" id="freshness"/);
    assert.match(page.body, /has not run since/);
  });
});
