import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { creationCompleterJob } from '../../src/jobs/creation-completer.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createScriptedConnector, gate, issued, type ScriptedConnector } from '../harness/scripted-connector.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

describe('Idempotency-Key on POST /payment/create', () => {
  let shared: TestStore;
  let t: TestApp;
  let clock: ManualClock;
  let primary: ScriptedConnector;
  let secondary: ScriptedConnector;
  const LEASE_MS = 30_000;

  beforeEach(async () => {
    shared ??= await openTestStore();
    clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    primary = createScriptedConnector('scripted_primary');
    secondary = createScriptedConnector('scripted_secondary');
    t = await createTestApp({
      testStore: shared,
      clock,
      connectors: [primary, secondary],
      idempotencyLeaseMs: LEASE_MS,
      connectorTimeoutMs: 200,
    });
  });
  afterEach(() => t.close());
  after(() => shared.close());

  const create = (key: string | undefined, body: Record<string, unknown>, apiKey?: string) =>
    t.call('POST', '/payment/create', {
      body,
      ...(apiKey === undefined ? {} : { key: apiKey }),
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const count = async (referenceNo: string) =>
    (await t.testStore.store.query<{ n: bigint }>('SELECT count(*) AS n FROM payments WHERE reference_no = $1', [referenceNo]))[0]
      ?.n;

  it('replays the stored response byte for byte with Idempotent-Replayed', async () => {
    const body = quickStart();
    const first = await create('key-replay', body);
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    clock.advance(5_000);
    const second = await create('key-replay', body);
    assert.equal(second.statusCode, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.body, first.body);
    assert.equal(await count(String(body['reference_no'])), 1n);
    assert.equal(primary.calls.length, 1, 'the provider was called once');
  });

  it('treats 10.1 and 10.10 as the same request', async () => {
    const body = quickStart();
    const a = await t.call('POST', '/payment/create', {
      rawBody: `{"amount": 150000.1, "currency": "IDR", "reference_no": "${String(body['reference_no'])}"}`,
      headers: { 'idempotency-key': 'key-equal-amounts' },
    });
    const b = await t.call('POST', '/payment/create', {
      rawBody: `{"currency": "IDR", "amount": 150000.10, "reference_no": "${String(body['reference_no'])}"}`,
      headers: { 'idempotency-key': 'key-equal-amounts' },
    });
    assert.equal(a.statusCode, 201);
    assert.equal(b.headers['idempotent-replayed'], 'true');
  });

  it('answers 422 idempotency_key_reused for a different body, changing nothing', async () => {
    const body = quickStart();
    await create('key-reused', body);
    const res = await create('key-reused', { ...body, amount: 200000 });
    assert.equal(res.statusCode, 422);
    assert.equal(json(res)['code'], 'idempotency_key_reused');
    assert.equal(await count(String(body['reference_no'])), 1n);
  });

  it('scopes keys by merchant and environment', async () => {
    const a = await create('key-scope', quickStart());
    const b = await create('key-scope', quickStart(), t.b.sandboxKey);
    const c = await create('key-scope', quickStart(), t.a.productionKey);
    for (const res of [a, b, c]) assert.equal(res.statusCode, 201, res.body);
    assert.equal(new Set([a, b, c].map((r) => json(r)['id'])).size, 3);
  });

  it('answers 409 with Retry-After while the first request is still running', async () => {
    const hold = gate();
    primary.behaviour = async (request) => {
      await hold.promise;
      return issued(request);
    };
    const body = quickStart();
    const first = create('key-in-flight', body);
    while (primary.calls.length === 0) await new Promise((r) => setImmediate(r));
    const second = await create('key-in-flight', body);
    assert.equal(second.statusCode, 409);
    assert.equal(json(second)['code'], 'idempotency_request_in_progress');
    assert.equal(second.headers['retry-after'], String(LEASE_MS / 1000));
    hold.open();
    assert.equal((await first).statusCode, 201);
    const third = await create('key-in-flight', body);
    assert.equal(third.headers['idempotent-replayed'], 'true');
  });

  it('takes over an expired lease, re-sends the same attempt, and only one request finishes', async () => {
    const hold = gate();
    let callNo = 0;
    primary.behaviour = async (request) => {
      callNo += 1;
      if (callNo === 1) await hold.promise; // the original request hangs past its lease
      return issued(request);
    };
    const body = quickStart();
    const original = create('key-takeover', body);
    while (primary.calls.length === 0) await new Promise((r) => setImmediate(r));
    clock.advance(LEASE_MS + 1);
    const retry = await create('key-takeover', body);
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(primary.calls.length, 2);
    assert.equal(primary.calls[0]?.attemptId, primary.calls[1]?.attemptId, 'same attempt id → the provider dedupes');
    hold.open();
    const late = await original;
    assert.equal(late.statusCode, 201);
    assert.equal(late.body, retry.body, 'the fenced-out original answers with the stored result');
    assert.equal(await count(String(body['reference_no'])), 1n);
    const events = await t.testStore.store.query('SELECT 1 FROM events WHERE object_id = $1', [json(retry)['id']]);
    assert.equal(events.length, 1, 'one payment.pending event');
  });

  it('answers 503 provider_unavailable when every provider refuses, and the retry resumes the same payment', async () => {
    const refuse = async () => ({ kind: 'refused' as const, code: 'down', message: 'maintenance' });
    primary.behaviour = refuse;
    secondary.behaviour = refuse;
    const body = quickStart();
    const first = await create('key-unavailable', body);
    assert.equal(first.statusCode, 503, first.body);
    assert.equal(json(first)['code'], 'provider_unavailable');
    assert.equal(first.headers['retry-after'], '2');
    const paymentId = (json(first)['details'] as { payment_id: string }[])[0]?.payment_id;
    assert.match(String(paymentId), /^pay_/);
    const processing = await t.call('GET', `/payment/${String(paymentId)}`);
    assert.equal(json(processing)['status'], 'processing');

    primary.behaviour = async (request) => issued(request);
    const retry = await create('key-unavailable', body);
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(json(retry)['id'], paymentId);
    assert.equal(json(retry)['status'], 'pending');
    assert.equal(await count(String(body['reference_no'])), 1n);
  });

  it('fails over from a timed-out provider to the next candidate and records both attempts', async () => {
    primary.behaviour = (_request, signal) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const res = await create('key-failover', quickStart());
    assert.equal(res.statusCode, 201, res.body);
    const p = json(res);
    assert.equal((p['payment_method'] as { connector: string }).connector, 'scripted_secondary');
    const attempts = await t.testStore.store.query<{ seq: number; connector: string; status: string; error_code: string | null }>(
      'SELECT seq, connector, status, error_code FROM payment_attempts WHERE payment_id = $1 ORDER BY seq',
      [p['id']],
    );
    assert.deepEqual(
      attempts.map((a) => [a.seq, a.connector, a.status, a.error_code]),
      [
        [1, 'scripted_primary', 'failed', 'timeout'],
        [2, 'scripted_secondary', 'issued', null],
      ],
    );
  });

  it('the completer finishes an abandoned create, or fails it when no provider answers', async () => {
    primary.behaviour = async () => ({ kind: 'refused', code: 'down', message: 'maintenance' });
    secondary.behaviour = primary.behaviour;
    const abandoned = await create(undefined, quickStart());
    assert.equal(abandoned.statusCode, 503);
    const failedId = (json(abandoned)['details'] as { payment_id: string }[])[0]?.payment_id;
    clock.advance(1); // the completer takes the oldest first
    const recoveringBody = quickStart();
    const recovering = await create('key-completer', recoveringBody);
    const recoveredId = (json(recovering)['details'] as { payment_id: string }[])[0]?.payment_id;

    const job = creationCompleterJob({ ...t.createDeps, abandonAfterMs: 60_000 });
    clock.advance(30_000);
    assert.equal(await job.run(), 0, 'nothing is abandoned before CREATION_ABANDON_MS');
    clock.advance(31_000);
    // Now one provider is back: the first abandoned create (oldest) still finds none.
    let calls = 0;
    primary.behaviour = async (request) => {
      calls += 1;
      return calls <= 1 ? { kind: 'refused', code: 'down', message: 'still down' } : issued(request);
    };
    assert.equal(await job.run(), 2);

    const failed = json(await t.call('GET', `/payment/${String(failedId)}`));
    assert.equal(failed['status'], 'failed');
    assert.equal(failed['failure_code'], 'provider_unavailable');
    const recovered = json(await t.call('GET', `/payment/${String(recoveredId)}`));
    assert.equal(recovered['status'], 'pending');
    // A late retry of the recovered one gets the final answer.
    const late = await create('key-completer', recoveringBody);
    assert.equal(late.statusCode, 201);
    assert.equal(late.headers['idempotent-replayed'], 'true');
    assert.equal(json(late)['id'], recoveredId);
    assert.equal(json(late)['status'], 'pending');
    const types = await t.testStore.store.query<{ type: string }>('SELECT type FROM events WHERE object_id = $1', [failedId]);
    assert.deepEqual(
      types.map((e) => e.type),
      ['payment.failed'],
    );
  });
});
