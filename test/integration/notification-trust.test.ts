import assert from 'node:assert/strict';
import { timingSafeEqual } from 'node:crypto';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import type { ChargeSnapshot, ProviderChargeStatus, QueryOutcome } from '../../src/connectors/core/connector.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createScriptedConnector, type ScriptedConnector } from '../harness/scripted-connector.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { openTestStore, TEST_STORE, type TestStore } from '../harness/test-store.ts';

/**
 * Notification trust (docs/connectors.md): a provider that authenticates its callbacks with a
 * static token, and echoes none of our metadata, is a trigger and nothing more. What the payment
 * becomes is what the provider's status API says, and the attempt it names is looked up only
 * among this connector's attempts.
 */
const TOKEN = 'token-connector-callback-token-0001';

interface TokenConnector extends ScriptedConnector {
  /** What the provider's status API answers, per attempt (absent: it does not know the charge). */
  status: Map<string, { status: ProviderChargeStatus; sequence: number; amountMinor: bigint }>;
  unavailable: boolean;
  queries: number;
}

/** A token-authenticated connector: the scripted one, plus callbacks and a status API the test sets. */
function tokenConnector(name: string): TokenConnector {
  const base = createScriptedConnector(name);
  const snapshot = (
    attemptId: string,
    s: { status: ProviderChargeStatus; sequence: number; amountMinor: bigint },
  ): ChargeSnapshot => ({
    providerReference: `scripted_${attemptId}`,
    attemptId,
    owner: null,
    status: s.status,
    amountMinor: s.amountMinor,
    amountPaidMinor: s.status === 'paid' ? s.amountMinor : 0n,
    currency: 'IDR',
    sequence: s.sequence,
    paidAt: s.status === 'paid' ? new Date('2026-11-21T10:01:00Z') : null,
    failureCode: null,
  });
  const c: TokenConnector = {
    ...base,
    capabilities: { ...base.capabilities, notificationTrust: 'query' },
    status: new Map(),
    unavailable: false,
    queries: 0,
    async createCharge(request, ctx) {
      c.calls.push(request);
      return c.behaviour(request, ctx.signal);
    },
    verifyNotification(n) {
      const token = n.headers['x-callback-token'];
      if (token === undefined) return { ok: false, reason: 'missing_signature' };
      const a = Buffer.from(token);
      const b = Buffer.from(TOKEN);
      return a.length === b.length && timingSafeEqual(a, b) ? { ok: true } : { ok: false, reason: 'bad_signature' };
    },
    parseNotification(rawBody) {
      const body = JSON.parse(rawBody) as { id: string; external_id: string; status: string; amount: number };
      // What the body claims; with `query` trust only the ids are used.
      return {
        ok: true,
        eventId: body.id,
        snapshot: snapshot(body.external_id, { status: 'paid', sequence: 99, amountMinor: BigInt(body.amount) }),
      };
    },
    async queryCharge(request): Promise<QueryOutcome> {
      c.queries += 1;
      if (c.unavailable) return { kind: 'unknown', code: 'timeout', message: 'no answer' };
      const s = c.status.get(request.attemptId);
      return s === undefined ? { kind: 'not_found' } : { kind: 'found', snapshot: snapshot(request.attemptId, s) };
    },
  };
  return c;
}

