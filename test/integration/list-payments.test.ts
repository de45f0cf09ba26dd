import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../src/lib/clock.ts';
import type { PaymentStatus } from '../../src/modules/payments/payment-states.ts';
import { openApiValidators } from '../harness/openapi.ts';
import { moveTo, seedPayment } from '../harness/payment-fixtures.ts';
import { TEST_OPERATOR, createTestApp, json, quickStart, ref, type TestApp } from '../harness/test-app.ts';

interface ListBody {
  object: string;
  data: { id: string; created_at: string; status: string; reference_no: string; channel: string | null }[];
  has_more: boolean;
  next_cursor: string | null;
}

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);

/** The documented order, computed independently of the SQL: created_at descending, then id descending. */
const newestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describe('GET /payment', () => {
  let t: TestApp;
  let clock: ManualClock;
  let validateList: (v: unknown) => boolean;

  before(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock });
    validateList = (await openApiValidators(t))('PaymentList');
  });
  after(() => t.close());

  /** Each test gets a merchant of its own, so counts and orders are its own business. */
  async function freshMerchant(name = 'List merchant') {
    const m = await t.merchants.createMerchant(name, TEST_OPERATOR);
    return { id: m.merchant.id, key: m.sandbox.secret, productionKey: m.production.secret };
  }

  async function list(key: string, query = ''): Promise<ListBody> {
    const res = await t.call('GET', `/payment${query}`, { key });
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    assert.ok(validateList(body), `matches the PaymentList schema: ${res.body.slice(0, 200)}`);
    return body as unknown as ListBody;
  }

  async function pageAll(key: string, filters: Record<string, string>, limit: number, between?: (page: number) => Promise<void>) {
    const seen: string[] = [];
    let cursor: string | null = null;
    // Bounded: never more pages than could possibly exist.
    for (let page = 0; page < 100; page += 1) {
      const params = new URLSearchParams({ ...filters, limit: String(limit) });
      if (cursor !== null) params.set('starting_after', cursor);
      const body: ListBody = await list(key, `?${params.toString()}`);
      seen.push(...body.data.map((p) => p.id));
      assert.ok(body.data.length <= limit);
      if (!body.has_more) {
        assert.equal(body.next_cursor, null);
        return { seen, pages: page + 1 };
      }
      assert.equal(body.next_cursor, body.data.at(-1)?.id);
      cursor = body.next_cursor;
      await between?.(page);
    }
    assert.fail('more than 100 pages');
  }

  it('pages through more than two pages newest first, with no duplicates or gaps while payments are inserted', async () => {
    const m = await freshMerchant();
    const originals = [];
    // 23 payments over 12 distinct milliseconds: several share a created_at, so the id must break ties.
    for (let i = 0; i < 23; i += 1) {
      originals.push(await seedPayment(t.testStore.store, { merchantId: m.id, createdAt: new Date(T0 + Math.floor(i / 2)) }));
    }
    const inserted: string[] = [];
    const { seen, pages } = await pageAll(m.key, {}, 5, async (page) => {
      // Between pages: one newer payment (as a live create would add), one with a creation time in
      // the middle of the pages already read, and one created through the API.
      inserted.push((await seedPayment(t.testStore.store, { merchantId: m.id, createdAt: new Date(T0 + 1000 + page) })).id);
      inserted.push((await seedPayment(t.testStore.store, { merchantId: m.id, createdAt: new Date(T0 + 11) })).id);
      const created = await t.call('POST', '/payment/create', { key: m.key, body: quickStart() });
      assert.equal(created.statusCode, 201, created.body);
      inserted.push(String(json(created)['id']));
    });
    assert.ok(pages >= 5, `expected at least 5 pages, got ${pages}`);
    assert.equal(new Set(seen).size, seen.length, 'no payment is listed twice');
    for (const p of originals) assert.ok(seen.includes(p.id), `original ${p.id} was listed`);
    // The listed originals come in (created_at DESC, id DESC) order.
    const expected = [...originals].sort(newestFirst).map((p) => p.id);
    assert.deepEqual(
      seen.filter((id) => expected.includes(id)),
      expected,
    );
    // Whatever was inserted behind the cursor shows up later, never twice; a fresh listing has everything.
    const all = await pageAll(m.key, {}, 100);
    assert.equal(all.seen.length, originals.length + inserted.length);
    assert.equal(new Set(all.seen).size, all.seen.length);
  });

  it('pages any set of creation times into exactly the sorted sequence, whatever the page size (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Few distinct milliseconds, so ties on created_at are common.
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 0, maxLength: 25 }),
        fc.integer({ min: 1, max: 7 }),
        async (offsetsMs, limit) => {
          const m = await freshMerchant();
          const rows = [];
          for (const offset of offsetsMs)
            rows.push(await seedPayment(t.testStore.store, { merchantId: m.id, createdAt: new Date(T0 + offset) }));
          const expected = rows.sort(newestFirst).map((p) => p.id);
          const { seen, pages } = await pageAll(m.key, {}, limit);
          assert.deepEqual(seen, expected);
          assert.equal(pages, Math.max(1, Math.ceil(expected.length / limit)));
        },
      ),
      { numRuns: 15, seed: 4242 },
    );
  });

  it('orders by created_at then id and answers has_more / next_cursor exactly at the boundary', async () => {
    const m = await freshMerchant();
    for (let i = 0; i < 4; i += 1) await seedPayment(t.testStore.store, { merchantId: m.id, createdAt: new Date(T0) });
    const first = await list(m.key, '?limit=4');
    assert.equal(first.data.length, 4);
    assert.equal(first.has_more, false, 'exactly limit rows: no further page');
    assert.equal(first.next_cursor, null);
    const ids = first.data.map((p) => p.id);
    assert.deepEqual(ids, [...ids].sort().reverse(), 'same created_at: id descending');
    const page = await list(m.key, '?limit=3');
    assert.equal(page.has_more, true);
    assert.equal(page.next_cursor, ids[2]);
    const rest = await list(m.key, `?limit=3&starting_after=${ids[2]}`);
    assert.deepEqual(
      rest.data.map((p) => p.id),
      [ids[3]],
    );
    assert.equal(rest.has_more, false);
    const empty = await list(m.key, `?starting_after=${ids[3]}`);
    assert.deepEqual(empty.data, []);
    assert.equal(empty.has_more, false);
  });

  it('filters by status, reference_no, channel and creation time, alone and together', async () => {
    const m = await freshMerchant();
    const s = t.testStore.store;
    const rows: { id: string; status: PaymentStatus; channel: string; referenceNo: string; at: number }[] = [];
    const plan: [PaymentStatus, 'bank' | 'ewallet' | 'counter', number][] = [
      ['pending', 'bank', 0],
      ['succeeded', 'bank', 10],
      ['failed', 'ewallet', 20],
      ['expired', 'counter', 30],
      ['canceled', 'bank', 40],
      ['pending', 'ewallet', 50],
      ['processing', 'bank', 60],
    ];
    const sharedRef = ref('shared');
    for (const [status, channel, offsetMs] of plan) {
      // Two payments share a reference_no: the failed one freed it for the later one.
      const referenceNo = status === 'failed' || (status === 'pending' && channel === 'ewallet') ? sharedRef : ref('f');
      const p = await seedPayment(s, { merchantId: m.id, createdAt: new Date(T0 + offsetMs), status, channel, referenceNo });
      rows.push({ id: p.id, status, channel, referenceNo, at: T0 + offsetMs });
    }
    const ids = async (query: string) => (await list(m.key, query)).data.map((p) => p.id).sort();
    const expect = (pred: (r: (typeof rows)[number]) => boolean) =>
      rows
        .filter(pred)
        .map((r) => r.id)
        .sort();

    assert.deepEqual(
      await ids('?status=pending'),
      expect((r) => r.status === 'pending'),
    );
    assert.deepEqual(
      await ids('?status=processing'),
      expect((r) => r.status === 'processing'),
    );
    assert.deepEqual(await ids('?status=reversed'), []);
    assert.deepEqual(
      await ids(`?reference_no=${sharedRef}`),
      expect((r) => r.referenceNo === sharedRef),
    );
    // channel is the resolved channel: the processing payment has none yet.
    assert.deepEqual(
      await ids('?channel=bank'),
      expect((r) => r.channel === 'bank' && r.status !== 'processing'),
    );
    assert.deepEqual(
      await ids('?channel=counter'),
      expect((r) => r.channel === 'counter'),
    );
    const iso = (ms: number) => new Date(ms).toISOString();
    // Both bounds are inclusive.
    assert.deepEqual(
      await ids(`?created_gte=${iso(T0 + 20)}&created_lte=${iso(T0 + 40)}`),
      expect((r) => r.at >= T0 + 20 && r.at <= T0 + 40),
    );
    assert.deepEqual(
      await ids(`?created_gte=${iso(T0 + 51)}`),
      expect((r) => r.at >= T0 + 51),
    );
    assert.deepEqual(
      await ids(`?created_lte=${iso(T0)}`),
      expect((r) => r.at <= T0),
    );
    // An offset is honoured (encoded + as %2B): 19:00:00.030+07:00 is 12:00:00.030Z.
    assert.deepEqual(
      await ids('?created_gte=2026-03-01T19:00:00.030%2B07:00'),
      expect((r) => r.at >= T0 + 30),
    );
    assert.deepEqual(
      await ids(`?status=pending&channel=ewallet&reference_no=${sharedRef}&created_gte=${iso(T0)}`),
      expect((r) => r.status === 'pending' && r.channel === 'ewallet' && r.referenceNo === sharedRef),
    );
    // A status change is visible to the filter at once.
    const first = rows[0];
    assert.ok(first !== undefined);
    await moveTo(s, first.id, 'succeeded', new Date(T0 + 100));
    assert.ok((await ids('?status=succeeded')).includes(first.id));
    assert.ok(!(await ids('?status=pending')).includes(first.id));
    // Filters and pagination compose: page through pending+succeeded bank payments one by one.
    const paged = await pageAll(m.key, { channel: 'bank' }, 1);
    assert.deepEqual(paged.seen.sort(), await ids('?channel=bank'));
  });

  it('bounds limit to 1-100 with a default of 10', async () => {
    const m = await freshMerchant();
    for (let i = 0; i < 12; i += 1) await seedPayment(t.testStore.store, { merchantId: m.id, createdAt: new Date(T0 + i) });
    assert.equal((await list(m.key)).data.length, 10);
    assert.equal((await list(m.key)).has_more, true);
    assert.equal((await list(m.key, '?limit=1')).data.length, 1);
    assert.equal((await list(m.key, '?limit=100')).data.length, 12);
    const cases: [string, string][] = [
      ['0', 'too_small'],
      ['101', 'too_large'],
      ['-1', 'too_small'],
      ['abc', 'invalid_type'],
      ['2.5', 'invalid_type'],
      ['', 'invalid_type'],
    ];
    for (const [value, issue] of cases) {
      const res = await t.call('GET', `/payment?limit=${value}`, { key: m.key });
      assert.equal(res.statusCode, 400, `limit=${value}`);
      const body = json(res);
      assert.equal(body['code'], 'invalid_request');
      assert.deepEqual(
        (body['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]),
        [['query.limit', issue]],
        `limit=${value}`,
      );
    }
    const repeated = await t.call('GET', '/payment?limit=1&limit=2', { key: m.key });
    assert.equal(repeated.statusCode, 400);
  });

  it('refuses unknown and malformed query parameters with 400 in the error structure', async () => {
    const m = await freshMerchant();
    const cases: [string, string, string][] = [
      ['?foo=1', 'query.foo', 'unknown_field'],
      ['?offset=10', 'query.offset', 'unknown_field'],
      ['?ending_before=pay_01M802HR5XTTXZAF0MA4G1EYJY', 'query.ending_before', 'unknown_field'],
      ['?status=paid', 'query.status', 'invalid_value'],
      ['?channel=auto', 'query.channel', 'invalid_value'],
      ['?created_gte=yesterday', 'query.created_gte', 'invalid_format'],
      ['?created_lte=2026-03-01', 'query.created_lte', 'invalid_format'],
      ['?created_gte=2026-03-01T12:00:00', 'query.created_gte', 'invalid_format'],
      ['?reference_no=', 'query.reference_no', 'too_short'],
    ];
    for (const [query, field, issue] of cases) {
      const res = await t.call('GET', `/payment${query}`, { key: m.key });
      assert.equal(res.statusCode, 400, query);
      const body = json(res);
      assert.equal(body['code'], 'invalid_request', query);
      assert.match(String(body['request_id']), /^req_/);
      assert.deepEqual(
        (body['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]),
        [[field, issue]],
        query,
      );
    }
    const noKey = await t.call('GET', '/payment', { key: null });
    assert.equal(noKey.statusCode, 401);
  });

  it("never lists another merchant's or the other environment's payments, and treats their ids as unknown cursors", async () => {
    const a = await freshMerchant('Tenant A');
    const b = await freshMerchant('Tenant B');
    const s = t.testStore.store;
    const aSandbox = await seedPayment(s, { merchantId: a.id, createdAt: new Date(T0) });
    const aProduction = await seedPayment(s, { merchantId: a.id, environment: 'production', createdAt: new Date(T0 + 1) });
    const bSandbox = await seedPayment(s, { merchantId: b.id, createdAt: new Date(T0 + 2) });
    // The same reference_no in both tenants: filtering by it still never crosses over.
    const shared = ref('tenant');
    const aShared = await seedPayment(s, { merchantId: a.id, createdAt: new Date(T0 + 3), referenceNo: shared });
    await seedPayment(s, { merchantId: b.id, createdAt: new Date(T0 + 3), referenceNo: shared });

    assert.deepEqual((await list(a.key)).data.map((p) => p.id).sort(), [aSandbox.id, aShared.id].sort());
    assert.deepEqual(
      (await list(a.productionKey)).data.map((p) => p.id),
      [aProduction.id],
    );
    assert.deepEqual(
      (await list(a.key, `?reference_no=${shared}`)).data.map((p) => p.id),
      [aShared.id],
    );
    assert.ok((await list(b.key)).data.every((p) => p.id !== aSandbox.id));

    const unknown = 'pay_01M802HR5XTTXZAF0MA4G1EYJY';
    const answers = [];
    for (const [key, cursor] of [
      [a.key, bSandbox.id], // another merchant's payment
      [a.key, aProduction.id], // the other environment's
      [a.key, unknown], // nobody's
      [a.key, 'not-an-id'], // malformed
    ] as const) {
      const res = await t.call('GET', `/payment?starting_after=${cursor}`, { key });
      assert.equal(res.statusCode, 400, cursor);
      const { request_id: _ignored, ...rest } = json(res);
      answers.push(rest);
    }
    // Identical answers: a cursor probe cannot tell a foreign payment from a missing one.
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.deepEqual(answers[0], {
      code: 'invalid_request',
      message: 'The request has invalid fields.',
      details: [
        {
          field: 'query.starting_after',
          issue: 'unknown_cursor',
          message: 'starting_after must be the id of one of your payments in this environment',
        },
      ],
    });
  });
});
