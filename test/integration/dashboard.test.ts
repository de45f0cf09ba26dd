import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createLogger } from '../../src/lib/logger.ts';
import { TEST_OPERATOR, createTestApp, json, PUBLIC_BASE_URL, quickStart, ref, type TestApp } from '../harness/test-app.ts';

/**
 * The merchant dashboard over HTTP (docs/dashboard.md): login and logout, the cookie's flags,
 * CSRF and cross-origin refusals, sessions that end with their key, no key or token in the logs,
 * and tenant isolation (merchant B's session never sees or touches merchant A's things).
 */
interface Session {
  cookie: string;
  csrf: string;
}

const FORM = 'application/x-www-form-urlencoded';

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function cookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  assert.ok(typeof first === 'string', 'no Set-Cookie');
  return first;
}

async function get(t: TestApp, url: string, s?: Session): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url, headers: s === undefined ? {} : { cookie: s.cookie } });
}

async function post(
  t: TestApp,
  url: string,
  fields: Record<string, string>,
  s?: Session,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': FORM, ...(s === undefined ? {} : { cookie: s.cookie }), ...headers },
    payload: form(fields),
  });
}

async function login(t: TestApp, key: string): Promise<Session> {
  const res = await post(t, '/dashboard/login', { api_key: key });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers['location'], '/dashboard/payments');
  const cookie = cookieOf(res).split(';')[0] as string;
  const page = await get(t, '/dashboard/keys', { cookie, csrf: '' });
  assert.equal(page.statusCode, 200, page.body);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf !== undefined, 'no CSRF token on the page');
  return { cookie, csrf };
}

function revealedKeyId(body: string): string {
  const id = /<h2>New key <code>(key_[0-9A-Z]+)<\/code>/.exec(body)?.[1];
  assert.ok(id !== undefined, 'no new key on the page');
  return id;
}

/**
 * A checkout of merchant A whose payer chose each channel in turn (each choice cancels the
 * previous pending payment); its id and the payments made, oldest first.
 */