describe(`notification trust: query (${TEST_STORE})`, () => {
  let shared: TestStore;
  let t: TestApp;
  let tokens: TokenConnector;
  let other: TokenConnector;

  beforeEach(async () => {
    shared ??= await openTestStore();
    tokens = tokenConnector('token_bank');
    other = tokenConnector('token_other');
    t = await createTestApp({
      testStore: shared,
      clock: new ManualClock(new Date('2026-11-21T10:00:00Z')),
      connectors: [tokens, other],
    });
  });
  afterEach(() => t.close());
  after(() => shared.close());

  const create = async () => {
    const res = await t.call('POST', '/payment/create', { body: quickStart({ amount: 150000 }) });
    assert.equal(res.statusCode, 201, res.body);
    const id = String(json(res)['id']);
    const rows = await t.testStore.store.query<{ id: string; connector: string }>(
      'SELECT id, connector FROM payment_attempts WHERE payment_id = $1',
      [id],
    );
    const attempt = rows[0];
    assert.ok(attempt !== undefined);
    return { id, attemptId: attempt.id, connector: attempt.connector };
  };
  const callback = (connector: string, attemptId: string, eventId: string, token = TOKEN) =>
    t.call('POST', `/provider/${connector}/callback`, {
      key: null,
      rawBody: JSON.stringify({ id: eventId, external_id: attemptId, status: 'PAID', amount: 15_000_000 }),
      headers: { 'content-type': 'application/json', 'x-callback-token': token },
    });
  const notificationRow = async (eventId: string) =>
    (
      await t.testStore.store.query<{ status: string; outcome: string | null; payment_id: string | null }>(
        'SELECT status, outcome, payment_id FROM provider_notifications WHERE provider_event_id = $1',
        [eventId],
      )
    )[0];

  it('applies what the status API says, not what the callback claims', async () => {
    const p = await create();
    assert.equal(p.connector, 'token_bank');
    tokens.status.set(p.attemptId, { status: 'pending', sequence: 1, amountMinor: 15_000_000n });
    assert.equal((await callback('token_bank', p.attemptId, 'evt_claims_paid')).statusCode, 200);
    await t.deliverNotifications();
    assert.equal(tokens.queries, 1, 'the callback made one status query');
    assert.equal((await t.payment(p.id))['status'], 'pending', 'a callback alone does not pay a payment');

    tokens.status.set(p.attemptId, { status: 'paid', sequence: 2, amountMinor: 15_000_000n });
    assert.equal((await callback('token_bank', p.attemptId, 'evt_really_paid')).statusCode, 200);
    await t.deliverNotifications();
    assert.equal((await t.payment(p.id))['status'], 'succeeded');
    const row = await notificationRow('evt_really_paid');
    assert.equal(row?.status, 'processed');
    assert.equal(row?.payment_id, p.id, 'the owner was found from the attempt id');
    assert.deepEqual(await t.eventTypes(p.id), ['payment.pending', 'payment.succeeded']);
  });

  it("finds the attempt only among the connector's own: another connector's callback changes nothing", async () => {
    const p = await create();
    tokens.status.set(p.attemptId, { status: 'paid', sequence: 2, amountMinor: 15_000_000n });
    other.status.set(p.attemptId, { status: 'paid', sequence: 2, amountMinor: 15_000_000n });
    assert.equal((await callback('token_other', p.attemptId, 'evt_wrong_connector')).statusCode, 200);
    await t.deliverNotifications();
    assert.equal((await t.payment(p.id))['status'], 'pending');
    const row = await notificationRow('evt_wrong_connector');
    assert.equal(row?.status, 'ignored');
    assert.equal(row?.payment_id, null);
  });

  it('ignores a charge the provider does not know, and waits when the provider does not answer', async () => {
    const p = await create();
    assert.equal((await callback('token_bank', p.attemptId, 'evt_unknown_charge')).statusCode, 200);
    await t.deliverNotifications();
    assert.equal((await notificationRow('evt_unknown_charge'))?.outcome, 'the provider does not know the charge');

    tokens.unavailable = true;
    assert.equal((await callback('token_bank', p.attemptId, 'evt_provider_down')).statusCode, 200);
    await t.deliverNotifications();
    const waiting = await notificationRow('evt_provider_down');
    assert.equal(waiting?.status, 'received', 'kept for another try');
    assert.equal(waiting?.outcome, 'provider status unavailable');
    assert.equal((await t.payment(p.id))['status'], 'pending');
  });

  it("gives a failed-over attempt's late money back through that attempt's connector, by the reference it reported", async () => {
    // token_bank does not answer in time: the payment fails over to token_other, which issues.
    tokens.behaviour = (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve({ kind: 'unknown', code: 'timeout', message: 'no answer' })),
      );
    const res = await t.call('POST', '/payment/create', { body: quickStart({ amount: 150000 }) });
    assert.equal(res.statusCode, 201, res.body);
    const id = String(json(res)['id']);
    const attempts = await t.testStore.store.query<{ id: string; connector: string; status: string }>(
      'SELECT id, connector, status FROM payment_attempts WHERE payment_id = $1 ORDER BY seq',
      [id],
    );
    assert.deepEqual(
      attempts.map((a) => [a.connector, a.status]),
      [
        ['token_bank', 'failed'],
        ['token_other', 'issued'],
      ],
    );
    const stray = attempts[0]?.id as string;
    // The payer paid on the charge token_bank made after all.
    tokens.status.set(stray, { status: 'paid', sequence: 2, amountMinor: 15_000_000n });
    assert.equal((await callback('token_bank', stray, 'evt_stray_paid')).statusCode, 200);
    await t.deliverNotifications();
    const p = await t.payment(id);
    assert.equal(p['status'], 'pending', 'the payment the payer saw is unchanged');
    assert.deepEqual(
      {
        resolution: (p['late_payment'] as Record<string, unknown>)['resolution'],
        reason: (p['late_payment'] as Record<string, unknown>)['reason'],
      },
      { resolution: 'refund_required', reason: 'stray_attempt' },
    );
    const refunded: { providerReference: string; amountMinor: bigint }[] = [];
    tokens.refund = async (request) => {
      refunded.push({ providerReference: request.providerReference, amountMinor: request.amountMinor });
      return { kind: 'succeeded', providerRefundId: `rf_${request.refundId}` };
    };
    const refund = await t.call('POST', `/payment/${id}/refund`, { body: {} });
    assert.equal(refund.statusCode, 201, refund.body);
    assert.equal(json(refund)['status'], 'succeeded');
    assert.equal(json(refund)['source'], 'late_payment');
    assert.deepEqual(refunded, [{ providerReference: `scripted_${stray}`, amountMinor: 15_000_000n }]);
    const owed = await t.testStore.store.query<{ s: bigint | null }>(
      `SELECT sum(p.amount_minor)::bigint AS s FROM postings p JOIN journal_entries e ON e.id = p.entry_id
        WHERE e.payment_id = $1 AND p.account_kind = 'payer_refund_due'`,
      [id],
    );
    assert.equal(BigInt(owed[0]?.s ?? 0n), 0n, 'nothing owed to the payer any more');
  });

  it('refuses a wrong or missing token before storing anything', async () => {
    const p = await create();
    const wrong = await callback('token_bank', p.attemptId, 'evt_forged', 'not-the-token-not-the-token-000001');
    assert.equal(wrong.statusCode, 401);
    const missing = await t.call('POST', '/provider/token_bank/callback', {
      key: null,
      rawBody: JSON.stringify({ id: 'evt_unsigned', external_id: p.attemptId, status: 'PAID', amount: 1 }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(missing.statusCode, 401);
    assert.equal(await notificationRow('evt_forged'), undefined);
    assert.equal(await notificationRow('evt_unsigned'), undefined);
    assert.equal(tokens.queries, 0);
  });
});
