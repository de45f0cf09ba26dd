import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { TEST_OPERATOR, appForSuite, quickStart, ref, type TestApp } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';
import { createWebhookTestbed, type WebhookTestbed } from '../harness/webhook-testbed.ts';
import type { ReceivedRequest } from '../harness/webhook-receiver.ts';
import { type DropProxy, startDropProxy } from './drop-proxy.ts';

/**
 * The PHP SDK (sdk-php/) against the real server on loopback, on the embedded store or PostgreSQL
 * (TEST_STORE=postgres): each case runs sdk-php/tests/integration/scenario.php with Debian's
 * `php` (php-cli, php-curl) and checks what it printed against the server's own state. Also runs
 * the SDK's unit tests (sdk-php/tests/run.php). Skipped, saying so, only when `php` is missing.
 */

const SCENARIO = resolve('sdk-php/tests/integration/scenario.php');
const UNIT_TESTS = resolve('sdk-php/tests/run.php');
const PHP_TIMEOUT_MS = 120_000;
const DAY_MS = 24 * 3_600_000;

const probe = spawnSync('php', ['-r', 'echo PHP_VERSION, " ", extension_loaded("curl") ? "curl" : "no-curl";'], {
  encoding: 'utf8',
});
const phpMissing = probe.error !== undefined ? 'php is not installed (apt-get install -y php-cli php-curl)' : false;

