import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/lib/ids.ts';
import { listSettlementExceptions, recordException } from '../../src/modules/settlement/settlement-exception-repo.ts';
import { resolveSettlementExceptionAndAnnounce } from '../../src/modules/settlement/settlement-exceptions.ts';
import type { SettlementReportFault } from '../../src/sandbox/settlement-reports.ts';
import { TEST_OPERATOR, appForSuite, json } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * Settlement exceptions (docs/money.md "Settlement exceptions"): lines the ingestion refused are
 * objects a merchant can list and read (only its own, only in the key's environment), that
 * operators resolve once, and that never move money.
 */
describe(`settlement exceptions (${TEST_STORE})`, () => {
  const ctx = appForSuite({ settlementDelayMs: null });

  /** A paid bank payment whose settlement line the provider reports wrongly (`fault`). */
  const refusedLine = async (fault: SettlementReportFault['kind']) => {
    const { id, charge } = await ctx.t.paidBankPayment();
    const provider = ctx.t.provider('sandbox_bank');
    provider.faults = { settlementReport: [{ kind: fault, chargeId: charge }] };
    try {
      const settled = await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'settled' } });
      assert.equal(settled.statusCode, 202, settled.body);
      assert.equal(json(settled)['settlement_id'], null, 'the refused line settled nothing');
    } finally {
      provider.faults = {};
    }
    ctx.clock.advance(1_000);
    return { paymentId: id, charge };
  };
  const eventsOf = async (objectId: string) =>
    ctx.t.testStore.store.query<{ type: string; object_version: number; payload: { data: Record<string, unknown> } }>(
      'SELECT type, object_version, payload FROM events WHERE object_id = $1 ORDER BY object_version',
      [objectId],
    );
  const list = async (query = '', key?: string) => {
    const res = await ctx.t.call('GET', `/settlement_exception${query}`, key === undefined ? {} : { key });
    assert.equal(res.statusCode, 200, res.body);
    return json(res) as { data: Record<string, unknown>[]; has_more: boolean; next_cursor: string | null };
  };

  it('a refused line is an open exception the merchant can list and read; it moved no money', async () => {
    const amount = await refusedLine('amount');
    // Nothing moved: the payment is unsettled (until the provider reports it right: the next
    // ingestion, run by the next simulate below, settles it as usual).
    assert.equal((await ctx.t.payment(amount.paymentId))['settled_at'], null);
    const currency = await refusedLine('currency');

    const all = await list('?limit=100');
    const mine = all.data.filter((e) => [amount.paymentId, currency.paymentId].includes(String(e['payment_id'])));
    assert.deepEqual(
      mine.map((e) => [e['payment_id'], e['kind'], e['status']]),
      [
        [currency.paymentId, 'currency_mismatch', 'open'],
        [amount.paymentId, 'amount_mismatch', 'open'],
      ],
      'newest first',
    );
    const a = mine[1] as Record<string, unknown>;
    assert.match(String(a['id']), /^stx_[0-9A-Z]{26}$/);
    assert.equal(a['object'], 'settlement_exception');
    assert.equal(a['connector'], 'sandbox_bank');
    assert.equal(a['provider_reference'], amount.charge);
    assert.equal(a['currency'], 'IDR');
    assert.equal(a['gross'], 150001, "the provider's figure (one unit more than paid)");
    assert.equal(a['resolved_at'], null);
    assert.equal(a['resolution'], null);
    assert.equal(a['attempt_id'], undefined, 'internal ids stay out');

    const one = await ctx.t.call('GET', `/settlement_exception/${String(a['id'])}`);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(json(one), a);

    // The merchant was told, in the transaction that recorded it: the same object as the API's.
    const events = await eventsOf(String(a['id']));
    assert.deepEqual(
      events.map((e) => `${e.type}@${e.object_version}`),
      ['settlement_exception.created@1'],
    );
    assert.deepEqual(events[0]?.payload.data['object'], a);

    // Filters.
    const kinds = await list('?kind=currency_mismatch&limit=100');
    assert.ok(kinds.data.every((e) => e['kind'] === 'currency_mismatch'));
    assert.ok(kinds.data.some((e) => e['payment_id'] === currency.paymentId));
    assert.ok((await list('?connector=sandbox_ewallet')).data.length === 0);
  });

  it('pages newest first with a cursor; bad cursors, filters and ids are refused', async () => {
    for (let i = 0; i < 3; i += 1) await refusedLine('amount');
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages += 1) {
      const page = await list(cursor === null ? '?limit=2' : `?limit=2&starting_after=${cursor}`);
      assert.ok(page.data.length <= 2);
      seen.push(...page.data.map((e) => String(e['id'])));
      cursor = page.next_cursor;
      assert.equal(page.has_more, cursor !== null);
      if (cursor === null) break;
    }
    assert.equal(new Set(seen).size, seen.length, 'no exception twice');
    assert.deepEqual(
      seen,
      (await list('?limit=100')).data.map((e) => e['id']),
    );
    for (const bad of [
      'starting_after=nope',
      `starting_after=${newId('settlementException')}`,
      'limit=0',
      'status=closed',
      'kind=x',
    ]) {
      const res = await ctx.t.call('GET', `/settlement_exception?${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.equal(json(res)['code'], 'invalid_request', bad);
    }
    for (const id of ['nope', newId('settlementException'), newId('settlement')]) {
      assert.equal((await ctx.t.call('GET', `/settlement_exception/${id}`)).statusCode, 404, id);
    }
  });

  it("another merchant, the production key, and lines attributed to nobody never show; B's cursor is A's 400", async () => {
    const { paymentId } = await refusedLine('amount');
    const [row] = await ctx.t.testStore.store.query<{ id: string }>(
      'SELECT id FROM settlement_exceptions WHERE payment_id = $1',
      [paymentId],
    );
    assert.ok(row !== undefined);
    // A line the provider sent for nobody we know: operators only.
    await recordException(ctx.t.testStore.store, {
      connector: 'sandbox_bank',
      providerReference: `sbva_nobody_${Date.now()}`,
      attemptId: 'att_unknown',
      settledAt: ctx.clock.now(),
      kind: 'unknown_reference',
      merchantId: null,
      environment: null,
      paymentId: null,
      grossMinor: 100n,
      feeMinor: 0n,
      currency: 'IDR',
      detail: 'no attempt of this connector has this id',
      now: ctx.clock.now(),
    });
    for (const key of [ctx.t.b.sandboxKey, ctx.t.a.productionKey]) {
      assert.deepEqual((await list('?limit=100', key)).data, []);
      const res = await ctx.t.call('GET', `/settlement_exception/${row.id}`, { key });
      assert.equal(res.statusCode, 404);
      assert.equal(json(res)['code'], 'resource_not_found');
      assert.equal((await ctx.t.call('GET', `/settlement_exception?starting_after=${row.id}`, { key })).statusCode, 400);
    }
    assert.ok(!(await list('?limit=100')).data.some((e) => e['kind'] === 'unknown_reference' && e['payment_id'] === null));
    const [nobody] = await ctx.t.testStore.store.query<{ id: string }>(
      "SELECT id FROM settlement_exceptions WHERE merchant_id IS NULL AND provider_reference LIKE 'sbva_nobody_%' LIMIT 1",
    );
    assert.ok(nobody !== undefined);
    assert.deepEqual(await eventsOf(nobody.id), [], 'nobody to tell');
    const operator = await listSettlementExceptions(
      ctx.t.testStore.store,
      { operator: true },
      { kind: 'unknown_reference' },
      { limit: 100 },
    );
    assert.ok(operator.ok && operator.exceptions.some((e) => e.merchantId === null));
  });

  it('an operator resolves an exception once; two at once: exactly one wins; the merchant sees the note', async () => {
    const { paymentId } = await refusedLine('amount');
    const [row] = await ctx.t.testStore.store.query<{ id: string }>(
      'SELECT id FROM settlement_exceptions WHERE payment_id = $1',
      [paymentId],
    );
    assert.ok(row !== undefined);
    const results = await Promise.all(
      ['provider corrected report #812', 'returned outside Tributary'].map((note) =>
        resolveSettlementExceptionAndAnnounce(ctx.t.testStore.store, row.id, note, ctx.clock.now(), TEST_OPERATOR),
      ),
    );
    assert.deepEqual(results.map((r) => r.kind).sort(), ['already_resolved', 'resolved']);
    const winner = results.find((r) => r.kind === 'resolved');
    assert.ok(winner !== undefined && winner.kind === 'resolved');
    const again = await resolveSettlementExceptionAndAnnounce(
      ctx.t.testStore.store,
      row.id,
      'later',
      ctx.clock.now(),
      TEST_OPERATOR,
    );
    assert.equal(again.kind, 'already_resolved');
    assert.ok(again.kind === 'already_resolved' && again.exception.resolution === winner.exception.resolution, 'final');
    assert.equal(
      (
        await resolveSettlementExceptionAndAnnounce(
          ctx.t.testStore.store,
          newId('settlementException'),
          'x',
          ctx.clock.now(),
          TEST_OPERATOR,
        )
      ).kind,
      'not_found',
    );

    // One resolved event, from the winner only.
    assert.deepEqual(
      (await eventsOf(row.id)).map((e) => `${e.type}@${e.object_version}`),
      ['settlement_exception.created@1', 'settlement_exception.resolved@2'],
    );
    const seen = json(await ctx.t.call('GET', `/settlement_exception/${row.id}`));
    assert.equal(seen['status'], 'resolved');
    assert.equal(seen['resolution'], winner.exception.resolution);
    assert.equal(seen['resolved_at'], ctx.clock.now().toISOString());
    assert.ok((await list('?status=resolved&limit=100')).data.some((e) => e['id'] === row.id));
    assert.ok(!(await list('?status=open&limit=100')).data.some((e) => e['id'] === row.id));
  });
});
