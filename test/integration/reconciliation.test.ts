import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/lib/ids.ts';
import type { SettlementReportFault } from '../../src/sandbox/settlement-reports.ts';
import { appForSuite, json } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

const DAY_MS = 24 * 3_600_000;

/** POST /reconciliation/create, GET /reconciliation/{id} and its CSV: every discrepancy kind. */
describe(`reconciliation (${TEST_STORE})`, () => {
  // On demand only: the schedule would settle charges the tests want unsettled.
  const ctx = appForSuite({ settlementDelayMs: null });

  /** A fresh day of the suite's clock, so each test's window holds only its own payments. */
  const freshWindow = () => {
    ctx.clock.advance(2 * DAY_MS);
    const from = ctx.clock.now();
    return { from: from.toISOString(), to: new Date(from.getTime() + DAY_MS).toISOString() };
  };
  const paid = (key?: string) => ctx.t.paidBankPayment(key);
  const settled = async (key?: string) => {
    const p = await paid(key);
    const res = await ctx.t.call('POST', `/sandbox/payment/${p.id}/simulate`, {
      body: { outcome: 'settled' },
      ...(key === undefined ? {} : { key }),
    });
    assert.equal(res.statusCode, 202, res.body);
    ctx.clock.advance(1_000);
    return p;
  };
  const reconcile = (body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
    ctx.t.call('POST', '/reconciliation/create', { body, ...options });
  const eventsOf = async (id: unknown) =>
    (await ctx.t.testStore.store.query<{ type: string }>('SELECT type FROM events WHERE object_id = $1 ORDER BY type', [id])).map(
      (e) => e.type,
    );

  it('all matched: 201, reconciliation.completed only; the same inputs answer the same reconciliation', async () => {
    const window = freshWindow();
    const a = await settled();
    const b = await settled();
    const res = await reconcile({ connector: 'sandbox_bank', ...window });
    assert.equal(res.statusCode, 201, res.body);
    const rec = json(res);
    assert.match(String(rec['id']), /^rec_/);
    assert.equal(rec['status'], 'matched');
    const summary = rec['summary'] as Record<string, number>;
    assert.equal(summary['report_lines'], 2);
    assert.equal(summary['matched'], 2);
    assert.equal(summary['discrepancies'], 0);
    const lines = rec['lines'] as Record<string, unknown>[];
    assert.deepEqual(lines.map((l) => l['payment_id']).sort(), [a.id, b.id].sort());
    const first = lines[0] as Record<string, Record<string, unknown>>;
    assert.equal(first['report']?.['net'], 146000);
    assert.equal(first['ours']?.['net'], 146000);
    assert.deepEqual(await eventsOf(rec['id']), ['reconciliation.completed']);

    // Re-running on the same report changes nothing: the same reconciliation, 200.
    const again = await reconcile({ connector: 'sandbox_bank', ...window });
    assert.equal(again.statusCode, 200);
    assert.equal(json(again)['id'], rec['id']);
    assert.deepEqual(await eventsOf(rec['id']), ['reconciliation.completed']);
    const [n] = await ctx.t.testStore.store.query<{ n: bigint }>(
      'SELECT count(*)::bigint AS n FROM reconciliations WHERE merchant_id = $1 AND period_from = $2',
      [ctx.t.a.id, new Date(window.from)],
    );
    assert.equal(n?.n, 1n);

    // Idempotency-Key: the stored answer again, flagged.
    const key = `rec-${Date.now()}`;
    const keyed = await reconcile({ connector: 'sandbox_bank', ...window }, { headers: { 'idempotency-key': key } });
    const replay = await reconcile({ connector: 'sandbox_bank', ...window }, { headers: { 'idempotency-key': key } });
    assert.equal(replay.statusCode, keyed.statusCode);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, keyed.body);
    const reused = await reconcile({ connector: 'sandbox_ewallet', ...window }, { headers: { 'idempotency-key': key } });
    assert.equal(reused.statusCode, 422);
    assert.equal(json(reused)['code'], 'idempotency_key_reused');
  });

  it('reports every discrepancy kind, with both events, and exports them as CSV', async () => {
    const window = freshWindow();
    const omitted = await settled();
    const duplicated = await settled();
    const amount = await settled();
    const currency = await settled();
    const ghost = await settled();
    const late = await settled();
    // The provider settles this one, but Tributary has not ingested it.
    const unrecorded = await paid();
    assert.equal(ctx.t.provider('sandbox_bank').simulate(unrecorded.charge, 'settle', undefined).status, 200);
    const faults: SettlementReportFault[] = [
      { kind: 'omit', chargeId: omitted.charge },
      { kind: 'duplicate', chargeId: duplicated.charge },
      { kind: 'amount', chargeId: amount.charge },
      { kind: 'currency', chargeId: currency.charge },
      { kind: 'unknown_reference', chargeId: ghost.charge },
      { kind: 'late', chargeId: late.charge },
    ];
    ctx.t.provider('sandbox_bank').faults = { settlementReport: faults };
    let rec: Record<string, unknown>;
    try {
      const res = await reconcile({ connector: 'sandbox_bank', ...window });
      assert.equal(res.statusCode, 201, res.body);
      rec = json(res);
    } finally {
      ctx.t.provider('sandbox_bank').faults = {};
    }
    assert.equal(rec['status'], 'discrepancies');
    const summary = rec['summary'] as Record<string, number>;
    assert.deepEqual(
      {
        matched: summary['matched'],
        missing_in_ours: summary['missing_in_ours'],
        missing_in_report: summary['missing_in_report'],
        amount_mismatch: summary['amount_mismatch'],
        currency_mismatch: summary['currency_mismatch'],
        duplicate: summary['duplicate'],
        unknown_reference: summary['unknown_reference'],
        late: summary['late'],
        discrepancies: summary['discrepancies'],
      },
      {
        matched: 2, // the duplicated line's first copy and the ghost's real line
        missing_in_ours: 1,
        missing_in_report: 1,
        amount_mismatch: 1,
        currency_mismatch: 1,
        duplicate: 1,
        unknown_reference: 1,
        late: 1,
        discrepancies: 7,
      },
    );
    const lines = rec['lines'] as Record<string, unknown>[];
    const resultOf = (paymentId: string) => lines.filter((l) => l['payment_id'] === paymentId).map((l) => l['result']);
    assert.deepEqual(resultOf(omitted.id), ['missing_in_report']);
    assert.deepEqual(resultOf(duplicated.id), ['matched', 'duplicate']);
    assert.deepEqual(resultOf(amount.id), ['amount_mismatch']);
    assert.deepEqual(resultOf(currency.id), ['currency_mismatch']);
    assert.deepEqual(resultOf(ghost.id), ['matched']);
    assert.deepEqual(resultOf(late.id), ['late']);
    assert.deepEqual(resultOf(unrecorded.id), ['missing_in_ours']);
    const unknown = lines.find((l) => l['result'] === 'unknown_reference');
    assert.equal(unknown?.['payment_id'], null);
    const amountLine = lines.find((l) => l['payment_id'] === amount.id) as Record<string, Record<string, unknown>>;
    assert.equal(amountLine['report']?.['gross'], 150001);
    assert.equal(amountLine['ours']?.['gross'], 150000);
    const missing = lines.find((l) => l['result'] === 'missing_in_report') as Record<string, unknown>;
    assert.equal(missing['report'], null);
    assert.deepEqual(await eventsOf(rec['id']), ['reconciliation.completed', 'reconciliation.discrepancy']);
    const [event] = await ctx.t.testStore.store.query<{ payload: { data: { object: Record<string, unknown> } } }>(
      "SELECT payload FROM events WHERE object_id = $1 AND type = 'reconciliation.discrepancy'",
      [rec['id']],
    );
    assert.equal(event?.payload.data.object['status'], 'discrepancies');

    // GET answers the same lines.
    const got = json(await ctx.t.call('GET', `/reconciliation/${String(rec['id'])}`));
    assert.deepEqual(got, rec);
    assert.equal(rec['lines_has_more'], false);
    assert.equal(rec['lines_next_cursor'], null);

    // The lines list pages through the same lines, in order, one at a time.
    const paged: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages <= lines.length; pages += 1) {
      const query: string = cursor === null ? 'limit=1' : `limit=1&starting_after=${cursor}`;
      const page = json(await ctx.t.call('GET', `/reconciliation/${String(rec['id'])}/lines?${query}`));
      assert.equal(page['object'], 'list');
      paged.push(...(page['data'] as Record<string, unknown>[]));
      cursor = page['next_cursor'] as string | null;
      assert.equal(page['has_more'], cursor !== null);
      if (cursor === null) break;
    }
    assert.deepEqual(paged, lines);
    assert.deepEqual(
      paged.map((l) => l['seq']),
      lines.map((_, i) => i + 1),
    );
    // Filtered by result.
    const mismatches = json(
      await ctx.t.call('GET', `/reconciliation/${String(rec['id'])}/lines?result=amount_mismatch&limit=100`),
    );
    assert.deepEqual(
      (mismatches['data'] as Record<string, unknown>[]).map((l) => l['payment_id']),
      lines.filter((l) => l['result'] === 'amount_mismatch').map((l) => l['payment_id']),
    );
    // Bad paging input is a 400 and an unknown reconciliation a 404, in the error structure.
    for (const bad of ['limit=0', 'limit=101', 'starting_after=abc', 'starting_after=0', 'result=nope']) {
      const res = await ctx.t.call('GET', `/reconciliation/${String(rec['id'])}/lines?${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.equal(json(res)['code'], 'invalid_request', bad);
    }
    const unknownRec = await ctx.t.call('GET', `/reconciliation/${newId('reconciliation', Date.now())}/lines`);
    assert.equal(unknownRec.statusCode, 404);

    // CSV: header, one row per line, exact amounts.
    const csv = await ctx.t.call('GET', `/reconciliation/${String(rec['id'])}/lines.csv`);
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const rows = csv.body.split('\r\n');
    assert.equal(rows.at(-1), '');
    assert.equal(
      rows[0],
      'result,payment_id,provider_reference,report_currency,report_gross,report_fee,report_net,report_settled_at,settlement_id,our_currency,our_gross,our_fee,our_net,our_settled_at',
    );
    assert.equal(rows.length - 2, lines.length);
    const amountRow = rows.find((r) => r.includes(amount.id))?.split(',');
    assert.deepEqual(amountRow?.slice(0, 7), ['amount_mismatch', amount.id, amount.charge, 'IDR', '150001', '4000', '146001']);
    assert.deepEqual(amountRow?.slice(9, 13), ['IDR', '150000', '4000', '146000']);
    const missingRow = rows.find((r) => r.startsWith('missing_in_report'))?.split(',');
    assert.deepEqual(missingRow?.slice(3, 8), ['', '', '', '', '']);

    // Merchant B's reconciliation of the same window sees none of A's lines.
    const other = await reconcile({ connector: 'sandbox_bank', ...window }, { key: ctx.t.b.sandboxKey });
    assert.equal(other.statusCode, 201);
    assert.equal((json(other)['summary'] as Record<string, number>)['report_lines'], 0);
    assert.equal(json(other)['status'], 'matched');
    const foreign = await ctx.t.call('GET', `/reconciliation/${String(rec['id'])}`, { key: ctx.t.b.sandboxKey });
    assert.equal(foreign.statusCode, 404);
    assert.equal(
      (await ctx.t.call('GET', `/reconciliation/${String(rec['id'])}/lines.csv`, { key: ctx.t.b.sandboxKey })).statusCode,
      404,
    );
  });

  it('a line the ingestion refused is an amount_mismatch against what the payer paid', async () => {
    const window = freshWindow();
    const p = await paid();
    const provider = ctx.t.provider('sandbox_bank');
    provider.faults = { settlementReport: [{ kind: 'amount', chargeId: p.charge }] };
    let rec: Record<string, unknown>;
    try {
      const res = await ctx.t.call('POST', `/sandbox/payment/${p.id}/simulate`, { body: { outcome: 'settled' } });
      assert.equal(json(res)['settlement_id'], null);
      rec = json(await reconcile({ connector: 'sandbox_bank', ...window }));
    } finally {
      provider.faults = {};
    }
    const lines = rec['lines'] as Record<string, unknown>[];
    assert.deepEqual(
      lines.map((l) => [l['payment_id'], l['result'], l['ours']]),
      [[p.id, 'amount_mismatch', null]],
    );
    // Once the provider reports it right, the ingestion settles it and the same window matches.
    await ctx.t.ingestSettlements('sandbox_bank');
    const again = json(await reconcile({ connector: 'sandbox_bank', ...window }));
    assert.equal(again['status'], 'matched');
    assert.notEqual(again['id'], rec['id']);
  });

  it('a later report with different content makes a new reconciliation', async () => {
    const window = freshWindow();
    const p = await settled();
    ctx.t.provider('sandbox_bank').faults = { settlementReport: [{ kind: 'omit', chargeId: p.charge }] };
    let first: Record<string, unknown>;
    try {
      first = json(await reconcile({ connector: 'sandbox_bank', ...window }));
    } finally {
      ctx.t.provider('sandbox_bank').faults = {};
    }
    assert.equal(first['status'], 'discrepancies');
    const second = await reconcile({ connector: 'sandbox_bank', ...window });
    assert.equal(second.statusCode, 201);
    assert.notEqual(json(second)['id'], first['id']);
    assert.equal(json(second)['status'], 'matched');
  });

  it('refuses bad input with 4xx and stores nothing', async () => {
    const window = freshWindow();
    const count = async () =>
      (await ctx.t.testStore.store.query<{ n: bigint }>('SELECT count(*)::bigint AS n FROM reconciliations'))[0]?.n;
    const before = await count();
    const cases: [unknown, number, string][] = [
      [{ connector: 'nope', ...window }, 400, 'invalid_request'],
      [{ connector: 'sandbox_bank', from: window.to, to: window.from }, 400, 'invalid_request'],
      [
        { connector: 'sandbox_bank', from: window.from, to: new Date(Date.parse(window.from) + 40 * DAY_MS).toISOString() },
        400,
        'invalid_request',
      ],
      [{ connector: 'sandbox_bank', from: 'yesterday', to: window.to }, 400, 'invalid_request'],
      [{ connector: 'sandbox_bank', from: window.from }, 400, 'invalid_request'],
      [{ connector: 'sandbox_bank', ...window, extra: 1 }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const res = await reconcile(body, { headers: { 'idempotency-key': `bad-${Math.random()}` } });
      assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(json(res)['code'], code);
    }
    assert.equal(await count(), before);
    assert.equal((await ctx.t.call('GET', `/reconciliation/${newId('reconciliation')}`)).statusCode, 404);
    assert.equal((await ctx.t.call('GET', '/reconciliation/rec_bad')).statusCode, 404);
  });

  it("the production key's reconciliation never sees sandbox lines", async () => {
    const window = freshWindow();
    await settled();
    const prod = await reconcile({ connector: 'sandbox_bank', ...window }, { key: ctx.t.a.productionKey });
    assert.equal(prod.statusCode, 201, prod.body);
    assert.equal((json(prod)['summary'] as Record<string, number>)['report_lines'], 0);
    const sandbox = await reconcile({ connector: 'sandbox_bank', ...window });
    assert.equal((json(sandbox)['summary'] as Record<string, number>)['report_lines'], 1);
  });

  it('a provider that cannot produce its report answers 503 and stores nothing', async () => {
    const window = freshWindow();
    const provider = ctx.t.provider('sandbox_bank');
    const original = provider.settlements.bind(provider);
    provider.settlements = () => ({ status: 503, body: { error_code: 'TEMPORARILY_UNAVAILABLE', message: 'down' } });
    try {
      const res = await reconcile({ connector: 'sandbox_bank', ...window });
      assert.equal(res.statusCode, 503);
      assert.equal(json(res)['code'], 'provider_unavailable');
    } finally {
      provider.settlements = original;
    }
  });
});
