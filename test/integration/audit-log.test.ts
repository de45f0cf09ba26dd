import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Failpoints } from '../../src/lib/failpoints.ts';
import { saveMerchantSettings } from '../../src/modules/merchants/merchant-settings.ts';
import { recordException } from '../../src/modules/settlement/settlement-exception-repo.ts';
import { resolveSettlementExceptionAndAnnounce } from '../../src/modules/settlement/settlement-exceptions.ts';
import { appForSuite, json, quickStart, ref, TEST_OPERATOR } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The audit log (docs/audit-log.md): each recorded change writes exactly one row, in its own
 * transaction (an injected failure after the insert, or a refused request, leaves none); the store
 * refuses UPDATE, DELETE and TRUNCATE on it; GET /audit_log filters and pages, per merchant and
 * environment; no secret the tests were handed appears in any row.
 */
interface Row {
  id: string;
  merchant_id: string | null;
  environment: string | null;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string;
  object_type: string | null;
  object_id: string | null;
  address: string | null;
  user_agent: string | null;
  request_id: string | null;
  changes: Record<string, unknown>;
  [key: string]: unknown;
}

/** A failpoint the test arms for one call: `throw` at that name, nothing elsewhere. */
const armed = { name: '' };
const failpoints: Failpoints = {
  hit(name) {
    if (name === armed.name) throw new Error(`failpoint ${name}`);
  },
};

