import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appForSuite, json, ref } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The hosted checkout page without a browser (docs/checkout.md, section 7): what each state shows,
 * the form post (post/redirect/get), stale forms, refusals that change nothing, languages and the
 * security headers. The browser journeys are in checkout-browser.test.ts.
 */
describe(`hosted checkout page (${TEST_STORE})`, () => {
  const ctx = appForSuite({});

  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await ctx.t.call('POST', '/checkout/create', {
      body: { amount: 150000, currency: 'IDR', reference_no: ref('csp'), description: 'Batik shirt', ...extra },
    });
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as Record<string, unknown> & { id: string; client_secret: string };
  };
  const page = (id: string, query = '', headers: Record<string, string> = {}) =>
    ctx.t.call('GET', `/pay/${id}${query}`, { key: null, headers });
  const choose = (id: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    ctx.t.call('POST', `/pay/${id}/select`, {
      key: null,
      rawBody: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
  const state = (body: string) => /data-checkout-state="([a-z]+)"/.exec(body)?.[1];
  const version = (body: string) => /name="version" value="(\d+)"/.exec(body)?.[1];
  const checkoutRow = async (id: string) => json(await ctx.t.call('GET', `/checkout/${id}`));

  it('lists every method by channel with the amount; choosing one shows its instructions in place (303, then the page)', async () => {
    const c = await create();
    const first = await page(c.id);
    assert.equal(first.statusCode, 200);
    assert.match(String(first.headers['content-type']), /^text\/html/);
    assert.equal(state(first.body), 'choosing');
    assert.match(first.body, /IDR 150,000\.00/);
    assert.match(first.body, /Batik shirt/);
    for (const method of ['bank:BCA', 'bank:MANDIRI', 'ewallet:DANA', 'counter:ALFAMART']) {
      assert.ok(first.body.includes(`value="${method}"`), `offers ${method}`);
    }
    const csp = String(first.headers['content-security-policy']);
    assert.match(csp, /form-action 'self'/);
    assert.match(csp, /default-src 'none'/);
    assert.equal(first.headers['referrer-policy'], 'no-referrer');
    assert.equal(first.headers['x-frame-options'], 'DENY');
    assert.equal(first.headers['cache-control'], 'no-store');

    const chosen = await choose(c.id, { method: 'bank:BNI', version: version(first.body) ?? '' });
    assert.equal(chosen.statusCode, 303, chosen.body);
    assert.equal(chosen.headers['location'], `/pay/${c.id}?lang=en`);
    const paying = await page(c.id);
    assert.equal(state(paying.body), 'paying');
    assert.match(paying.body, /id="account-number"/);
    assert.match(paying.body, /Bank Negara Indonesia|BNI/);
    assert.match(paying.body, /id="choose-another"/);
    const row = await checkoutRow(c.id);
    assert.equal((row['payments'] as string[]).length, 1);
    assert.equal(row['version'], 2);
  });

  it('go back and choose another: the first payment is canceled, the e-wallet one shows its QR code', async () => {
    const c = await create();
    const v1 = version((await page(c.id)).body) ?? '';
    assert.equal((await choose(c.id, { method: 'bank:BCA', version: v1 })).statusCode, 303);
    const again = await page(c.id, '?choose=1');
    assert.equal(state(again.body), 'choosing');
    const v2 = version(again.body) ?? '';
    assert.notEqual(v2, v1);
    assert.equal((await choose(c.id, { method: 'ewallet:DANA', version: v2 })).statusCode, 303);
    const paying = await page(c.id);
    assert.equal(state(paying.body), 'paying');
    assert.match(paying.body, /id="qr"/);
    const row = await checkoutRow(c.id);
    const [firstId, secondId] = row['payments'] as string[];
    const first = json(await ctx.t.call('GET', `/payment/${String(firstId)}`));
    assert.equal(first['status'], 'canceled');
    assert.equal(row['payment'], secondId);
  });

  it('a stale form (a second tab, a double click) selects nothing: 303 to the page as it now is', async () => {
    const c = await create();
    const v1 = version((await page(c.id)).body) ?? '';
    assert.equal((await choose(c.id, { method: 'bank:BCA', version: v1 })).statusCode, 303);
    const stale = await choose(c.id, { method: 'counter:INDOMARET', version: v1 });
    assert.equal(stale.statusCode, 303);
    const row = await checkoutRow(c.id);
    assert.equal((row['payments'] as string[]).length, 1, 'the stale form made no payment');
  });

  it('refuses bad forms with a 4xx and changes nothing', async () => {
    const c = await create({ channels: ['bank'] });
    const v = version((await page(c.id)).body) ?? '';
    const before = await checkoutRow(c.id);
    const notOffered = await choose(c.id, { method: 'ewallet:DANA', version: v });
    assert.equal(notOffered.statusCode, 422);
    assert.match(notOffered.body, /id="notice"/);
    const unknownInstrument = await choose(c.id, { method: 'bank:NOPE', version: v });
    assert.equal(unknownInstrument.statusCode, 422);
    const garbage = await choose(c.id, { method: '<script>', version: v });
    assert.equal(garbage.statusCode, 422);
    assert.ok(!garbage.body.includes('<script>alert'), 'nothing echoed');
    for (const bad of [{ version: v }, { method: 'bank:BCA' }, { method: 'bank:BCA', version: 'x' }]) {
      const res = await choose(c.id, bad);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(json(res)['code'], 'invalid_request');
    }
    const json400 = await ctx.t.call('POST', `/pay/${c.id}/select`, { key: null, body: { method: 'bank:BCA', version: v } });
    assert.ok(json400.statusCode >= 400 && json400.statusCode < 500, 'the page form takes only form encoding');
    assert.deepEqual(await checkoutRow(c.id), before);
    const unknown = await choose('cs_01JZZZZZZZZZZZZZZZZZZZZZZZ', { method: 'bank:BCA', version: '1' });
    assert.equal(unknown.statusCode, 404);
  });

  it('after success the page says so and offers success_url; an expired checkout says so and offers cancel_url', async () => {
    const c = await create({ success_url: 'https://shop.example.com/thanks', cancel_url: 'https://shop.example.com/cart' });
    const v = version((await page(c.id)).body) ?? '';
    assert.equal((await choose(c.id, { method: 'bank:BCA', version: v })).statusCode, 303);
    const paymentId = String((await checkoutRow(c.id))['payment']);
    const paid = await ctx.t.call('POST', `/sandbox/payment/${paymentId}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(paid.statusCode, 202);
    await ctx.t.deliverNotifications();
    const done = await page(c.id);
    assert.equal(state(done.body), 'completed');
    assert.match(done.body, /Payment received/);
    assert.match(done.body, /href="https:\/\/shop\.example\.com\/thanks"/);
    const late = await choose(c.id, { method: 'bank:BNI', version: v });
    assert.equal(late.statusCode, 303, 'a completed checkout selects nothing');
    assert.equal(((await checkoutRow(c.id))['payments'] as string[]).length, 1);

    const e = await create({ cancel_url: 'https://shop.example.com/cart' });
    assert.equal((await ctx.t.call('POST', `/checkout/${e.id}/expire`)).statusCode, 200);
    const expired = await page(e.id);
    assert.equal(state(expired.body), 'expired');
    assert.match(expired.body, /href="https:\/\/shop\.example\.com\/cart"/);
    assert.doesNotMatch(expired.body, /name="method"/);
  });

  it('speaks Bahasa Indonesia by Accept-Language or ?lang, with the switch, and formats the amount for it', async () => {
    const c = await create();
    const id = await page(c.id, '', { 'accept-language': 'id-ID,id;q=0.9,en;q=0.8' });
    assert.match(id.body, /<html lang="id"/);
    assert.equal(id.headers['content-language'], 'id');
    assert.match(String(id.headers['vary']), /Accept-Language/);
    assert.match(id.body, /Pilih cara bayar/);
    assert.match(id.body, /IDR 150\.000,00/);
    assert.match(id.body, /hreflang="en"/);
    const en = await page(c.id, '?lang=en', { 'accept-language': 'id' });
    assert.match(en.body, /Choose how to pay/);
    const chosen = await choose(c.id, { method: 'bank:BCA', version: version(id.body) ?? '', lang: 'id' });
    assert.equal(chosen.headers['location'], `/pay/${c.id}?lang=id`);
    assert.match((await page(c.id, '?lang=id')).body, /Menunggu pembayaran Anda/);
  });

  it('unknown and malformed checkout ids get the same 404 page', async () => {
    for (const id of ['cs_01JZZZZZZZZZZZZZZZZZZZZZZZ', 'cs_nope']) {
      const res = await page(id);
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
  });
});