async function checkoutWithSelections(t: TestApp, channels: readonly string[]): Promise<{ id: string; payments: string[] }> {
  const created = await t.call('POST', '/checkout/create', {
    body: { amount: 150000.0, currency: 'IDR', reference_no: ref('dash-cs'), channels: ['bank', 'ewallet', 'counter'] },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { id, client_secret: secret } = json(created) as { id: string; client_secret: string };
  const payments: string[] = [];
  for (const channel of channels) {
    const selected = await t.call('POST', `/checkout/${id}/select`, { body: { client_secret: secret, channel }, key: null });
    assert.equal(selected.statusCode, 200, selected.body);
    payments.push((json(selected)['payment'] as { id: string }).id);
  }
  return { id, payments };
}

/** Where each marker first appears in a page, to check the order of a timeline. */
function positions(body: string, markers: readonly string[]): number[] {
  return markers.map((m) => {
    const at = body.indexOf(m);
    assert.ok(at >= 0, `${m} is not on the page`);
    return at;
  });
}

const signedIn = (res: LightMyRequestResponse) => res.statusCode === 200;
const toLogin = (res: LightMyRequestResponse) => res.statusCode === 303 && res.headers['location'] === '/dashboard/login';

describe('dashboard over HTTP', () => {
  let t: TestApp;
  const logLines: string[] = [];

  before(async () => {
    // A logger at debug (one access line per request) whose lines the test reads.
    const log = createLogger('debug', { write: (line: string) => void logLines.push(line) });
    t = await createTestApp({ log, webhookAllowlist: ['127.0.0.1'] });
  });
  after(() => t?.close());

  it('sends an anonymous visitor to the login form, with the strict headers', async () => {
    const res = await get(t, '/dashboard/payments');
    assert.ok(toLogin(res));
    const page = await get(t, '/dashboard/login');
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /name="api_key"/);
  });

  it('logs in with a key: an HttpOnly SameSite=Strict session cookie, not Secure over plain http', async () => {
    const res = await post(t, '/dashboard/login', { api_key: t.a.sandboxKey });
    assert.equal(res.statusCode, 303);
    const cookie = cookieOf(res);
    assert.match(cookie, /^tributary_dashboard=[A-Za-z0-9_-]{43}; /);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Strict/);
    assert.match(cookie, /; Path=\/dashboard/);
    assert.doesNotMatch(cookie, /Secure/);
    assert.ok(!cookie.includes(t.a.sandboxKey));
    assert.ok(!String(res.headers['location']).includes('sk_'));
    const page = await get(t, '/dashboard/payments', { cookie: cookie.split(';')[0] as string, csrf: '' });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /Merchant A/);
    assert.match(page.body, /id="environment"[^>]*>\s*Sandbox/);
    assert.ok(!page.body.includes(t.a.sandboxKey), 'the key is never on a page');
  });

  it('refuses a wrong, malformed or revoked key without echoing it', async () => {
    const wrong = `sk_test_${'x'.repeat(32)}`;
    const res = await post(t, '/dashboard/login', { api_key: wrong });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['set-cookie'], undefined);
    assert.ok(!res.body.includes(wrong));
    assert.match(res.body, /not valid/);
    const bad = await post(t, '/dashboard/login', { api_key: 'hello' });
    assert.equal(bad.statusCode, 401);
    const issued = await t.merchants.createKey(t.a.id, 'sandbox', TEST_OPERATOR);
    assert.ok(issued);
    await t.merchants.revokeKey(issued.key.id, TEST_OPERATOR);
    assert.equal((await post(t, '/dashboard/login', { api_key: issued.secret })).statusCode, 401);
  });

  it('logs out: the session is ended on the server, not only the cookie cleared', async () => {
    const s = await login(t, t.a.sandboxKey);
    const res = await post(t, '/dashboard/logout', { csrf_token: s.csrf }, s);
    assert.equal(res.statusCode, 303);
    assert.match(cookieOf(res), /Max-Age=0/);
    assert.ok(toLogin(await get(t, '/dashboard/payments', s)), 'the old cookie no longer opens anything');
  });

  it('refuses state changes without the session CSRF token, or from another origin or site', async () => {
    const s = await login(t, t.a.sandboxKey);
    const before = (await t.merchants.listKeys(t.a.id)).length;
    assert.equal((await post(t, '/dashboard/keys', {}, s)).statusCode, 403);
    assert.equal((await post(t, '/dashboard/keys', { csrf_token: 'forged' }, s)).statusCode, 403);
    const other = await login(t, t.a.sandboxKey);
    assert.equal((await post(t, '/dashboard/keys', { csrf_token: other.csrf }, s)).statusCode, 403, "another session's token");
    assert.equal(
      (await post(t, '/dashboard/keys', { csrf_token: s.csrf }, s, { origin: 'https://evil.example' })).statusCode,
      403,
    );
    assert.equal(
      (await post(t, '/dashboard/keys', { csrf_token: s.csrf }, s, { 'sec-fetch-site': 'cross-site' })).statusCode,
      403,
    );
    assert.equal((await post(t, '/dashboard/logout', {}, s)).statusCode, 403);
    assert.ok(signedIn(await get(t, '/dashboard/payments', s)), 'a refused logout did not log out');
    assert.equal((await t.merchants.listKeys(t.a.id)).length, before, 'no key was created');
    // The same request from our own page works.
    const ok = await post(t, '/dashboard/keys', { csrf_token: s.csrf }, s, {
      origin: PUBLIC_BASE_URL,
      'sec-fetch-site': 'same-origin',
    });
    assert.equal(ok.statusCode, 201, ok.body);
    // The origin the request was addressed to (its Host) is ours too.
    const byHost = await post(t, '/dashboard/keys', { csrf_token: s.csrf }, s, {
      host: 'dash.example:8443',
      origin: 'http://dash.example:8443',
    });
    assert.equal(byHost.statusCode, 201, byHost.body);
    assert.match(ok.body, /id="new-secret">sk_test_[0-9A-Za-z]{32}</);
    assert.equal((await t.merchants.listKeys(t.a.id)).length, before + 2);
  });

  it('ends the sessions of a key revoked or rolled elsewhere (CLI), at once', async () => {
    const revoked = await t.merchants.createKey(t.a.id, 'sandbox', TEST_OPERATOR);
    const rolled = await t.merchants.createKey(t.a.id, 'sandbox', TEST_OPERATOR);
    assert.ok(revoked && rolled);
    const s1 = await login(t, revoked.secret);
    const s2 = await login(t, rolled.secret);
    await t.merchants.revokeKey(revoked.key.id, TEST_OPERATOR);
    await t.merchants.rollKey(rolled.key.id, 24 * 3_600_000, TEST_OPERATOR);
    assert.ok(toLogin(await get(t, '/dashboard/payments', s1)));
    assert.ok(toLogin(await get(t, '/dashboard/payments', s2)));
    assert.equal((await post(t, '/dashboard/keys', { csrf_token: s1.csrf }, s1)).statusCode, 401);
    // The rolled key still works in the API during its overlap, but opens no new dashboard session.
    assert.equal((await t.call('GET', '/balance', { key: rolled.secret })).statusCode, 200);
    const again = await post(t, '/dashboard/login', { api_key: rolled.secret });
    assert.equal(again.statusCode, 401);
    assert.match(again.body, /rolled/);
  });

  it('manages keys through the dashboard: create, roll and revoke, its own environment only', async () => {
    const s = await login(t, t.a.sandboxKey);
    const created = await post(t, '/dashboard/keys', { csrf_token: s.csrf }, s);
    assert.equal(created.statusCode, 201);
    const secret = /id="new-secret">(sk_test_[0-9A-Za-z]{32})</.exec(created.body)?.[1];
    const keyId = revealedKeyId(created.body);
    assert.ok(secret);
    assert.equal((await t.call('GET', '/balance', { key: secret })).statusCode, 200, 'the new key works in the API');
    assert.ok(created.body.includes(`data-key-id="${keyId}"`), 'listed');
    const rolled = await post(t, `/dashboard/keys/${keyId}/roll`, { csrf_token: s.csrf, overlap_hours: '0' }, s);
    assert.equal(rolled.statusCode, 201, rolled.body);
    const replacement = /id="new-secret">(sk_test_[0-9A-Za-z]{32})</.exec(rolled.body)?.[1];
    assert.ok(replacement && replacement !== secret);
    assert.equal((await t.call('GET', '/balance', { key: secret })).statusCode, 401, 'rolled with no overlap: the old key stops');
    assert.equal((await t.call('GET', '/balance', { key: replacement })).statusCode, 200);
    const replacementId = revealedKeyId(rolled.body);
    const revoked = await post(t, `/dashboard/keys/${replacementId}/revoke`, { csrf_token: s.csrf }, s);
    assert.equal(revoked.statusCode, 303);
    assert.equal(revoked.headers['location'], '/dashboard/keys?notice=key_revoked');
    assert.equal((await t.call('GET', '/balance', { key: replacement })).statusCode, 401);
    // The production key of the same merchant is out of a sandbox session's reach.
    const production = (await t.merchants.listKeysOf({ merchantId: t.a.id, environment: 'production' }))[0];
    assert.ok(production);
    assert.equal((await post(t, `/dashboard/keys/${production.id}/revoke`, { csrf_token: s.csrf }, s)).statusCode, 404);
    assert.equal((await t.call('GET', '/balance', { key: t.a.productionKey })).statusCode, 200);
    const keysPage = await get(t, '/dashboard/keys', s);
    assert.ok(!keysPage.body.includes(production.id), 'production keys are not listed in a sandbox session');
  });

  it('revoking the session’s own key ends the session', async () => {
    const own = await t.merchants.createKey(t.a.id, 'sandbox', TEST_OPERATOR);
    assert.ok(own);
    const s = await login(t, own.secret);
    const res = await post(t, `/dashboard/keys/${own.key.id}/revoke`, { csrf_token: s.csrf }, s);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers['location'], '/dashboard/login?notice=session_ended');
    assert.ok(toLogin(await get(t, '/dashboard/keys', s)));
  });

  it('shows a payment with its timeline, refunds it and redelivers its events', async () => {
    const endpoint = await t.call('POST', '/webhook_endpoint/create', { body: { url: 'http://127.0.0.1:9/hook' } });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const { id } = await t.paidBankPayment();
    const s = await login(t, t.a.sandboxKey);
    const list = await get(t, '/dashboard/payments?status=succeeded&channel=bank', s);
    assert.equal(list.statusCode, 200);
    assert.ok(list.body.includes(`data-payment-id="${id}"`));
    const none = await get(t, '/dashboard/payments?status=canceled', s);
    assert.ok(!none.body.includes(`data-payment-id="${id}"`));
    const found = await get(t, `/dashboard/payments?q=${id}`, s);
    assert.equal(found.statusCode, 303);
    assert.equal(found.headers['location'], `/dashboard/payments/${id}`);
    const page = await get(t, `/dashboard/payments/${id}`, s);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /class="k-attempt"/);
    assert.match(page.body, /class="k-notification"/);
    assert.match(page.body, /<code>payment\.succeeded<\/code>/);
    assert.match(page.body, /IDR 150,000\.00/);
    const eventId = /id="event-(evt_[0-9A-Z]+)"/.exec(page.body)?.[1];
    assert.ok(eventId);
    const refundKey = /name="idempotency_key" value="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(refundKey);

    const refund = await post(
      t,
      `/dashboard/payments/${id}/refund`,
      { csrf_token: s.csrf, idempotency_key: refundKey, amount: '50000', reason: 'requested_by_customer' },
      s,
    );
    assert.equal(refund.statusCode, 303, refund.body);
    // The same form sent twice (a double click) refunds once: the form carries an Idempotency-Key.
    const twice = await post(
      t,
      `/dashboard/payments/${id}/refund`,
      { csrf_token: s.csrf, idempotency_key: refundKey, amount: '50000', reason: 'requested_by_customer' },
      s,
    );
    assert.equal(twice.statusCode, 303);
    const refunds = await t.testStore.store.query('SELECT id FROM refunds WHERE payment_id = $1', [id]);
    assert.equal(refunds.length, 1);
    const tooMuch = await post(t, `/dashboard/payments/${id}/refund`, { csrf_token: s.csrf, amount: '900000' }, s);
    assert.equal(tooMuch.statusCode, 422);
    assert.match(tooMuch.body, /class="notice bad"/);

    const redeliver = await post(
      t,
      `/dashboard/events/${eventId}/redeliver`,
      { csrf_token: s.csrf, payment_id: id, target: 'all' },
      s,
    );
    assert.equal(redeliver.statusCode, 303, redeliver.body);
    const after = await get(t, `/dashboard/payments/${id}?notice=redelivered`, s);
    assert.match(after.body, /class="k-refund"/);
    assert.match(after.body, /· redelivery ·/);
    assert.match(after.body, /Redelivery scheduled/);
  });

  it('lists checkouts (status filter, search) and links each payment a checkout made to it', async () => {
    const untouched = await checkoutWithSelections(t, []);
    const chosen = await checkoutWithSelections(t, ['bank', 'ewallet']);
    const [first, second] = chosen.payments as [string, string];
    const s = await login(t, t.a.sandboxKey);
    const list = await get(t, '/dashboard/checkouts', s);
    assert.equal(list.statusCode, 200, list.body);
    assert.match(list.body, /id="nav-checkouts" class="current"/);
    const row = (body: string, id: string) => new RegExp(`<tr data-checkout-id="${id}">([\\s\\S]*?)</tr>`).exec(body)?.[1] ?? '';
    const chosenRow = row(list.body, chosen.id);
    assert.match(chosenRow, /IDR 150,000\.00/);
    assert.match(chosenRow, /class="status s-open">open</);
    assert.ok(chosenRow.includes(`href="/dashboard/payments/${second}"`), 'the current payment is the latest selection');
    assert.ok(!chosenRow.includes(first), 'the canceled one is not current');
    assert.ok(row(list.body, untouched.id).includes('—'), 'no payment yet');
    const completed = await get(t, '/dashboard/checkouts?status=completed', s);
    assert.ok(!completed.body.includes(`data-checkout-id="${chosen.id}"`));
    assert.equal((await get(t, '/dashboard/checkouts?status=nonsense', s)).statusCode, 400);
    for (const q of [chosen.id, first]) {
      const found = await get(t, `/dashboard/checkouts?q=${q}`, s);
      assert.equal(found.statusCode, 303, q);
      assert.equal(found.headers['location'], `/dashboard/checkouts/${chosen.id}`);
    }
    // The payment list and the payment screen name the checkout that made a payment.
    const payments = await get(t, '/dashboard/payments', s);
    for (const paymentId of [first, second]) {
      const paymentRow = new RegExp(`<tr data-payment-id="${paymentId}">([\\s\\S]*?)</tr>`).exec(payments.body)?.[1] ?? '';
      assert.ok(paymentRow.includes(`href="/dashboard/checkouts/${chosen.id}"`), `${paymentId} links its checkout`);
    }
    const direct = await t.call('POST', '/payment/create', { body: quickStart() });
    const directId = String(json(direct)['id']);
    const afterDirect = await get(t, '/dashboard/payments', s);
    const directRow = new RegExp(`<tr data-payment-id="${directId}">([\\s\\S]*?)</tr>`).exec(afterDirect.body)?.[1] ?? '';
    assert.ok(directRow !== '' && !directRow.includes('/dashboard/checkouts/'), 'a payment made directly names no checkout');
    const paymentPage = await get(t, `/dashboard/payments/${first}`, s);
    assert.match(
      paymentPage.body,
      new RegExp(`id="payment-checkout">\\s*<a class="mono" href="/dashboard/checkouts/${chosen.id}"`),
    );
  });

  it("shows a checkout's payments in order and its timeline, through to completion", async () => {
    const c = await checkoutWithSelections(t, ['ewallet', 'bank']);
    const [wallet, bank] = c.payments as [string, string];
    const paid = await t.call('POST', `/sandbox/payment/${bank}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(paid.statusCode, 202, paid.body);
    await t.deliverNotifications();
    const s = await login(t, t.a.sandboxKey);
    const page = await get(t, `/dashboard/checkouts/${c.id}`, s);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /id="checkout-status"><span class="status s-completed">completed</);
    assert.match(page.body, /id="checkout-amount">IDR 150,000\.00</);
    assert.ok(!page.body.includes('id="expire-form"'), 'a completed checkout cannot be expired');
    // Payments in the order the selections made them, each linking to its payment screen.
    const table = /<table id="checkout-payments">([\s\S]*?)<\/table>/.exec(page.body)?.[1] ?? '';
    const rows = [...table.matchAll(/<tr data-payment-id="(pay_[0-9A-Z]+)">/g)].map((m) => m[1]);
    assert.deepEqual(rows, [wallet, bank]);
    assert.ok(table.includes(`href="/dashboard/payments/${wallet}"`) && table.includes(`href="/dashboard/payments/${bank}"`));
    assert.match(table, /s-canceled">canceled</);
    assert.match(table, /s-succeeded">succeeded</);
    // The timeline: created, payment 1 created then canceled, payment 2 created then paid, completed, its event.
    const timeline = /<ol class="timeline" id="checkout-timeline">([\s\S]*?)<\/ol>/.exec(page.body)?.[1] ?? '';
    const order = positions(timeline, [
      'class="k-created"',
      'id="selection-1"',
      'id="payment-closed-1"',
      'id="selection-2"',
      'id="payment-closed-2"',
      'id="checkout-completed"',
      '<code>checkout.completed</code>',
    ]);
    assert.deepEqual(
      order,
      [...order].sort((x, y) => x - y),
      'in time order',
    );
    assert.match(timeline, /<strong>Payment canceled<\/strong>/);
    assert.match(timeline, /<strong>Payment succeeded<\/strong>/);
    assert.match(timeline, /<time datetime="\d{4}-\d{2}-\d{2}T/);
    // Expiring a completed checkout is refused with the API's reason, and changes nothing.
    const refused = await post(t, `/dashboard/checkouts/${c.id}/expire`, { csrf_token: s.csrf }, s);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.body, /class="notice bad"[^>]*>The checkout is completed\./);
    assert.equal(json(await t.call('GET', `/checkout/${c.id}`))['status'], 'completed');
    assert.equal((await get(t, '/dashboard/checkouts/cs_nope', s)).statusCode, 404);
  });

  it('expires an open checkout from its page (its pending payment canceled); refused without the CSRF token or from another origin', async () => {
    const c = await checkoutWithSelections(t, ['bank']);
    const [pending] = c.payments as [string];
    const s = await login(t, t.a.sandboxKey);
    const before = await get(t, `/dashboard/checkouts/${c.id}`, s);
    assert.match(before.body, /id="expire-form"/);
    assert.match(before.body, new RegExp(`action="/dashboard/checkouts/${c.id}/expire"`));
    const url = `/dashboard/checkouts/${c.id}/expire`;
    const other = await login(t, t.a.sandboxKey);
    for (const [what, res] of [
      ['no token', await post(t, url, {}, s)],
      ['a forged token', await post(t, url, { csrf_token: 'forged' }, s)],
      ["another session's token", await post(t, url, { csrf_token: other.csrf }, s)],
      ['another origin', await post(t, url, { csrf_token: s.csrf }, s, { origin: 'https://evil.example' })],
      ['a cross-site request', await post(t, url, { csrf_token: s.csrf }, s, { 'sec-fetch-site': 'cross-site' })],
      ['no session', await post(t, url, { csrf_token: s.csrf })],
    ] as const) {
      assert.ok(res.statusCode === 403 || res.statusCode === 401, `${what}: ${res.statusCode}`);
    }
    // Merchant B cannot expire it either: not found, like an unknown id.
    const b = await login(t, t.b.sandboxKey);
    assert.equal((await post(t, url, { csrf_token: b.csrf }, b)).statusCode, 404);
    assert.equal((await get(t, `/dashboard/checkouts/${c.id}`, b)).statusCode, 404);
    assert.equal(json(await t.call('GET', `/checkout/${c.id}`))['status'], 'open', 'the refusals changed nothing');
    assert.equal((await t.payment(pending))['status'], 'pending');

    const expired = await post(t, url, { csrf_token: s.csrf }, s, { origin: PUBLIC_BASE_URL, 'sec-fetch-site': 'same-origin' });
    assert.equal(expired.statusCode, 303, expired.body);
    assert.equal(expired.headers['location'], `/dashboard/checkouts/${c.id}?notice=checkout_expired`);
    assert.equal(json(await t.call('GET', `/checkout/${c.id}`))['status'], 'expired');
    assert.equal((await t.payment(pending))['status'], 'canceled', 'its pending payment was canceled at the provider');
    const after = await get(t, `/dashboard/checkouts/${c.id}?notice=checkout_expired`, s);
    assert.match(after.body, /Checkout expired\./);
    assert.match(after.body, /s-expired">expired</);
    assert.ok(!after.body.includes('id="expire-form"'));
    const order = positions(after.body, ['id="selection-1"', 'id="checkout-expired"', '<code>checkout.expired</code>']);
    assert.deepEqual(
      order,
      [...order].sort((x, y) => x - y),
    );
    assert.match(after.body, /id="payment-closed-1"/);
    // Sent again (a double click): the expired checkout is answered unchanged.
    assert.equal((await post(t, url, { csrf_token: s.csrf }, s)).statusCode, 303);
    const events = await t.testStore.store.query('SELECT id FROM events WHERE object_id = $1', [c.id]);
    assert.equal(events.length, 1, 'one checkout.expired');
  });

  it('cancels a pending payment from its page (once per form); refused without CSRF, from another origin or tenant, and once it is no longer pending', async () => {
    const created = await t.call('POST', '/payment/create', { body: quickStart() });
    assert.equal(created.statusCode, 201, created.body);
    const id = String(json(created)['id']);
    const s = await login(t, t.a.sandboxKey);
    const before = await get(t, `/dashboard/payments/${id}`, s);
    assert.match(
      before.body,
      new RegExp(`<form class="inline" method="post" action="/dashboard/payments/${id}/cancel" id="cancel-form">`),
    );
    const formKey = /id="cancel-form">[\s\S]*?name="idempotency_key" value="(dashboard_[^"]+)"/.exec(before.body)?.[1] ?? '';
    assert.notEqual(formKey, '');
    const url = `/dashboard/payments/${id}/cancel`;
    const fields = { csrf_token: s.csrf, idempotency_key: formKey };
    const other = await login(t, t.a.sandboxKey);
    for (const [what, res] of [
      ['no token', await post(t, url, { idempotency_key: formKey }, s)],
      ['a forged token', await post(t, url, { ...fields, csrf_token: 'forged' }, s)],
      ["another session's token", await post(t, url, { ...fields, csrf_token: other.csrf }, s)],
      ['another origin', await post(t, url, fields, s, { origin: 'https://evil.example' })],
      ['a cross-site request', await post(t, url, fields, s, { 'sec-fetch-site': 'cross-site' })],
      ['no session', await post(t, url, fields)],
    ] as const) {
      assert.ok(res.statusCode === 403 || res.statusCode === 401, `${what}: ${res.statusCode}`);
    }
    const b = await login(t, t.b.sandboxKey);
    assert.equal((await post(t, url, { csrf_token: b.csrf }, b)).statusCode, 404, "another merchant's payment is not found");
    assert.equal((await t.payment(id))['status'], 'pending', 'the refusals changed nothing');

    const canceled = await post(t, url, fields, s, { origin: PUBLIC_BASE_URL, 'sec-fetch-site': 'same-origin' });
    assert.equal(canceled.statusCode, 303, canceled.body);
    assert.equal(canceled.headers['location'], `/dashboard/payments/${id}?notice=payment_canceled`);
    assert.equal((await t.payment(id))['status'], 'canceled');
    const after = await get(t, `/dashboard/payments/${id}?notice=payment_canceled`, s);
    assert.match(after.body, /Payment canceled\./);
    assert.ok(!after.body.includes('id="cancel-form"'), 'no cancel button once it is not pending');
    // The same form sent again (a double click) answers the same cancel; one payment.canceled.
    assert.equal((await post(t, url, fields, s)).statusCode, 303);
    const events = await t.testStore.store.query("SELECT id FROM events WHERE object_id = $1 AND type = 'payment.canceled'", [
      id,
    ]);
    assert.equal(events.length, 1);

    // A payment that is not pending (paid) is refused with the API's reason and stays as it is.
    const paid = String(json(await t.call('POST', '/payment/create', { body: quickStart() }))['id']);
    assert.equal((await t.call('POST', `/sandbox/payment/${paid}/simulate`, { body: { outcome: 'succeeded' } })).statusCode, 202);
    await t.deliverNotifications();
    assert.equal((await t.payment(paid))['status'], 'succeeded');
    assert.ok(!(await get(t, `/dashboard/payments/${paid}`, s)).body.includes('id="cancel-form"'));
    const refused = await post(t, `/dashboard/payments/${paid}/cancel`, { csrf_token: s.csrf }, s);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.body, /class="notice bad"/);
    assert.equal((await t.payment(paid))['status'], 'succeeded');
    assert.equal((await post(t, '/dashboard/payments/pay_nope/cancel', { csrf_token: s.csrf }, s)).statusCode, 404);
  });

  it('lists and creates payment links (fixed or payer-entered); a refused create shows the API’s messages inline and stores nothing', async () => {
    const s = await login(t, t.a.sandboxKey);
    const links = async () =>
      Number((await t.testStore.store.query<{ n: bigint | string }>('SELECT count(*) AS n FROM payment_links', []))[0]?.n);
    const first = await get(t, '/dashboard/payment-links', s);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /id="nav-payment-links" class="current"/);
    assert.match(first.body, /id="create-link-form"/);
    const formKey = () => /name="idempotency_key" value="(dashboard_[A-Za-z0-9_-]{24})"/.exec(first.body)?.[1] ?? '';
    assert.notEqual(formKey(), '');
    const before = await links();

    const expires = new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString().slice(0, 16);
    const fixedForm = {
      csrf_token: s.csrf,
      idempotency_key: formKey(),
      amount: '150000.00',
      currency: 'IDR',
      description: 'Yoga class',
      max_uses: '3',
      expires_at: expires,
    };
    const created = await post(t, '/dashboard/payment-links', fixedForm, s);
    assert.equal(created.statusCode, 303, created.body);
    const id = /^\/dashboard\/payment-links\/(plink_[0-9A-Z]{26})\?notice=payment_link_created$/.exec(
      String(created.headers['location']),
    )?.[1];
    assert.ok(id !== undefined, String(created.headers['location']));
    // The same form sent twice (a double click) makes one link.
    const again = await post(t, '/dashboard/payment-links', fixedForm, s);
    assert.equal(again.headers['location'], created.headers['location']);
    const api = json(await t.call('GET', `/payment_link/${id}`));
    assert.deepEqual(
      [api['amount'], api['amount_min'], api['description'], api['max_uses'], api['expires_at']],
      [150000, null, 'Yoga class', 3, `${expires}:00.000Z`],
    );
    const range = await post(
      t,
      '/dashboard/payment-links',
      { csrf_token: s.csrf, amount_min: '50000', amount_max: '2000000.50', currency: 'idr' },
      s,
    );
    assert.equal(range.statusCode, 303, range.body);
    const rangeId = /(plink_[0-9A-Z]{26})/.exec(String(range.headers['location']))?.[1] ?? '';
    assert.equal(await links(), before + 2);

    const list = await get(t, '/dashboard/payment-links', s);
    const row = (linkId: string) => new RegExp(`<tr data-link-id="${linkId}">([\\s\\S]*?)</tr>`).exec(list.body)?.[1] ?? '';
    assert.match(row(id), /s-active">active</);
    assert.match(row(id), />IDR 150,000\.00</);
    assert.match(row(id), /3 of 3 left/);
    assert.match(row(id), /IDR 0\.00/);
    assert.match(row(id), /Yoga class/);
    assert.match(row(rangeId), /IDR 50,000\.00 – IDR 2,000,000\.50/);
    assert.match(row(rangeId), /payer enters/);
    assert.match(row(rangeId), /unlimited/);

    // Refusals: 400 with the API's message for each field, next to it; what was typed stays; nothing stored.
    const refused = async (fields: Record<string, string>, statusCode: number, field: string, message: RegExp) => {
      const res = await post(t, '/dashboard/payment-links', { csrf_token: s.csrf, currency: 'IDR', ...fields }, s);
      assert.equal(res.statusCode, statusCode, `${JSON.stringify(fields)}: ${res.body.slice(0, 300)}`);
      assert.match(res.body, /class="notice bad"/);
      const inline = new RegExp(`id="error-${field}">([^<]*)<`).exec(res.body)?.[1] ?? '';
      assert.match(inline, message, `${field}: ${inline}`);
      assert.match(res.body, new RegExp(`id="link-${field}"\\s+value="${fields[field] ?? ''}"[^>]*aria-invalid="true"`));
      return res;
    };
    await refused(
      { amount: '1000', amount_min: '500', amount_max: '2000' },
      400,
      'amount',
      /send either amount \(fixed\) or amount_min and amount_max/,
    );
    await refused({}, 400, 'amount', /send amount, or amount_min and amount_max/);
    await refused({ amount: '150000.005' }, 400, 'amount', /.+/);
    await refused({ amount_min: '200000', amount_max: '100000' }, 400, 'amount_min', /must not be greater than amount_max/);
    await refused({ amount: '150000', max_uses: '0' }, 400, 'max_uses', /must be a whole number from 1 to 1000000/);
    await refused({ amount: '150000', expires_at: '2020-01-01T00:00' }, 400, 'expires_at', /must be in the future/);
    await refused({ amount: '150000', currency: 'XYZ' }, 400, 'currency', /.+/);
    // No channel takes 1 rupiah: the module's 422, its message in the notice, the field marked.
    const tooSmall = await refused({ amount: '1' }, 422, 'amount', /.+/);
    assert.match(tooSmall.body, /class="notice bad"[^>]*>[^<]+</);
    assert.equal(await links(), before + 2, 'no refused create stored a link');
    // Without the CSRF token, or from another origin: refused before anything is read.
    const form = { amount: '150000', currency: 'IDR' };
    assert.equal((await post(t, '/dashboard/payment-links', form, s)).statusCode, 403);
    assert.equal(
      (await post(t, '/dashboard/payment-links', { ...form, csrf_token: s.csrf }, s, { origin: 'https://evil.example' }))
        .statusCode,
      403,
    );
    assert.equal(await links(), before + 2);
  });

  it('shows a payment link with its URL, a copy button, a QR code and its numbers; deactivates it (CSRF, origin and tenant refusals)', async () => {
    const created = await t.call('POST', '/payment_link/create', {
      body: { amount: 150000.0, currency: 'IDR', description: 'Class pass', max_uses: 5 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = String(json(created)['id']);
    // Two visits: one paid (completed), one left open.
    const paidVisit = await t.call('POST', `/payment_link/${id}/checkout`, { body: {}, key: null });
    assert.equal(paidVisit.statusCode, 201, paidVisit.body);
    const visit = json(paidVisit) as { id: string; client_secret: string };
    const selected = await t.call('POST', `/checkout/${visit.id}/select`, {
      body: { client_secret: visit.client_secret, channel: 'bank' },
      key: null,
    });
    const paymentId = (json(selected)['payment'] as { id: string }).id;
    assert.equal(
      (await t.call('POST', `/sandbox/payment/${paymentId}/simulate`, { body: { outcome: 'succeeded' } })).statusCode,
      202,
    );
    await t.deliverNotifications();
    assert.equal((await t.call('POST', `/payment_link/${id}/checkout`, { body: {}, key: null })).statusCode, 201);

    const s = await login(t, t.a.sandboxKey);
    const page = await get(t, `/dashboard/payment-links/${id}`, s);
    assert.equal(page.statusCode, 200, page.body);
    const url = `${PUBLIC_BASE_URL}/pay/${id}`;
    assert.match(page.body, new RegExp(`<code id="link-url">${url}</code>`));
    assert.match(
      page.body,
      new RegExp(`<button type="button" class="copy secondary" id="copy-link" data-copy="${url}"[^>]* hidden>`),
    );
    const svg = /<figure class="qr" id="link-qr">\s*(<svg [\s\S]*?<\/svg>)/.exec(page.body)?.[1] ?? '';
    assert.match(svg, /^<svg [^>]*role="img" aria-label="QR code of the payment link plink_/);
    assert.match(svg, /<path [^>]*d="M/);
    assert.ok(!/<svg[^>]*(href|src)=/.test(svg) && !page.body.includes('<img'), 'inline SVG, nothing fetched');
    assert.match(page.body, /id="link-status"><span class="status s-active">active</);
    assert.match(page.body, /id="link-amount">IDR 150,000\.00</);
    assert.match(page.body, /id="link-uses">3 of 5 left</);
    assert.match(page.body, /id="link-checkouts">1 open, 1 completed, 0 expired</);
    assert.match(page.body, /id="link-collected">IDR 150,000\.00 \(1 completed\)</);
    // The one page with a script: the copy button's, allowed by its hash and nothing else.
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/]+=*'$/);
    assert.match(csp, /default-src 'none'/);
    const script = /<script>([\s\S]*?)<\/script>/.exec(page.body)?.[1] ?? '';
    const hash = createHash('sha256').update(script, 'utf8').digest('base64');
    assert.ok(csp.includes(`'sha256-${hash}'`), 'the script on the page is the one the CSP allows');
    assert.doesNotMatch(String((await get(t, '/dashboard/payment-links', s)).headers['content-security-policy']), /script-src/);

    const url2 = `/dashboard/payment-links/${id}/deactivate`;
    assert.match(page.body, new RegExp(`action="${url2}"`));
    const other = await login(t, t.a.sandboxKey);
    for (const [what, res] of [
      ['no token', await post(t, url2, {}, s)],
      ['a forged token', await post(t, url2, { csrf_token: 'forged' }, s)],
      ["another session's token", await post(t, url2, { csrf_token: other.csrf }, s)],
      ['another origin', await post(t, url2, { csrf_token: s.csrf }, s, { origin: 'https://evil.example' })],
      ['a cross-site request', await post(t, url2, { csrf_token: s.csrf }, s, { 'sec-fetch-site': 'cross-site' })],
      ['no session', await post(t, url2, { csrf_token: s.csrf })],
    ] as const) {
      assert.ok(res.statusCode === 403 || res.statusCode === 401, `${what}: ${res.statusCode}`);
    }
    const b = await login(t, t.b.sandboxKey);
    assert.equal((await post(t, url2, { csrf_token: b.csrf }, b)).statusCode, 404, "merchant B cannot deactivate A's link");
    assert.equal((await get(t, `/dashboard/payment-links/${id}`, b)).statusCode, 404);
    assert.ok(!(await get(t, '/dashboard/payment-links', b)).body.includes(id));
    assert.equal(json(await t.call('GET', `/payment_link/${id}`))['status'], 'active', 'the refusals changed nothing');

    const done = await post(t, url2, { csrf_token: s.csrf }, s, { origin: PUBLIC_BASE_URL, 'sec-fetch-site': 'same-origin' });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers['location'], `/dashboard/payment-links/${id}?notice=payment_link_deactivated`);
    assert.equal(json(await t.call('GET', `/payment_link/${id}`))['status'], 'inactive');
    const after = await get(t, `/dashboard/payment-links/${id}?notice=payment_link_deactivated`, s);
    assert.match(after.body, /Payment link deactivated\./);
    assert.match(after.body, /id="link-status"><span class="status s-inactive">inactive</);
    assert.ok(!after.body.includes('id="deactivate-form"'));
    assert.match(after.body, /id="link-not-taking"/);
    // Sent again (a double click): answered unchanged.
    assert.equal((await post(t, url2, { csrf_token: s.csrf }, s)).statusCode, 303);
    assert.equal((await get(t, '/dashboard/payment-links/plink_nope', s)).statusCode, 404);
    assert.equal((await post(t, '/dashboard/payment-links/plink_nope/deactivate', { csrf_token: s.csrf }, s)).statusCode, 404);
  });

  it("isolates tenants: merchant B's session never sees or touches A's payment, events or keys", async () => {
    const { id } = await t.paidBankPayment();
    const aSession = await login(t, t.a.sandboxKey);
    const aPage = await get(t, `/dashboard/payments/${id}`, aSession);
    const eventId = /id="event-(evt_[0-9A-Z]+)"/.exec(aPage.body)?.[1];
    assert.ok(eventId);
    const b = await login(t, t.b.sandboxKey);
    assert.equal((await get(t, `/dashboard/payments/${id}`, b)).statusCode, 404);
    const list = await get(t, '/dashboard/payments', b);
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(id));
    assert.match(list.body, /Merchant B/);
    const search = await get(t, `/dashboard/payments?q=${id}`, b);
    assert.equal(search.statusCode, 200);
    assert.ok(!search.body.includes(`data-payment-id="${id}"`));
    const refund = await post(t, `/dashboard/payments/${id}/refund`, { csrf_token: b.csrf }, b);
    assert.equal(refund.statusCode, 404);
    const redeliver = await post(
      t,
      `/dashboard/events/${eventId}/redeliver`,
      { csrf_token: b.csrf, payment_id: id, target: 'all' },
      b,
    );
    assert.equal(redeliver.statusCode, 404);
    const aKey = (await t.merchants.listKeysOf({ merchantId: t.a.id, environment: 'sandbox' }))[0];
    assert.ok(aKey);
    assert.equal((await post(t, `/dashboard/keys/${aKey.id}/revoke`, { csrf_token: b.csrf }, b)).statusCode, 404);
    assert.equal((await post(t, `/dashboard/keys/${aKey.id}/roll`, { csrf_token: b.csrf }, b)).statusCode, 404);
    assert.equal((await t.call('GET', '/balance', { key: t.a.sandboxKey })).statusCode, 200);
    for (const screen of ['checkouts', 'payment-links', 'webhooks', 'keys', 'balance', 'settlements', 'reconciliation']) {
      const res = await get(t, `/dashboard/${screen}`, b);
      assert.equal(res.statusCode, 200, screen);
      assert.ok(!res.body.includes(t.a.id) && !res.body.includes(aKey.id) && !res.body.includes(id), screen);
    }
    // A's session still sees it: the 404 above is isolation, not a broken page.
    assert.equal(aPage.statusCode, 200);
  });

  it('renders every screen for a signed-in merchant', async () => {
    const s = await login(t, t.a.sandboxKey);
    const created = await t.call('POST', '/payment/create', { body: quickStart() });
    assert.equal(created.statusCode, 201);
    for (const [url, marker] of [
      ['/dashboard/payments', 'id="screen-payments"'],
      [`/dashboard/payments/${String(json(created)['id'])}`, 'id="timeline"'],
      ['/dashboard/checkouts', 'id="screen-checkouts"'],
      ['/dashboard/payment-links', 'id="create-link-form"'],
      ['/dashboard/webhooks', 'id="endpoints"'],
      ['/dashboard/keys', 'id="keys"'],
      ['/dashboard/balance', 'id="screen-balance"'],
      ['/dashboard/settlements', 'id="screen-settlements"'],
      ['/dashboard/reconciliation', 'id="reconcile-form"'],
    ] as const) {
      const res = await get(t, url, s);
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
      assert.ok(res.body.includes(marker), `${url} lacks ${marker}`);
    }
    assert.equal((await get(t, '/dashboard/payments/pay_nope', s)).statusCode, 404);
    assert.equal((await get(t, '/dashboard/nowhere', s)).statusCode, 404);
  });

  it('never writes a key or a session token to the log', async () => {
    const s = await login(t, t.a.sandboxKey);
    const token = s.cookie.split('=')[1] as string;
    await post(t, '/dashboard/login', { api_key: `sk_test_${'Z'.repeat(32)}` });
    await t.app.inject({ method: 'POST', url: '/dashboard/login', headers: { 'content-type': FORM }, payload: '%%%' });
    await get(t, '/dashboard/payments', s);
    const text = logLines.join('');
    assert.ok(logLines.length > 10, 'the access log was captured');
    for (const secret of [t.a.sandboxKey, t.b.sandboxKey, token, `sk_test_${'Z'.repeat(32)}`, s.csrf]) {
      assert.ok(!text.includes(secret), 'a secret reached the log');
    }
  });
});

describe('dashboard behind https', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ publicBaseUrl: 'https://pay.example.com' });
  });
  after(() => t?.close());

  it('makes the session cookie Secure with the __Host- prefix', async () => {
    const res = await post(t, '/dashboard/login', { api_key: t.a.sandboxKey });
    assert.equal(res.statusCode, 303);
    const cookie = cookieOf(res);
    assert.match(cookie, /^__Host-tributary_dashboard=/);
    assert.match(cookie, /; Path=\/;/);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /; HttpOnly/);
    const page = await get(t, '/dashboard/balance', { cookie: cookie.split(';')[0] as string, csrf: '' });
    assert.equal(page.statusCode, 200);
    // A form posted from the public origin is ours.
    const s = { cookie: cookie.split(';')[0] as string, csrf: /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '' };
    const ok = await post(t, '/dashboard/keys', { csrf_token: s.csrf }, s, { origin: 'https://pay.example.com' });
    assert.equal(ok.statusCode, 201);
  });
});