describe(`audit log (${TEST_STORE})`, () => {
  const ctx = appForSuite({ failpoints });
  const store = () => ctx.t.testStore.store;
  /** Every secret a test was handed: none may appear in any audit row. */
  const secrets: string[] = [];

  const rows = async () =>
    (await store().query<Row>('SELECT * FROM audit_log ORDER BY seq')).map((r) => ({ ...r, seq: String(r['seq']) }));
  /** Runs `change` and returns the rows it added (all of them, in order). */
  const added = async (change: () => Promise<unknown>): Promise<Row[]> => {
    const before = (await rows()).length;
    await change();
    return (await rows()).slice(before);
  };
  /** The change must add exactly one row, of this action about this object, by an API key. */
  const exactlyOne = async (action: string, change: () => Promise<unknown>, objectId?: () => unknown): Promise<Row> => {
    const rowsAdded = await added(change);
    assert.equal(rowsAdded.length, 1, `${action}: ${JSON.stringify(rowsAdded.map((r) => r.action))}`);
    const row = rowsAdded[0] as Row;
    assert.equal(row.action, action);
    assert.equal(row.merchant_id, ctx.t.a.id);
    if (objectId !== undefined) assert.equal(row.object_id, objectId());
    return row;
  };
  const ok = async (res: Promise<{ statusCode: number; body: string }>, status: number) => {
    const r = await res;
    assert.equal(r.statusCode, status, r.body);
    return JSON.parse(r.body) as Record<string, unknown>;
  };

  it('records each change made with a key once, with the key, the address, the user agent and the request id', async () => {
    const call = ctx.t.call.bind(ctx.t);
    // Webhook endpoint: created, updated, secret rotated, deleted.
    let endpoint: Record<string, unknown> = {};
    const created = await exactlyOne(
      'webhook_endpoint.created',
      async () => {
        endpoint = await ok(
          call('POST', '/webhook_endpoint/create', { body: { url: 'https://shop.example.com/hooks?token=hush' } }),
          201,
        );
        secrets.push(String(endpoint['secret']), 'hush');
      },
      () => endpoint['id'],
    );
    assert.equal(created.actor_type, 'api_key');
    assert.match(created.actor_id ?? '', /^key_/);
    assert.equal(created.actor_label, `${ctx.t.a.sandboxKey.slice(0, 14)}…`, 'the display prefix, never the key');
    assert.equal(created.environment, 'sandbox');
    assert.equal(created.address, '127.0.0.1');
    assert.equal(typeof created.request_id, 'string');
    assert.equal(created.changes['url_host'], 'shop.example.com');
    const id = String(endpoint['id']);
    const updated = await exactlyOne(
      'webhook_endpoint.updated',
      () => ok(call('POST', `/webhook_endpoint/${id}/update`, { body: { status: 'disabled' } }), 200),
      () => id,
    );
    assert.deepEqual(updated.changes['status'], { from: 'enabled', to: 'disabled' });
    await exactlyOne(
      'webhook_endpoint.secret_rotated',
      async () => secrets.push(String((await ok(call('POST', `/webhook_endpoint/${id}/rotate_secret`), 200))['secret'])),
      () => id,
    );
    await exactlyOne(
      'webhook_endpoint.deleted',
      () => ok(call('DELETE', `/webhook_endpoint/${id}`), 200),
      () => id,
    );

    // Callback secret rotated.
    secrets.push(String((await ok(call('GET', '/callback_secret'), 200))['secret']));
    await exactlyOne('callback_secret.rotated', async () =>
      secrets.push(String((await ok(call('POST', '/callback_secret/rotate'), 200))['secret'])),
    );

    // Payment canceled; a replay of the cancel changes nothing and writes nothing.
    const pending = await ok(call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) }), 201);
    const canceled = await exactlyOne(
      'payment.canceled',
      () => ok(call('POST', `/payment/${String(pending['id'])}/cancel`, { headers: { 'idempotency-key': 'audit-cancel' } }), 200),
      () => pending['id'],
    );
    assert.deepEqual(canceled.changes['status'], { from: 'pending', to: 'canceled' });
    assert.equal(
      (
        await added(() =>
          ok(call('POST', `/payment/${String(pending['id'])}/cancel`, { headers: { 'idempotency-key': 'audit-cancel' } }), 200),
        )
      ).length,
      0,
    );

    // Refund created (amounts as exact minor units), event redelivered, payer data erased.
    const paid = await ctx.t.paidBankPayment();
    let refund: Record<string, unknown> = {};
    const refunded = await exactlyOne(
      'refund.created',
      async () => (refund = await ok(call('POST', `/payment/${paid.id}/refund`, { body: { amount: 1000 } }), 201)),
      () => refund['id'],
    );
    assert.equal(refunded.changes['amount_minor'], '100000');
    assert.equal(refunded.changes['payment_id'], paid.id);
    const events = await ok(call('GET', `/event?object_id=${paid.id}`), 200);
    const eventId = String((events['data'] as Array<{ id: string }>)[0]?.id);
    await exactlyOne(
      'event.redelivered',
      () => ok(call('POST', `/event/${eventId}/redeliver`), 202),
      () => eventId,
    );
    const erasable = await ok(
      call('POST', '/payment/create', { body: quickStart({ channel: 'bank', email: 'erase.me@example.com' }) }),
      201,
    );
    await ok(call('POST', `/payment/${String(erasable['id'])}/cancel`), 200);
    await exactlyOne(
      'payment.payer_data_erased',
      () => ok(call('POST', `/payment/${String(erasable['id'])}/erase_payer_data`), 200),
      () => erasable['id'],
    );
    secrets.push('erase.me@example.com');

    // Checkout expired; payment link created and deactivated.
    const checkout = await ok(
      call('POST', '/checkout/create', { body: { amount: 150000, currency: 'IDR', reference_no: ref('audit-cs') } }),
      201,
    );
    secrets.push(String(checkout['client_secret']));
    await exactlyOne(
      'checkout.expired',
      () => ok(call('POST', `/checkout/${String(checkout['id'])}/expire`), 200),
      () => checkout['id'],
    );
    let link: Record<string, unknown> = {};
    await exactlyOne(
      'payment_link.created',
      async () => (link = await ok(call('POST', '/payment_link/create', { body: { amount: 150000, currency: 'IDR' } }), 201)),
      () => link['id'],
    );
    await exactlyOne(
      'payment_link.deactivated',
      () => ok(call('POST', `/payment_link/${String(link['id'])}/deactivate`), 200),
      () => link['id'],
    );
    assert.equal(
      (await added(() => ok(call('POST', `/payment_link/${String(link['id'])}/deactivate`), 200))).length,
      0,
      'unchanged',
    );

    // Reconciliation run created; the same run again answers it and writes nothing.
    ctx.clock.advance(2 * 86_400_000);
    const from = ctx.clock.now();
    const window = {
      connector: 'sandbox_bank',
      from: from.toISOString(),
      to: new Date(from.getTime() + 86_400_000).toISOString(),
    };
    let run: Record<string, unknown> = {};
    await exactlyOne(
      'reconciliation.created',
      async () => (run = await ok(call('POST', '/reconciliation/create', { body: window }), 201)),
      () => run['id'],
    );
    assert.equal((await added(() => ok(call('POST', '/reconciliation/create', { body: window }), 200))).length, 0);
  });

  it('records the operator: keys created, rolled and revoked, settings updated', async () => {
    const m = ctx.t.merchants;
    let issued: Awaited<ReturnType<typeof m.createKey>>;
    const createdKey = await exactlyOne(
      'api_key.created',
      async () => (issued = await m.createKey(ctx.t.a.id, 'sandbox', TEST_OPERATOR)),
    );
    assert.ok(issued !== undefined);
    secrets.push(issued.secret);
    assert.equal(createdKey.actor_type, 'operator');
    assert.equal(createdKey.actor_label, 'test');
    assert.equal(createdKey.object_id, issued.key.id);
    assert.equal(createdKey.address, null);
    let rolledSecret = '';
    const rolled = await exactlyOne('api_key.rolled', async () => {
      const r = await m.rollKey(issued!.key.id, 60_000, TEST_OPERATOR);
      assert.ok(r !== undefined);
      rolledSecret = r.issued.secret;
    });
    secrets.push(rolledSecret);
    assert.equal(rolled.object_id, issued.key.id);
    await exactlyOne(
      'api_key.revoked',
      () => m.revokeKey(issued!.key.id, TEST_OPERATOR),
      () => issued!.key.id,
    );
    assert.equal((await added(() => m.revokeKey(issued!.key.id, TEST_OPERATOR))).length, 0, 'already revoked: unchanged');
    const settings = await exactlyOne('merchant.settings_updated', () =>
      saveMerchantSettings(store(), ctx.t.a.id, { late_payment_policy: 'refund' }, TEST_OPERATOR, ctx.clock.now()),
    );
    assert.equal(settings.environment, null, 'merchant-wide');
    assert.deepEqual(settings.changes['late_payment_policy'], { from: null, to: 'refund' });
    await saveMerchantSettings(store(), ctx.t.a.id, {}, TEST_OPERATOR, ctx.clock.now());

    // Settlement exceptions resolved: a merchant's, and one no merchant owns (merchant_id null).
    const now = ctx.clock.now();
    const base = {
      connector: 'sandbox_bank',
      attemptId: 'att_x',
      settledAt: now,
      grossMinor: 1n,
      feeMinor: 0n,
      currency: 'IDR',
      now,
    };
    const owned = await recordException(store(), {
      ...base,
      providerReference: 'sbva_audit_1',
      kind: 'amount_mismatch',
      merchantId: ctx.t.a.id,
      environment: 'sandbox',
      paymentId: null,
      detail: 'audit test',
    });
    const nobodys = await recordException(store(), {
      ...base,
      providerReference: 'sbva_audit_2',
      kind: 'unknown_reference',
      merchantId: null,
      environment: null,
      paymentId: null,
      detail: 'audit test',
    });
    assert.ok(owned !== undefined && nobodys !== undefined);
    const resolve = (id: string) => resolveSettlementExceptionAndAnnounce(store(), id, 'checked', ctx.clock.now(), TEST_OPERATOR);
    await exactlyOne(
      'settlement_exception.resolved',
      () => resolve(owned.id),
      () => owned.id,
    );
    assert.equal((await added(() => resolve(owned.id))).length, 0, 'already resolved: unchanged');
    const unattributed = await added(() => resolve(nobodys.id));
    assert.deepEqual(
      unattributed.map((r) => [r.action, r.merchant_id, r.environment, r.actor_type]),
      [['settlement_exception.resolved', null, null, 'operator']],
    );
  });

  it('writes no row when the change fails after the insert, or is refused', async () => {
    const paid = await ctx.t.paidBankPayment();
    const refundsOf = async () =>
      (await store().query<{ n: number }>('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1', [paid.id]))[0]?.n;
    armed.name = 'refund.after_audit';
    try {
      const failed = await added(async () => {
        const res = await ctx.t.call('POST', `/payment/${paid.id}/refund`, { body: {} });
        assert.equal(res.statusCode, 500, res.body);
      });
      assert.deepEqual(failed, [], 'the failed refund left an audit row');
      assert.equal(await refundsOf(), 0, 'the failed refund left a refund');
    } finally {
      armed.name = '';
    }
    const refused = await added(async () => {
      assert.equal((await ctx.t.call('POST', `/payment/${paid.id}/refund`, { body: { amount: 10_000_000 } })).statusCode, 422);
      assert.equal((await ctx.t.call('POST', '/payment/pay_00000000000000000000000000/cancel')).statusCode, 404);
      assert.equal((await ctx.t.call('POST', '/webhook_endpoint/create', { body: { url: 'ftp://x' } })).statusCode, 400);
      assert.equal(
        (await ctx.t.call('POST', '/webhook_endpoint/we_00000000000000000000000000/update', { body: { status: 'disabled' } }))
          .statusCode,
        404,
      );
    });
    assert.deepEqual(refused, []);
    // And after the failure the same refund goes through, with its one row.
    await exactlyOne('refund.created', () => ok(ctx.t.call('POST', `/payment/${paid.id}/refund`, { body: {} }), 201));
  });

  it('refuses UPDATE, DELETE and TRUNCATE on audit_log', async () => {
    const before = await rows();
    assert.ok(before.length > 0);
    for (const sql of ["UPDATE audit_log SET actor_label = 'someone else'", 'DELETE FROM audit_log', 'TRUNCATE audit_log']) {
      await assert.rejects(store().query(sql), /append-only/, sql);
    }
    assert.deepEqual(await rows(), before);
  });

  it('GET /audit_log: newest first, filters, cursor; another merchant and the other environment see nothing of it', async () => {
    const list = async (query: string, key?: string) =>
      ok(ctx.t.call('GET', `/audit_log${query}`, key === undefined ? {} : { key }), 200) as Promise<{
        data: Array<Record<string, unknown>>;
        has_more: boolean;
        next_cursor: string | null;
      }>;
    const all = await rows();
    const mine = all.filter((r) => r.merchant_id === ctx.t.a.id && r.environment !== 'production').reverse();
    // Page through, two at a time: every row once, newest (highest seq) first.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=2${cursor === null ? '' : `&starting_after=${cursor}`}`);
      seen.push(...page.data.map((e) => String(e['id'])));
      cursor = page.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(
      seen,
      mine.map((r) => r.id),
    );

    const first = (await list('?limit=1')).data[0] as Record<string, unknown>;
    assert.equal(first['object'], 'audit_entry');
    assert.deepEqual(Object.keys(first['target'] as object).sort(), ['id', 'type']);
    assert.deepEqual(Object.keys(first['actor'] as object).sort(), ['id', 'label', 'role', 'type']);

    const refunds = await list('?action=refund.created');
    assert.ok(refunds.data.length >= 2);
    assert.ok(refunds.data.every((e) => e['action'] === 'refund.created'));
    const oneObject = mine.find((r) => r.object_type === 'webhook_endpoint') as Row;
    const byObject = await list(`?object_id=${oneObject.object_id}`);
    assert.deepEqual(byObject.data.map((e) => e['action']).reverse(), [
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.deleted',
    ]);
    const keyId = (mine.find((r) => r.actor_type === 'api_key') as Row).actor_id as string;
    const byActor = await list(`?actor_id=${keyId}&limit=100`);
    assert.equal(byActor.data.length, mine.filter((r) => r.actor_id === keyId).length);
    const last = mine.at(-1) as Row;
    const lastAt = String((await list(`?object_id=${last.object_id ?? ''}&limit=1`)).data[0]?.['occurred_at']);
    const window = await list(`?occurred_gte=${encodeURIComponent(lastAt)}&occurred_lte=${encodeURIComponent(lastAt)}&limit=100`);
    assert.ok(window.data.length >= 1);
    assert.ok(window.data.every((e) => e['occurred_at'] === lastAt));
    assert.equal((await list('?occurred_gte=2000-01-01T00:00:00Z&occurred_lte=2000-01-02T00:00:00Z')).data.length, 0);

    // Merchant B sees none of A's rows, and A's cursor is B's unknown_cursor; so is a malformed one.
    const b = await list('?limit=100', ctx.t.b.sandboxKey);
    assert.ok(b.data.every((e) => !mine.some((r) => r.id === e['id'])));
    for (const [cursorValue, key] of [
      [mine[0]?.id, ctx.t.b.sandboxKey],
      [mine[0]?.id, ctx.t.a.productionKey],
      ['aud_nope', undefined],
    ] as const) {
      const res = await ctx.t.call('GET', `/audit_log?starting_after=${cursorValue}`, key === undefined ? {} : { key });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal((json(res)['details'] as Array<{ issue: string }>)[0]?.issue, 'unknown_cursor');
    }
    // The production key sees the merchant-wide rows (settings) and no sandbox row.
    const production = await list('?limit=100', ctx.t.a.productionKey);
    assert.ok(production.data.every((e) => e['environment'] !== 'sandbox'));
    assert.ok(production.data.some((e) => e['action'] === 'merchant.settings_updated'));
    assert.equal((await ctx.t.call('GET', '/audit_log?action=nope')).statusCode, 400);
    assert.equal((await ctx.t.call('GET', '/audit_log?occurred_gte=yesterday')).statusCode, 400);
  });

  it('the dashboard records the session as the actor, and shows the log to a session that may read it', async () => {
    const FORM = 'application/x-www-form-urlencoded';
    const signIn = await ctx.t.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': FORM },
      payload: new URLSearchParams({ api_key: ctx.t.a.sandboxKey }).toString(),
    });
    assert.equal(signIn.statusCode, 303, signIn.body);
    const setCookie = signIn.headers['set-cookie'];
    const cookie = String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0] as string;
    const keysPage = await ctx.t.app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(keysPage.body)?.[1] ?? '';
    const row = await exactlyOne('api_key.created', async () => {
      const res = await ctx.t.app.inject({
        method: 'POST',
        url: '/dashboard/keys',
        headers: { 'content-type': FORM, cookie, 'user-agent': 'audit-test-browser' },
        payload: new URLSearchParams({ csrf_token: csrf }).toString(),
      });
      assert.equal(res.statusCode, 201, res.body);
      const secret = /sk_test_[A-Za-z0-9_]+/.exec(res.body)?.[0];
      assert.ok(secret !== undefined);
      secrets.push(secret);
    });
    assert.equal(row.actor_type, 'api_key', 'a key session acts as its key');
    assert.equal(row.actor_label, `${ctx.t.a.sandboxKey.slice(0, 14)}…`);
    assert.equal(row.user_agent, 'audit-test-browser');
    assert.equal(row.address, '127.0.0.1');

    const audit = await ctx.t.app.inject({ method: 'GET', url: '/dashboard/audit?action=api_key.created', headers: { cookie } });
    assert.equal(audit.statusCode, 200, audit.body);
    assert.match(audit.body, new RegExp(`data-audit-id="${row.id}"`));
    assert.match(audit.body, /id="nav-audit"/);
    assert.doesNotMatch(audit.body, /webhook_endpoint\.created<\/code>/, 'the action filter holds');
  });

  it('holds no secret: no key, no webhook or callback secret, no payer e-mail', async () => {
    const text = JSON.stringify(await rows());
    assert.ok(secrets.length >= 8, `${secrets.length} secrets collected`);
    for (const secret of [...secrets, ctx.t.a.sandboxKey, ctx.t.a.productionKey, ctx.t.b.sandboxKey]) {
      assert.ok(secret.length >= 4 && !text.includes(secret), `a secret is in the audit log (${secret.slice(0, 6)}…)`);
    }
  });
});