interface PhpRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs php without blocking the event loop: the server under test answers from this process. */
function php(args: string[], env: Record<string, string> = {}): Promise<PhpRun> {
  return new Promise((done) => {
    execFile(
      'php',
      args,
      { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env }, timeout: PHP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** One scenario: its JSON output. The key and secrets go in the environment and are never printed. */
async function scenario<T = Record<string, unknown>>(
  name: string,
  env: { baseUrl: string; apiKey?: string; input?: unknown; secrets?: Record<string, string> },
): Promise<T> {
  const run = await php([SCENARIO, name], {
    TRIBUTARY_BASE_URL: env.baseUrl,
    TRIBUTARY_API_KEY: env.apiKey ?? 'sk_test_unused',
    SCENARIO_INPUT: JSON.stringify(env.input ?? {}),
    ...env.secrets,
  });
  assert.equal(run.code, 0, `php scenario ${name} failed:\n${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout) as T;
}

interface ErrorOutcome {
  ok: boolean;
  class?: string;
  errorCode?: string;
  httpStatus?: number | null;
  param?: string | null;
  issue?: string | null;
  requestId?: string | null;
  idempotencyKey?: string | null;
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

async function paymentsWithReference(t: TestApp, reference: string): Promise<number> {
  const rows = await t.testStore.store.query<{ n: bigint | string }>(
    'SELECT count(*) AS n FROM payments WHERE reference_no = $1',
    [reference],
  );
  return Number(rows[0]?.n);
}

describe(`PHP SDK against the server (${TEST_STORE})`, { skip: phpMissing }, () => {
  const ctx = appForSuite({ settlementDelayMs: null, webhookAllowlist: ['127.0.0.1'] });
  let proxy: DropProxy;

  before(async () => {
    assert.match(probe.stdout, / curl$/, `php has no curl extension (apt-get install -y php-curl): ${probe.stdout}`);
    proxy = await startDropProxy(ctx.t.baseUrl);
  });
  after(() => proxy.close());

  /** A merchant of its own, so lists hold only this test's objects. */
  async function freshKey(): Promise<string> {
    return (await ctx.t.merchants.createMerchant('PHP SDK merchant', TEST_OPERATOR)).sandbox.secret;
  }

  it('the SDK’s own unit tests pass (php sdk-php/tests/run.php)', async () => {
    const run = await php([UNIT_TESTS]);
    assert.equal(run.code, 0, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /\n\d+ passed, 0 failed\n$/);
  });

  it('the generated PHP types come from the document this server serves', async () => {
    const served = await fetch(`${ctx.t.baseUrl}/openapi.json`);
    assert.equal(served.status, 200);
    const text = await served.text();
    const sha = createHash('sha256').update(text).digest('hex');
    const out = await scenario<{ sha256: string; apiVersion: string }>('spec', { baseUrl: ctx.t.baseUrl });
    assert.equal(out.sha256, sha, 'sdk-php/src/Generated is stale: run node --import tsx scripts/gen-sdk-php.ts');
    assert.equal(out.apiVersion, (JSON.parse(text) as { info: { version: string } }).info.version);
  });

  it('retries a create whose answer was lost with the same key and gets the same payment, once', async () => {
    const reference = ref('php-retry');
    const start = proxy.seen.length;
    // Request 0 is a GET (a kept-alive connection); request 1, the create, loses its answer.
    proxy.drop = (index) => index === start + 1;
    const out = await scenario<{
      id: string;
      again: string;
      amount: string;
      money: string;
      status: string;
      instructions: string;
      meta: { statusCode: number; idempotencyKey: string; replayed: boolean; attempts: number; requestId: string };
    }>('create-retry', { baseUrl: proxy.url, apiKey: await freshKey(), input: { reference_no: reference } });
    proxy.drop = () => false;
    const creates = proxy.seen.slice(start).filter((r) => r.method === 'POST');
    assert.equal(creates.length, 2, 'one lost answer, one retry');
    assert.equal(creates[0]?.dropped, true);
    assert.equal(creates[0]?.upstreamStatus, 201, 'the server had created the payment before the answer was lost');
    const keys = creates.map((r) => header(r.headers['idempotency-key']));
    assert.match(keys[0] ?? '', /^tributary-php-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(keys[1], keys[0], 'the retry reuses the key of its logical call');
    assert.equal(out.meta.attempts, 2, 'the SDK retried (not libcurl behind its back)');
    assert.equal(out.meta.replayed, true, 'the server replayed the stored answer');
    assert.equal(out.meta.idempotencyKey, keys[0]);
    assert.equal(out.meta.statusCode, 201);
    assert.match(out.meta.requestId, /^req_/);
    assert.equal(await paymentsWithReference(ctx.t, reference), 1, 'exactly one payment exists');
    assert.equal(out.again, out.id);
    assert.equal(out.status, 'pending');
    assert.equal(out.amount, '150000', 'the exact text the server sent');
    assert.equal(out.money, '150000.00 IDR');
    assert.match(out.instructions, /^PaymentInstructions/);
  });

  it('does not resend an operation without idempotency whose answer was lost (webhook endpoint create)', async () => {
    const key = await freshKey();
    const start = proxy.seen.length;
    proxy.drop = (index) => index === start + 1;
    const out = await scenario<ErrorOutcome>('unkeyed-lost', { baseUrl: proxy.url, apiKey: key });
    proxy.drop = () => false;
    assert.deepEqual(
      { ok: out.ok, class: out.class, errorCode: out.errorCode, httpStatus: out.httpStatus },
      { ok: false, class: 'ApiConnectionException', errorCode: 'connection_error', httpStatus: null },
    );
    const posts = proxy.seen.slice(start).filter((r) => r.method === 'POST');
    assert.equal(posts.length, 1, 'a retry could have made a second endpoint: not sent, by the SDK nor by libcurl');
    const listed = await ctx.t.call('GET', '/webhook_endpoint', { key });
    assert.equal((JSON.parse(listed.body) as { data: unknown[] }).data.length, 1, 'the one endpoint the server made');
  });

  it('throws typed exceptions with the catalogue code, status, param and request id', async () => {
    const key = `php-key-${ref()}`;
    const out = await scenario<Record<string, ErrorOutcome>>('errors', {
      baseUrl: ctx.t.baseUrl,
      apiKey: await freshKey(),
      input: { taken: ref('php-taken'), keyed: ref('php-keyed'), other: ref('php-other'), key },
    });
    const pick = (o: ErrorOutcome | undefined) => ({
      class: o?.class,
      errorCode: o?.errorCode,
      httpStatus: o?.httpStatus,
      param: o?.param,
      issue: o?.issue,
    });
    assert.deepEqual(pick(out['invalid']), {
      class: 'InvalidRequestException',
      errorCode: 'invalid_request',
      httpStatus: 400,
      param: 'reference_no',
      issue: 'invalid_format',
    });
    assert.match(out['invalid']?.requestId ?? '', /^req_/);
    assert.deepEqual(pick(out['notFound']), {
      class: 'NotFoundException',
      errorCode: 'resource_not_found',
      httpStatus: 404,
      param: null,
      issue: null,
    });
    assert.equal(out['conflict']?.class, 'ConflictException');
    assert.equal(out['conflict']?.errorCode, 'reference_no_conflict');
    assert.deepEqual(pick(out['keyReused']), {
      class: 'IdempotencyException',
      errorCode: 'idempotency_key_reused',
      httpStatus: 422,
      param: 'Idempotency-Key',
      issue: 'idempotency_key_reused',
    });
    assert.equal(out['keyReused']?.idempotencyKey, key, 'the error names the key it used');
    assert.equal(out['unprocessable']?.class, 'UnprocessableException');
    assert.equal(out['unprocessable']?.errorCode, 'currency_not_supported');
    assert.deepEqual(
      { class: out['tooPrecise']?.class, issue: out['tooPrecise']?.issue },
      { class: 'InvalidAmountException', issue: 'amount_too_precise' },
      'refused before sending: 10.005 USD is never rounded',
    );
    assert.equal(out['unauthorized']?.class, 'AuthenticationException');
    assert.equal(out['unauthorized']?.httpStatus, 401);
    assert.equal(out['badVersion']?.class, 'InvalidRequestException');
    assert.equal(out['badVersion']?.errorCode, 'invalid_api_version');
  });

  it('a foreach pages through more than one page by the cursor', async () => {
    const key = await freshKey();
    const created: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const res = await ctx.t.call('POST', '/payment/create', { key, body: quickStart() });
      assert.equal(res.statusCode, 201, res.body);
      created.push((JSON.parse(res.body) as { id: string }).id);
      ctx.clock.advance(1_000); // distinct created_at: the list is then the reverse of creation
    }
    const start = proxy.seen.length;
    const out = await scenario<{ firstPage: string[]; hasMore: boolean; nextCursor: string; all: string[]; firstFive: string[] }>(
      'pagination',
      { baseUrl: proxy.url, apiKey: key, input: { limit: 3 } },
    );
    const newestFirst = [...created].reverse();
    assert.deepEqual(out.firstPage, newestFirst.slice(0, 3));
    assert.equal(out.hasMore, true);
    assert.equal(out.nextCursor, newestFirst[2]);
    assert.deepEqual(out.all, newestFirst, 'every payment once, newest first');
    assert.deepEqual(out.firstFive, newestFirst.slice(0, 5));
    const lists = proxy.seen.slice(start).map((r) => r.path);
    // The first page alone, then 3 + 3 + 1 for the foreach, then 2 + 2 + 2 for toArray(5).
    assert.equal(lists.length, 7, lists.join(' '));
    assert.match(lists[2] ?? '', new RegExp(`starting_after=${newestFirst[2]}`));
    assert.match(lists[3] ?? '', new RegExp(`starting_after=${newestFirst[5]}`));
  });

  it('checkouts: create, retrieve, list, select a channel with the client_secret, expire', async () => {
    const key = await freshKey();
    const reference = ref('php-cs');
    const out = await scenario<{
      id: string;
      second: string;
      status: string;
      amount: string;
      money: string;
      secretShown: boolean;
      createKeyed: boolean;
      createStatus: number;
      retrieved: { id: string; secret: string | null; payment: string | null };
      listed: string[];
      wrongSecret: { class: string; errorCode: string };
      selected: {
        id: string;
        status: string;
        paymentIsObject: boolean;
        paymentId: string;
        paymentStatus: string;
        channel: string;
        amount: string;
        money: string;
        instructions: string;
        rawInstructions: boolean;
        payments: string[];
        keyed: boolean;
      };
      expired: { status: string; closed: boolean };
      paymentAfter: string;
    }>('checkouts', { baseUrl: ctx.t.baseUrl, apiKey: key, input: { reference_no: reference, reference_no_2: ref('php-cs') } });
    assert.match(out.id, /^cs_/);
    assert.equal(out.status, 'open');
    assert.equal(out.amount, '150000', 'the exact text the server sent');
    assert.equal(out.money, '150000.00 IDR');
    assert.equal(out.secretShown, true, 'the create answer carries the client_secret');
    assert.equal(out.createKeyed, true, 'create is keyed');
    assert.equal(out.createStatus, 201);
    assert.deepEqual(out.retrieved, { id: out.id, secret: null, payment: null }, 'the secret is shown once');
    // Both made at the same (test clock) instant: every open checkout once, one page each, in either order.
    assert.deepEqual([...out.listed].sort(), [out.id, out.second].sort());
    assert.deepEqual(out.wrongSecret, { class: 'AuthenticationException', errorCode: 'client_secret_invalid' });
    const s = out.selected;
    assert.equal(s.id, out.id);
    assert.equal(s.status, 'open');
    assert.equal(s.paymentIsObject, true, 'select answers with payment expanded');
    assert.match(s.paymentId, /^pay_/);
    assert.equal(s.paymentStatus, 'pending');
    assert.equal(s.channel, 'bank');
    assert.equal(s.amount, '150000');
    assert.equal(s.money, '150000.00 IDR');
    assert.match(s.instructions, /^PaymentInstructions/);
    assert.equal(s.rawInstructions, true);
    assert.deepEqual(s.payments, [s.paymentId]);
    assert.equal(s.keyed, true, 'select is retried as keyed');
    assert.deepEqual(out.expired, { status: 'expired', closed: true });
    assert.equal(out.paymentAfter, 'canceled', 'expiry canceled the pending payment');
    assert.equal(await paymentsWithReference(ctx.t, reference), 1, 'one payment for the one selection');
  });

  it('payment links: create (keyed, replayed by key), a visit, retrieve, list, deactivate', async () => {
    const key = await freshKey();
    const out = await scenario<{
      id: string;
      bounded: string;
      status: string;
      url: string;
      amount: string;
      money: string;
      bounds: (string | null)[];
      createKeyed: boolean;
      createStatus: number;
      replay: { id: string; replayed: boolean };
      tooPrecise: { class: string; issue: string };
      visit: { id: string; amount: string; secretShown: boolean; keyed: boolean };
      outside: { class: string; param: string; issue: string };
      entered: string;
      retrieved: { open: number; remaining: number; collected: string };
      listed: string[];
      deactivated: { status: string; at: boolean };
      inactive: { class: string; errorCode: string };
    }>('payment-links', { baseUrl: ctx.t.baseUrl, apiKey: key, input: { key: ref('php-plink') } });
    assert.match(out.id, /^plink_/);
    assert.equal(out.status, 'active');
    assert.match(out.url, new RegExp(`/pay/${out.id}$`));
    assert.equal(out.amount, '150000', 'the exact text the server sent');
    assert.equal(out.money, '150000.00 IDR');
    assert.deepEqual(out.bounds, [null, '50000', '2000000']);
    assert.equal(out.createKeyed, true, 'create is keyed');
    assert.equal(out.createStatus, 201);
    assert.deepEqual(out.replay, { id: out.bounded, replayed: true }, 'the same key answers the first link');
    assert.deepEqual(out.tooPrecise, { class: 'InvalidAmountException', issue: 'amount_too_precise' }, 'refused before sending');
    assert.match(out.visit.id, /^cs_/);
    assert.equal(out.visit.amount, '150000');
    assert.equal(out.visit.secretShown, true);
    assert.equal(out.visit.keyed, false, 'a visit is not keyed: each call is a new visit');
    assert.deepEqual(out.outside, { class: 'InvalidRequestException', param: 'amount', issue: 'amount_outside_bounds' });
    assert.equal(out.entered, '75000.5');
    assert.deepEqual(out.retrieved, { open: 1, remaining: 1, collected: '0' });
    assert.deepEqual([...out.listed].sort(), [out.id, out.bounded].sort(), 'every link once, one per page');
    assert.deepEqual(out.deactivated, { status: 'inactive', at: true });
    assert.deepEqual(out.inactive, { class: 'ConflictException', errorCode: 'payment_link_inactive' });
    const links = await ctx.t.testStore.store.query('SELECT id FROM payment_links WHERE id IN ($1, $2)', [out.id, out.bounded]);
    assert.equal(links.length, 2, 'two links: the replay made none');
  });

  it('every other resource: refunds, balance, settlements, reconciliation, endpoints, events, callback secret', async () => {
    const key = await freshKey();
    ctx.clock.advance(2 * DAY_MS);
    const from = ctx.clock.now();
    const { id: paid } = await ctx.t.paidBankPayment(key);
    const out = await scenario<Record<string, unknown>>('resources', {
      baseUrl: ctx.t.baseUrl,
      apiKey: key,
      input: {
        paid,
        from: from.toISOString(),
        to: new Date(from.getTime() + DAY_MS).toISOString(),
        reference_no: ref('php-cancel'),
      },
    });
    assert.deepEqual(out['refund'], {
      id: (out['refund'] as { id: string }).id,
      amount: '50000',
      money: '50000.00 IDR',
      keyed: true,
    });
    assert.match((out['refund'] as { id: string }).id, /^ref_/);
    assert.equal(out['refundAgain'], (out['refund'] as { id: string }).id);
    assert.deepEqual(out['balance'], { verification: 'ok', currencies: ['IDR'] });
    assert.equal(out['simulate'], 'settled');
    assert.match(String(out['settlementId']), /^stl_/);
    assert.deepEqual(out['settlements'], [out['settlementId']]);
    assert.equal((out['settlement'] as { gross: string }).gross, '150000');
    assert.deepEqual(out['lines'], [{ payment: paid, result: 'matched' }]);
    assert.equal((out['reconciliation'] as { keyed: boolean }).keyed, true);
    assert.equal(out['csvHasPayment'], true);
    assert.equal(out['exceptions'], 'list');
    assert.ok((out['methods'] as string[]).includes('sandbox_bank'));
    assert.deepEqual(out['cancel'], { status: 'canceled', keyed: true });
    assert.deepEqual(out['endpoint'], { secretShown: true, description: 'orders', listed: [true], rotated: true });
    assert.ok((out['events'] as string[]).includes('payment.pending'), String(out['events']));
    assert.equal(out['eventObject'], 'Payment');
    assert.ok((out['resent'] as number) >= 1);
    assert.ok((out['deliveries'] as number) >= 1);
    assert.equal(out['deleted'], true);
    assert.equal(out['deletedGone'], 'NotFoundException');
    assert.equal(out['callbackSecret'], 'callback_secret');
    assert.equal(out['callbackRotated'], 'callback_secret');
    assert.deepEqual(out['auditLog'], [
      'webhook_endpoint.deleted by api_key',
      'webhook_endpoint.secret_rotated by api_key',
      'webhook_endpoint.updated by api_key',
      'webhook_endpoint.created by api_key',
    ]);
  });
});

describe(`PHP SDK verifies real webhook deliveries (${TEST_STORE})`, { skip: phpMissing }, () => {
  let tb: WebhookTestbed;
  let secret: string;
  let endpointId: string;
  let delivery: ReceivedRequest;
  let paymentId: string;

  before(async () => {
    tb = await createWebhookTestbed();
    const endpoint = await tb.createEndpoint({ url: tb.receiver.url('/hook'), enabled_events: ['payment.pending'] });
    secret = endpoint.secret;
    endpointId = endpoint.id;
    const created = await tb.t.call('POST', '/payment/create', { body: quickStart() });
    assert.equal(created.statusCode, 201, created.body);
    paymentId = (JSON.parse(created.body) as { id: string }).id;
    await tb.dispatcher.drain();
    const received = tb.receiver.requests.filter((r) => r.path === '/hook');
    assert.equal(received.length, 1, 'one delivery of payment.pending');
    delivery = received[0]!;
  });
  after(() => tb.close());

  it('accepts the delivery the server signed and sent, refuses it tampered or late; agrees with standardwebhooks', async () => {
    const nowSeconds = Math.floor(tb.clock.now().getTime() / 1000);
    // A secret rotation: the event resent is signed with the old and the new secret.
    const rotated = await tb.t.call('POST', `/webhook_endpoint/${endpointId}/rotate_secret`, {
      body: { expire_previous_in_seconds: 3600 },
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const newSecret = (JSON.parse(rotated.body) as { secret: string }).secret;
    const eventId = header(delivery.headers['webhook-id'])!;
    const resent = await tb.t.call('POST', `/event/${eventId}/redeliver`, { body: { endpoint_id: endpointId } });
    assert.equal(resent.statusCode, 202, resent.body);
    const before = tb.receiver.requests.length;
    await tb.dispatcher.drain();
    const again = tb.receiver.requests.slice(before).find((r) => header(r.headers['webhook-id']) === eventId);
    assert.ok(again !== undefined, 'the resent delivery arrived');
    assert.equal(String(again.headers['webhook-signature']).split(' ').length, 2);

    // Payloads the reference implementation signs at the current time and ±200 s / ±400 s.
    const wh = new Webhook(secret);
    const body = JSON.stringify({ id: 'msg_interop', type: 'payment.succeeded', data: { object: { id: 'pay_x' } } });
    const offsets = [0, -200, 200, -400, 400];
    const signed = offsets.map((offsetSeconds) => {
      const at = new Date(Date.now() + offsetSeconds * 1000);
      return {
        body,
        headers: {
          'webhook-id': 'msg_interop',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': wh.sign('msg_interop', at, body),
        },
      };
    });
    const out = await scenario<{
      id: string;
      type: string;
      objectClass: string;
      objectId: string;
      amount: string;
      rawAmount: number;
      money: string;
      tampered: ErrorOutcome;
      late: ErrorOutcome;
      interop: boolean[];
      rotation: string[];
      phpSignature: string;
    }>('webhook-verify', {
      baseUrl: tb.t.baseUrl,
      input: {
        body: delivery.body,
        headers: delivery.headers,
        now: nowSeconds,
        signed,
        rotated: { body: again.body, headers: again.headers },
        signAt: nowSeconds,
      },
      secrets: { TRIBUTARY_WEBHOOK_SECRET: secret, TRIBUTARY_WEBHOOK_SECRET_NEW: newSecret },
    });
    assert.equal(out.id, eventId);
    assert.equal(out.type, 'payment.pending');
    assert.equal(out.objectClass, 'Payment');
    assert.equal(out.objectId, paymentId);
    assert.equal(out.amount, '150000', 'the typed Payment: the exact text');
    assert.equal(out.rawAmount, 150000, 'data.object as decoded: an integer stays an int, never a float');
    assert.equal(out.money, '150000.00 IDR');
    assert.deepEqual(
      { class: out.tampered.class, errorCode: out.tampered.errorCode },
      {
        class: 'WebhookVerificationException',
        errorCode: 'webhook_verification_failed',
      },
    );
    assert.equal(out.late.class, 'WebhookVerificationException', 'outside the 300 s window');
    assert.deepEqual(out.interop, [true, true, true, false, false], 'the same verdicts as Standard Webhooks');
    assert.deepEqual(out.rotation, [eventId, eventId], 'the old and the new secret both verify the resent delivery');
    // And the other way round: what PHP signs, the reference implementation accepts.
    const expected = wh.sign('msg_php', new Date(nowSeconds * 1000), delivery.body);
    assert.equal(out.phpSignature, expected);
  });
});
