import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { payerAmountText } from '../../src/http/routes/pay/serve-link-page.ts';
import { appForSuite, json } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The payment-link page without a browser (docs/checkout.md, section 8): the GET never starts
 * anything, one form post starts one checkout (303 to its page), refusals answer the page with a
 * 4xx and take no use, languages.
 */
describe(`payment-link page (${TEST_STORE})`, () => {
  const ctx = appForSuite({});

  const createLink = async (body: Record<string, unknown>) => {
    const res = await ctx.t.call('POST', '/payment_link/create', { body: { currency: 'IDR', description: 'Donation', ...body } });
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as Record<string, unknown> & { id: string };
  };
  const page = (id: string, headers: Record<string, string> = {}) => ctx.t.call('GET', `/pay/${id}`, { key: null, headers });
  const post = (id: string, form: Record<string, string>) =>
    ctx.t.call('POST', `/pay/${id}/start`, {
      key: null,
      rawBody: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const visitOf = (body: string) => /name="visit" value="([^"]+)"/.exec(body)?.[1] ?? '';
  const checkouts = async (id: string) =>
    json(await ctx.t.call('GET', `/payment_link/${id}`))['checkouts'] as Record<string, number>;

  it('a fixed link: the page starts nothing; its form starts one checkout even when posted twice', async () => {
    const link = await createLink({ amount: 50000, max_uses: 1 });
    const shown = await page(link.id);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /IDR 50,000\.00/);
    assert.match(String(shown.headers['content-security-policy']), /form-action 'self'/);
    await page(link.id);
    assert.equal((await checkouts(link.id))['open'], 0, 'a GET (a link preview) starts nothing');
    const visit = visitOf(shown.body);
    const first = await post(link.id, { visit });
    assert.equal(first.statusCode, 303, first.body);
    const location = String(first.headers['location']);
    assert.match(location, /^\/pay\/cs_[0-9A-Z]{26}\?lang=en$/);
    const again = await post(link.id, { visit });
    assert.equal(again.statusCode, 303, 'the same form again goes to the same checkout');
    assert.equal(again.headers['location'], location);
    assert.equal((await checkouts(link.id))['open'], 1);
    const checkoutPage = await page(location.split('?')[0]?.slice('/pay/'.length) ?? '');
    assert.match(checkoutPage.body, /data-checkout-state="choosing"/);

    const usedPage = await page(link.id);
    assert.match(usedPage.body, /reached its limit/, 'the page says so before any post');
    const usedUp = await post(link.id, { visit: 'another-visit-0123456789' });
    assert.equal(usedUp.statusCode, 409, 'a used-up link refuses another visit');
    assert.match(usedUp.body, /reached its limit/);
    assert.equal((await checkouts(link.id))['open'], 1);
  });

  it('a payer-entered link: amounts in the page language; out of bounds or garbage is a 4xx and takes no use', async () => {
    const link = await createLink({ amount_min: 10000, amount_max: 1000000 });
    const shown = await page(link.id, { 'accept-language': 'id' });
    assert.match(shown.body, /<html lang="id"/);
    assert.match(shown.body, /Antara IDR 10\.000,00 dan IDR 1\.000\.000,00/);
    const visit = visitOf(shown.body);
    for (const amount of ['5.000', '2.000.000', 'lots', '']) {
      const res = await post(link.id, { visit, amount, lang: 'id' });
      assert.ok(res.statusCode === 422, `${amount}: ${res.statusCode}`);
      assert.match(res.body, /id="notice"/);
    }
    assert.deepEqual(await checkouts(link.id), { open: 0, completed: 0, expired: 0 });
    const ok = await post(link.id, { visit, amount: 'Rp 150.000', lang: 'id' });
    assert.equal(ok.statusCode, 303, ok.body);
    const checkoutId = String(ok.headers['location']).split('?')[0]?.slice('/pay/'.length) ?? '';
    const checkout = json(await ctx.t.call('GET', `/checkout/${checkoutId}`));
    assert.equal(checkout['amount'], 150000);
  });

  it('an inactive link says so and refuses a visit; unknown links are 404; malformed forms are 400', async () => {
    const link = await createLink({ amount: 20000 });
    const visit = visitOf((await page(link.id)).body);
    assert.equal((await ctx.t.call('POST', `/payment_link/${link.id}/deactivate`)).statusCode, 200);
    const shown = await page(link.id);
    assert.match(shown.body, /no longer active/);
    assert.doesNotMatch(shown.body, /name="visit"/);
    assert.equal((await post(link.id, { visit })).statusCode, 409);
    assert.equal((await page('plink_01JZZZZZZZZZZZZZZZZZZZZZZZ')).statusCode, 404);
    assert.equal((await post('plink_01JZZZZZZZZZZZZZZZZZZZZZZZ', { visit })).statusCode, 404);
    const bad = await post(link.id, { visit: 'short' });
    assert.equal(bad.statusCode, 400);
    assert.equal(json(bad)['code'], 'invalid_request');
    assert.deepEqual(await checkouts(link.id), { open: 0, completed: 0, expired: 0 });
  });

  it('reads amounts typed the way each language writes them, exactly', () => {
    assert.equal(payerAmountText('150.000,50', 'id'), '150000.50');
    assert.equal(payerAmountText('Rp 1.500.000', 'id'), '1500000');
    assert.equal(payerAmountText('IDR 150,000.50', 'en'), '150000.50');
    assert.equal(payerAmountText('150000', 'en'), '150000');
    assert.equal(payerAmountText('150,000', 'id'), '150.000', 'an id comma is the decimal mark');
    assert.equal(payerAmountText('1,50,000', 'en'), '1,50,000', 'not a grouping: passed on to be refused');
  });
});
