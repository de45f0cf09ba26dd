import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expireDueCheckouts } from '../../src/modules/checkouts/index.ts';
import { appForSuite, json, ref } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * Payment links (docs/checkout.md, section 8): the failure cases first (each refusal changes
 * nothing), then create, visit, totals, list, deactivate, idempotent create, the uses a link's
 * checkouts hold, and on PostgreSQL concurrent visits for the last use.
 */
describe(`payment links (${TEST_STORE})`, () => {
  const ctx = appForSuite({ webhookAllowlist: ['127.0.0.1'] });

  type Link = Record<string, unknown> & { id: string };
  type Checkout = Record<string, unknown> & { id: string; client_secret: string };
  const createRaw = (body: Record<string, unknown>, options: { key?: string; idempotencyKey?: string } = {}) =>
    ctx.t.call('POST', '/payment_link/create', {
      body,
      ...(options.key === undefined ? {} : { key: options.key }),
      headers: options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey },
    });
  const create = async (body: Record<string, unknown>) => {
    const res = await createRaw({ currency: 'IDR', ...body });
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as Link;
  };
  const visitRaw = (id: string, body?: Record<string, unknown>) =>
    ctx.t.call('POST', `/payment_link/${id}/checkout`, { key: null, ...(body === undefined ? {} : { body }) });
  const visit = async (id: string, body?: Record<string, unknown>) => {
    const res = await visitRaw(id, body);
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as Checkout;
  };
  const getLink = async (id: string, key?: string) => ctx.t.call('GET', `/payment_link/${id}`, key === undefined ? {} : { key });
  const link = async (id: string) => {
    const res = await getLink(id);
    assert.equal(res.statusCode, 200, res.body);
    return json(res) as Link;
  };
  /** What a refusal must leave unchanged: every link, claim and checkout row. */
  const snapshot = async () =>
    (
      await ctx.t.testStore.store.query<{ links: string; claims: string; checkouts: string; inactive: string }>(
        `SELECT (SELECT count(*) FROM payment_links)::text AS links,
                (SELECT count(*) FROM payment_links WHERE NOT active)::text AS inactive,
                (SELECT count(*) FROM payment_link_checkouts)::text AS claims,
                (SELECT count(*) FROM checkouts)::text AS checkouts`,
      )
    )[0];
  const refused = (res: { statusCode: number; body: string }, status: number, code: string, field?: string, issue?: string) => {
    assert.equal(res.statusCode, status, res.body);
    const body = json(res as never);
    assert.equal(body['code'], code, res.body);
    if (field !== undefined) {
      const details = body['details'] as { field: string; issue: string }[];
      assert.ok(
        details.some((d) => d.field === field && (issue === undefined || d.issue === issue)),
        `${field}/${issue ?? '*'} in ${res.body}`,
      );
    }
  };
  const payBank = async (checkout: Checkout) => {
    const selected = await ctx.t.call('POST', `/checkout/${checkout.id}/select`, {
      key: null,
      body: { client_secret: checkout.client_secret, channel: 'bank' },
    });
    assert.equal(selected.statusCode, 200, selected.body);
    const paymentId = (json(selected)['payment'] as { id: string }).id;
    const res = await ctx.t.call('POST', `/sandbox/payment/${paymentId}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(res.statusCode, 202, res.body);
    await ctx.t.deliverNotifications();
    return paymentId;
  };
  const inOneHour = () => new Date(ctx.clock.now().getTime() + 3_600_000).toISOString();

  it('refuses bad create input (amount shape, exact money, bounds, urls, expiry, servability) and stores nothing', async () => {
    const before = await snapshot();
    const cases: [Record<string, unknown>, number, string, string?, string?][] = [
      [{}, 400, 'invalid_request', 'amount', 'required'],
      [{ amount: 10000, amount_min: 1000, amount_max: 20000 }, 400, 'invalid_request', 'amount', 'exclusive_fields'],
      [{ amount_min: 1000 }, 400, 'invalid_request', 'amount_max', 'required'],
      [{ amount_min: 20000, amount_max: 10000 }, 400, 'invalid_request', 'amount_min', 'bounds_inverted'],
      [{ amount: 10.001 }, 400, 'invalid_request', 'amount', 'amount_too_precise'],
      // The bounds are read from their exact text too: 10.001 is not silently 10.
      [{ amount_min: 10000, amount_max: 20000.001 }, 400, 'invalid_request', 'amount_max', 'amount_too_precise'],
      [{ amount: 0 }, 400, 'invalid_request'],
      [{ amount: 10000, currency: 'idr' }, 400, 'invalid_request', 'currency'],
      [{ amount: 10000, max_uses: 0 }, 400, 'invalid_request'],
      [{ amount: 10000, checkout_expires_in: 10 }, 400, 'invalid_request'],
      [
        { amount: 10000, expires_at: new Date(ctx.clock.now().getTime() - 1000).toISOString() },
        400,
        'invalid_request',
        'expires_at',
        'not_in_future',
      ],
      [{ amount: 10000, success_url: 'javascript:alert(1)' }, 400, 'invalid_request', 'success_url', 'invalid_url'],
      [{ amount: 10000, channels: ['cash'] }, 400, 'invalid_request'],
      [{ amount: 10000, surprise: true }, 400, 'invalid_request'],
      // A counter outlet takes at most IDR 5,000,000 in the sandbox: neither a fixed amount nor a bound above it.
      [{ amount: 9_000_000, channels: ['counter'] }, 422, 'channel_unavailable', 'channels[0]'],
      [{ amount_min: 10000, amount_max: 9_000_000, channels: ['bank', 'counter'] }, 422, 'channel_unavailable', 'channels[1]'],
    ];
    for (const [body, status, code, field, issue] of cases) {
      refused(await createRaw({ currency: 'IDR', ...body }), status, code, field, issue);
    }
    assert.deepEqual(await snapshot(), before, 'bad input changes nothing');
  });

  it('refuses bad visits (amount on a fixed link, missing or out-of-bounds amount, inactive, expired, used up, unknown) and changes nothing', async () => {
    const fixed = await create({ amount: 150000 });
    const open = await create({ amount_min: 10000, amount_max: 500000 });
    const once = await create({ amount: 150000, max_uses: 1 });
    const ending = await create({ amount: 150000, expires_at: inOneHour() });
    const stopped = await create({ amount: 150000 });
    assert.equal((await ctx.t.call('POST', `/payment_link/${stopped.id}/deactivate`)).statusCode, 200);
    await visit(once.id);

    const before = await snapshot();
    refused(await visitRaw(fixed.id, { amount: 150000 }), 400, 'invalid_request', 'amount', 'amount_not_allowed');
    refused(await visitRaw(open.id), 400, 'invalid_request', 'amount', 'required');
    refused(await visitRaw(open.id, {}), 400, 'invalid_request', 'amount', 'required');
    refused(await visitRaw(open.id, { amount: 9999.99 }), 400, 'invalid_request', 'amount', 'amount_outside_bounds');
    refused(await visitRaw(open.id, { amount: 500000.01 }), 400, 'invalid_request', 'amount', 'amount_outside_bounds');
    refused(await visitRaw(open.id, { amount: 20000.001 }), 400, 'invalid_request', 'amount', 'amount_too_precise');
    refused(await visitRaw(open.id, { amount: '20000' }), 400, 'invalid_request');
    refused(await visitRaw(stopped.id), 409, 'payment_link_inactive');
    refused(await visitRaw(once.id), 409, 'payment_link_used_up');
    refused(await visitRaw('plink_00000000000000000000000000'), 404, 'resource_not_found');
    refused(await visitRaw('cs_not-a-link'), 404, 'resource_not_found');
    ctx.clock.advance(3_600_000);
    refused(await visitRaw(ending.id), 409, 'payment_link_expired');
    assert.equal((await link(ending.id))['status'], 'expired');
    assert.deepEqual(await snapshot(), before, 'refused visits change nothing');
  });

  it('a fixed link: each visit is a new checkout (its own reference, the link’s settings, client_secret and url); get, list with a cursor, tenant isolation', async () => {
    const created = await create({
      amount: 150000.5,
      description: 'Yoga class',
      channels: ['bank', 'ewallet'],
      success_url: 'https://shop.example.com/thanks',
      cancel_url: 'https://shop.example.com/cart',
      checkout_expires_in: 900,
    });
    assert.match(created.id, /^plink_[0-9A-Z]{26}$/);
    assert.equal(created['object'], 'payment_link');
    assert.equal(created['status'], 'active');
    assert.equal(created['url'], `http://127.0.0.1:8080/pay/${created.id}`);
    assert.equal(created['amount'], 150000.5);
    assert.equal(created['amount_min'], null);
    assert.equal(created['max_uses'], null);
    assert.equal(created['remaining_uses'], null);
    assert.deepEqual(created['checkouts'], { open: 0, completed: 0, expired: 0 });
    assert.deepEqual(created['totals'], { collected: 0, completed_count: 0 });

    const first = await visit(created.id);
    const second = await visit(created.id);
    assert.match(first.id, /^cs_[0-9A-Z]{26}$/);
    assert.notEqual(first.id, second.id);
    assert.equal(first['reference_no'], `${created.id}-1`);
    assert.equal(second['reference_no'], `${created.id}-2`);
    assert.match(first.client_secret, new RegExp(`^${first.id}_secret_`));
    assert.equal(first['url'], `http://127.0.0.1:8080/pay/${first.id}`);
    assert.equal(first['amount'], 150000.5);
    assert.equal(first['description'], 'Yoga class');
    assert.deepEqual(first['channels'], ['bank', 'ewallet']);
    assert.equal(first['success_url'], 'https://shop.example.com/thanks');
    assert.equal(first['cancel_url'], 'https://shop.example.com/cart');
    assert.deepEqual(first['metadata'], { payment_link_id: created.id });
    assert.equal(first['expires_at'], new Date(ctx.clock.now().getTime() + 900_000).toISOString());
    const checkout = json(await ctx.t.call('GET', `/checkout/${first.id}`));
    assert.equal(checkout['status'], 'open', "the merchant sees the link's checkout like any other");
    assert.deepEqual((await link(created.id))['checkouts'], { open: 2, completed: 0, expired: 0 });

    // One second apart: the list orders by creation time (equal times fall back to the id's random part).
    const others: Link[] = [];
    for (const amount of [1000, 2000]) {
      ctx.clock.advance(1000);
      others.push(await create({ amount }));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 2; page += 1) {
      const res = await ctx.t.call('GET', `/payment_link?limit=1${cursor === null ? '' : `&starting_after=${cursor}`}`);
      assert.equal(res.statusCode, 200, res.body);
      const body = json(res) as { data: Link[]; has_more: boolean; next_cursor: string | null };
      assert.equal(body.data.length, 1);
      assert.equal(body.has_more, true);
      seen.push(body.data[0]?.id ?? '');
      cursor = body.next_cursor;
    }
    assert.deepEqual(seen, [others[1]?.id, others[0]?.id], 'newest first, one page at a time');
    refused(
      await ctx.t.call('GET', '/payment_link?starting_after=plink_00000000000000000000000000'),
      400,
      'invalid_request',
      'query.starting_after',
      'unknown_cursor',
    );

    for (const key of [ctx.t.b.sandboxKey, ctx.t.a.productionKey]) {
      refused(await getLink(created.id, key), 404, 'resource_not_found');
      refused(await ctx.t.call('POST', `/payment_link/${created.id}/deactivate`, { key }), 404, 'resource_not_found');
      const list = await ctx.t.call('GET', '/payment_link?limit=100', { key });
      assert.ok(!list.body.includes(created.id), "another tenant's list never shows the link");
    }
    assert.equal((await link(created.id))['status'], 'active', 'foreign deactivations changed nothing');
  });

  it('a payer-entered link: the payer’s amount within bounds; a completed checkout counts in the totals, an open one does not', async () => {
    const created = await create({ amount_min: 10000, amount_max: 500000.5, description: 'Donation' });
    assert.equal(created['amount'], null);
    assert.equal(created['amount_min'], 10000);
    assert.equal(created['amount_max'], 500000.5);
    const paid = await visit(created.id, { amount: 250000.25 });
    assert.equal(paid['amount'], 250000.25);
    const edge = await visit(created.id, { amount: 500000.5 });
    assert.equal(edge['amount'], 500000.5, 'the bounds are inclusive');
    await payBank(paid);
    const after = await link(created.id);
    assert.deepEqual(after['checkouts'], { open: 1, completed: 1, expired: 0 });
    assert.deepEqual(after['totals'], { collected: 250000.25, completed_count: 1 });
    assert.equal(json(await ctx.t.call('GET', `/checkout/${paid.id}`))['status'], 'completed');
  });

  it('max_uses: open and completed checkouts hold the uses; an abandoned one frees its use when it expires', async () => {
    const created = await create({ amount: 150000, max_uses: 2, checkout_expires_in: 300 });
    const abandoned = await visit(created.id);
    const kept = await visit(created.id);
    assert.equal((await link(created.id))['remaining_uses'], 0);
    refused(await visitRaw(created.id), 409, 'payment_link_used_up');
    await payBank(kept);
    ctx.clock.advance(301_000);
    // The abandoned checkout (no payment selected) is past its expiry: its use is free even before the sweeper runs.
    assert.equal((await link(created.id))['remaining_uses'], 1);
    const third = await visit(created.id);
    refused(await visitRaw(created.id), 409, 'payment_link_used_up');
    assert.notEqual(third.id, abandoned.id);

    // A checkout with a payment selected holds its use past expires_at until the sweeper expires it
    // (and cancels the payment): until then the payment could still be paid.
    const one = await create({ amount: 150000, max_uses: 1, checkout_expires_in: 300 });
    const selecting = await visit(one.id);
    const selected = await ctx.t.call('POST', `/checkout/${selecting.id}/select`, {
      key: null,
      body: { client_secret: selecting.client_secret, channel: 'bank' },
    });
    assert.equal(selected.statusCode, 200, selected.body);
    ctx.clock.advance(301_000);
    refused(await visitRaw(one.id), 409, 'payment_link_used_up');
    const deps = { ...ctx.t.createDeps, cancelPayment: ctx.t.createDeps };
    assert.ok((await expireDueCheckouts(deps, 100)) >= 1);
    assert.equal(json(await ctx.t.call('GET', `/checkout/${selecting.id}`))['status'], 'expired');
    await visit(one.id);
    const summary = await link(one.id);
    assert.deepEqual(summary['checkouts'], { open: 1, completed: 0, expired: 1 });
    assert.equal(summary['remaining_uses'], 0);

    const completedOnce = await link(created.id);
    assert.deepEqual(completedOnce['totals'], { collected: 150000, completed_count: 1 });
  });

  it('deactivate: final, answered unchanged the second time; earlier checkouts stay open and payable', async () => {
    const created = await create({ amount: 150000 });
    const before = await visit(created.id);
    const res = await ctx.t.call('POST', `/payment_link/${created.id}/deactivate`);
    assert.equal(res.statusCode, 200, res.body);
    const off = json(res);
    assert.equal(off['status'], 'inactive');
    assert.equal(off['deactivated_at'], ctx.clock.now().toISOString());
    assert.equal(off['version'], 2);
    const again = await ctx.t.call('POST', `/payment_link/${created.id}/deactivate`);
    assert.equal(again.statusCode, 200);
    assert.equal(json(again)['version'], 2, 'deactivating an inactive link changes nothing');
    refused(await visitRaw(created.id), 409, 'payment_link_inactive');
    await payBank(before);
    assert.deepEqual((await link(created.id))['totals'], { collected: 150000, completed_count: 1 });
    await assert.rejects(
      ctx.t.testStore.store.query('UPDATE payment_links SET active = true, deactivated_at = NULL WHERE id = $1', [created.id]),
      'the database refuses inactive → active',
    );
  });

  it('create is idempotent: the same key replays the first answer, a different body with it is refused; one link stored', async () => {
    const key = ref('plink-key');
    const body = { amount: 150000, currency: 'IDR', max_uses: 5 };
    const before = Number((await snapshot())?.links);
    const first = await createRaw(body, { idempotencyKey: key });
    assert.equal(first.statusCode, 201, first.body);
    const replay = await createRaw(body, { idempotencyKey: key });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);
    refused(await createRaw({ ...body, max_uses: 6 }, { idempotencyKey: key }), 422, 'idempotency_key_reused');
    assert.equal(Number((await snapshot())?.links), before + 1);
  });

  describe('races', { skip: TEST_STORE === 'postgres' ? false : 'concurrency is proved on PostgreSQL' }, () => {
    it('concurrent visits never take more than max_uses: the last use goes to exactly one of them', async () => {
      const checkoutsOf = async (linkId: string) =>
        (
          await ctx.t.testStore.store.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM checkouts WHERE metadata->>'payment_link_id' = $1`,
            [linkId],
          )
        )[0]?.n;
      for (const [maxUses, visitors] of [
        [1, 2],
        [1, 2],
        [1, 4],
        [3, 8],
      ] as const) {
        const created = await create({ amount: 150000, max_uses: maxUses });
        const answers = await Promise.all(Array.from({ length: visitors }, () => visitRaw(created.id)));
        const won = answers.filter((a) => a.statusCode === 201);
        for (const a of answers.filter((x) => x.statusCode !== 201)) refused(a, 409, 'payment_link_used_up');
        assert.equal(won.length, maxUses, answers.map((a) => a.statusCode).join(','));
        assert.equal(await checkoutsOf(created.id), String(maxUses), 'one checkout per use, no more');
        assert.equal((await link(created.id))['remaining_uses'], 0);
      }
    });

    it('a visit racing the deactivation: either the visit made its checkout first, or it is refused', async () => {
      for (let round = 0; round < 5; round += 1) {
        const created = await create({ amount: 150000 });
        const [visited, off] = await Promise.all([
          visitRaw(created.id),
          ctx.t.call('POST', `/payment_link/${created.id}/deactivate`),
        ]);
        assert.equal(off.statusCode, 200, off.body);
        if (visited.statusCode !== 201) refused(visited, 409, 'payment_link_inactive');
        const checkouts = (await link(created.id))['checkouts'] as { open: number };
        assert.equal(checkouts.open, visited.statusCode === 201 ? 1 : 0);
      }
    });
  });
});
