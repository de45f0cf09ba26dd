import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { markPaymentFailed } from '../../src/modules/payments/payment-repo.ts';
import { createTestApp, json, quickStart, ref, type TestApp } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

describe(`concurrency and reference_no (${TEST_STORE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const countByRef = async (referenceNo: string) =>
    (await t.testStore.store.query<{ n: bigint }>('SELECT count(*) AS n FROM payments WHERE reference_no = $1', [referenceNo]))[0]
      ?.n;

  it('50 concurrent creates with one Idempotency-Key make exactly one payment', async () => {
    const body = quickStart();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.call('POST', '/payment/create', { body, headers: { 'idempotency-key': `same-${String(body['reference_no'])}` } }),
      ),
    );
    assert.equal(await countByRef(String(body['reference_no'])), 1n);
    const created = responses.filter((r) => r.statusCode === 201);
    const inProgress = responses.filter((r) => r.statusCode === 409);
    assert.equal(created.length + inProgress.length, 50, responses.map((r) => r.statusCode).join(','));
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => json(r)['id'])).size, 1, 'every 201 names the same payment');
    assert.equal(created.filter((r) => r.headers['idempotent-replayed'] !== 'true').length, 1, 'exactly one fresh 201');
    for (const r of inProgress) {
      assert.equal(json(r)['code'], 'idempotency_request_in_progress');
      assert.ok(Number(r.headers['retry-after']) >= 1);
    }
  });

  it('20 concurrent creates with one reference_no and different keys: one live payment, the rest 409 naming it', async () => {
    const referenceNo = ref('race');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call('POST', '/payment/create', {
          body: quickStart({ reference_no: referenceNo }),
          headers: { 'idempotency-key': `race-${referenceNo}-${i}` },
        }),
      ),
    );
    const created = responses.filter((r) => r.statusCode === 201);
    assert.equal(created.length, 1, responses.map((r) => r.statusCode).join(','));
    const winner = json(created[0] as (typeof responses)[number])['id'];
    for (const r of responses.filter((x) => x.statusCode !== 201)) {
      assert.equal(r.statusCode, 409);
      const error = json(r);
      assert.equal(error['code'], 'reference_no_conflict');
      assert.equal((error['details'] as { payment_id: string }[])[0]?.payment_id, winner);
    }
    assert.equal(await countByRef(referenceNo), 1n);
    // The losers stored nothing: their keys are free for a different request.
    const reuse = await t.call('POST', '/payment/create', {
      body: quickStart(),
      headers: {
        'idempotency-key': `race-${referenceNo}-${responses.indexOf(responses.find((r) => r.statusCode === 409) as (typeof responses)[number])}`,
      },
    });
    assert.equal(reuse.statusCode, 201, reuse.body);
  });

  it('reference_no is free again once the payment is failed, but not while it is live', async () => {
    const body = quickStart();
    const first = json(await t.call('POST', '/payment/create', { body }));
    const conflict = await t.call('POST', '/payment/create', { body });
    assert.equal(conflict.statusCode, 409);
    // Move the first payment to a terminal state (the cancel and provider flows do this in production).
    const now = new Date();
    await t.testStore.store.query("UPDATE payments SET status = 'failed', version = version + 1, updated_at = $2 WHERE id = $1", [
      first['id'],
      now,
    ]);
    const reused = await t.call('POST', '/payment/create', { body });
    assert.equal(reused.statusCode, 201, reused.body);
    assert.notEqual(json(reused)['id'], first['id']);
    assert.equal(await countByRef(String(body['reference_no'])), 2n);
  });

  it('reference_no is per merchant and per environment', async () => {
    const body = quickStart();
    for (const key of [t.a.sandboxKey, t.b.sandboxKey, t.a.productionKey]) {
      const res = await t.call('POST', '/payment/create', { key, body });
      assert.equal(res.statusCode, 201, res.body);
    }
  });

  it('markPaymentFailed only moves processing payments', async () => {
    const p = json(await t.call('POST', '/payment/create', { body: quickStart() }));
    const moved = await markPaymentFailed(t.testStore.store, {
      id: String(p['id']),
      failureCode: 'x',
      failureMessage: 'x',
      updatedAt: new Date(),
      version: Number(p['version']) + 1,
    });
    assert.equal(moved, false, 'a pending payment is not processing');
  });
});
