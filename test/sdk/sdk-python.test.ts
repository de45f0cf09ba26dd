import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { ERROR_CATALOGUE } from '../../src/lib/error-catalogue.ts';
import { TEST_OPERATOR, appForSuite, ref, type TestApp } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';
import { createWebhookTestbed, type WebhookTestbed } from '../harness/webhook-testbed.ts';
import { type DropProxy, startDropProxy } from './drop-proxy.ts';

/**
 * The Python SDK (sdk-python/, standard library only) against the real server on loopback, on the
 * embedded store or PostgreSQL (TEST_STORE=postgres): the machine's Python 3 runs the scenarios of
 * sdk-python/integration/scenarios.py with the server's address and a key in its environment, and
 * this file checks what they saw against the server's own records. Also runs the SDK's unit tests
 * and checks its generated types against the document this server serves.
 */

const PYTHON = process.env['PYTHON'] ?? 'python3';
const SDK_DIR = resolve('sdk-python');
const DAY_MS = 24 * 3_600_000;
const run = promisify(execFile);

/** Runs one scenario (asynchronously: the server answering it runs in this process) and parses its line. */
async function scenario<T>(name: string, env: Record<string, string>): Promise<T> {
  try {
    const { stdout } = await run(PYTHON, [join(SDK_DIR, 'integration', 'scenarios.py'), name], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
    });
    const lines = stdout.trim().split('\n');
    return JSON.parse(lines[lines.length - 1] ?? '') as T;
  } catch (e) {
    const failed = e as { stderr?: string; stdout?: string; message: string };
    assert.fail(`python scenario ${name} failed: ${failed.message}\n${failed.stderr ?? ''}${failed.stdout ?? ''}`);
  }
}

async function paymentsWithReference(t: TestApp, reference: string): Promise<number> {
  const rows = await t.testStore.store.query<{ n: bigint | string }>(
    'SELECT count(*) AS n FROM payments WHERE reference_no = $1',
    [reference],
  );
  return Number(rows[0]?.n);
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

describe(`Python SDK against the server (${TEST_STORE})`, () => {
  const ctx = appForSuite({ settlementDelayMs: null, webhookAllowlist: ['127.0.0.1'] });

  /** A merchant of its own, so lists hold only this test's objects. */
  async function freshMerchant(): Promise<{ env: Record<string, string>; key: string }> {
    const m = await ctx.t.merchants.createMerchant('Python SDK merchant', TEST_OPERATOR);
    const key = m.sandbox.secret;
    return { key, env: { TRIBUTARY_BASE_URL: ctx.t.baseUrl, TRIBUTARY_API_KEY: key } };
  }

  it('its unit tests pass (python3 -m unittest discover -s tests)', async () => {
    const result = await run(PYTHON, ['-m', 'unittest', 'discover', '-s', 'tests'], {
      cwd: SDK_DIR,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    }).catch((e: { stderr?: string; message: string }) => assert.fail(`${e.message}\n${e.stderr ?? ''}`));
    assert.match(result.stderr, /\nOK\b/, result.stderr);
  });

  it('the generated types come from the document this server serves', async () => {
    const served = await fetch(`${ctx.t.baseUrl}/openapi.json`);
    assert.equal(served.status, 200);
    const sha = createHash('sha256')
      .update(await served.text())
      .digest('hex');
    const generated = readFileSync(join(SDK_DIR, 'src', 'tributary', '_generated.py'), 'utf8');
    assert.match(
      generated,
      new RegExp(`OPENAPI_SHA256: Final = "${sha}"`),
      '_generated.py is stale: run scripts/gen-sdk-python.ts',
    );
    for (const [code, e] of Object.entries(ERROR_CATALOGUE)) assert.ok(generated.includes(`"${code}": ${e.status},`), code);
  });

  it('retries a create whose answer was lost with the same key: one payment, sync and async', async () => {
    const proxy: DropProxy = await startDropProxy(ctx.t.baseUrl);
    try {
      // Lose the first answer of every keyed request: the server has done the work each time.
      const lost = new Set<string>();
      proxy.drop = (_, req) => {
        const key = header(req.headers['idempotency-key']);
        if (key === undefined || lost.has(key)) return false;
        lost.add(key);
        return true;
      };
      const reference = ref('py-retry');
      const referenceAsync = ref('py-retry-async');
      const { env } = await freshMerchant();
      const out = await scenario<{
        sync: { id: string; attempts: number; replayed: boolean; idempotency_key: string };
        async: { id: string; attempts: number; replayed: boolean; idempotency_key: string };
        cancel: { id: string; attempts: number; replayed: boolean; idempotency_key: string };
      }>('retry_create', { ...env, TRIBUTARY_BASE_URL: proxy.url, REFERENCE_NO: reference, REFERENCE_NO_ASYNC: referenceAsync });

      for (const [call, reference_no] of [
        [out.sync, reference],
        [out.async, referenceAsync],
      ] as const) {
        const tries = proxy.seen.filter((r) => header(r.headers['idempotency-key']) === call.idempotency_key);
        assert.equal(tries.length, 2, 'one lost answer, one retry');
        assert.equal(tries[0]?.dropped, true);
        assert.equal(tries[0]?.upstreamStatus, 201, 'the server had created the payment before the answer was lost');
        assert.match(call.idempotency_key, /^tributary-python-[0-9a-f-]{36}$/);
        assert.equal(call.attempts, 2);
        assert.equal(call.replayed, true, 'the server replayed the stored answer');
        assert.equal(await paymentsWithReference(ctx.t, reference_no), 1, 'exactly one payment exists');
      }
      assert.notEqual(out.sync.idempotency_key, out.async.idempotency_key);
      assert.equal(out.cancel.id, out.sync.id);
      assert.equal(out.cancel.attempts, 2, 'the cancel is keyed: retried after its lost answer too');
    } finally {
      await proxy.close();
    }
  });

  it('raises typed errors carrying code, http_status, param, request_id and the idempotency key', async () => {
    const { env } = await freshMerchant();
    type Seen = {
      class: string;
      bases: string[];
      code: string;
      http_status: number | null;
      param: string | null;
      request_id: string | null;
      idempotency_key: string | null;
      issue: string | null;
    };
    const seen = await scenario<Record<string, Seen>>('errors', env);
    const expect = (name: string, cls: string, code: string, status: number | null, param: string | null = null) => {
      const e = seen[name];
      assert.ok(e !== undefined, name);
      assert.deepEqual([e.class, e.code, e.http_status, e.param], [cls, code, status, param], name);
      assert.ok(e.bases.includes('TributaryError'), `${name} is a TributaryError`);
      if (status !== null) assert.match(e.request_id ?? '', /^req_/, `${name} has the request id`);
    };
    expect('invalid_email', 'InvalidRequestError', 'invalid_request', 400, 'email');
    expect('too_precise_local', 'InvalidRequestError', 'invalid_request', null, 'amount');
    assert.equal(seen['too_precise_local']?.issue, 'amount_too_precise', 'refused before sending, as the server would');
    expect('not_found', 'NotFoundError', 'resource_not_found', 404);
    expect('conflict', 'ConflictError', 'reference_no_conflict', 409, 'reference_no');
    expect('key_reused', 'IdempotencyError', 'idempotency_key_reused', 422, 'Idempotency-Key');
    assert.match(seen['key_reused']?.idempotency_key ?? '', /^py-reused-/);
    expect('currency', 'UnprocessableError', 'currency_not_supported', 422, 'currency');
    expect('unauthorized', 'AuthenticationError', 'unauthorized', 401);
    expect('api_version', 'InvalidRequestError', 'invalid_api_version', 400);
    expect('cancel_twice', 'ConflictError', 'payment_state_conflict', 409);
    assert.match(seen['conflict']?.idempotency_key ?? '', /^tributary-python-/, 'a failed keyed call names its key');
  });

  it('pages through more than one page by the cursor, sync and async', async () => {
    const { key, env } = await freshMerchant();
    const created: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const res = await ctx.t.call('POST', '/payment/create', {
        key,
        body: { amount: 150000.0, currency: 'IDR', reference_no: ref('py-page') },
      });
      assert.equal(res.statusCode, 201, res.body);
      created.push((JSON.parse(res.body) as { id: string }).id);
      ctx.clock.advance(1_000); // distinct created_at: the list order is then the reverse of creation
    }
    const newestFirst = [...created].reverse();
    const out = await scenario<{
      first_page: { ids: string[]; has_more: boolean; next_cursor: string };
      sync_ids: string[];
      sync_paths: string[];
      to_list: string[];
      amounts: string[];
      async: { first_page: string[]; ids: string[]; paths: string[]; events: number };
    }>('pagination', env);
    assert.deepEqual(out.first_page, { ids: newestFirst.slice(0, 3), has_more: true, next_cursor: newestFirst[2] });
    assert.deepEqual(out.sync_ids, newestFirst, 'every payment once, newest first');
    assert.deepEqual(out.sync_paths, [
      '/payment?limit=3',
      `/payment?limit=3&starting_after=${newestFirst[2]}`,
      `/payment?limit=3&starting_after=${newestFirst[5]}`,
    ]);
    assert.deepEqual(out.to_list, newestFirst.slice(0, 5));
    assert.deepEqual(out.amounts, ['150000.00'], 'amounts are Decimals with the currency’s minor units');
    assert.deepEqual(out.async.first_page, newestFirst.slice(0, 3));
    assert.deepEqual(out.async.ids, newestFirst);
    const asyncPages = out.async.paths.filter((p) => p.startsWith('/payment?'));
    assert.equal(asyncPages.length, 4, `1 awaited page, then 3 pages of 3, 3 and 1: ${asyncPages.join(' ')}`);
    assert.ok(out.async.events >= 7, 'events page too');
  });

  it('checkouts: create, retrieve, list, select a channel with the client_secret, expire (sync and async)', async () => {
    const { env } = await freshMerchant();
    const reference = ref('py-cs');
    type Meta = { status: number; attempts: number; replayed: boolean; idempotency_key: string | null; request_id: string };
    const out = await scenario<{
      id: string;
      second: string;
      status: string;
      amount: string;
      amount_is_decimal: boolean;
      secret_shown: boolean;
      create: Meta;
      retrieved: { id: string; has_secret: boolean };
      listed: string[];
      wrong_secret: { class: string; code: string };
      selected: {
        id: string;
        status: string;
        payment_id: string;
        payment_status: string;
        channel: string;
        amount: string;
        amount_is_decimal: boolean;
        instructions: boolean;
        payments: string[];
        meta: Meta;
      };
      async: { payment: string; listed: string[]; expired: string };
      expired: { status: string; closed: boolean };
      payment_after: string;
    }>('checkouts', { ...env, REFERENCE_NO: reference, REFERENCE_NO_2: ref('py-cs') });
    assert.match(out.id, /^cs_/);
    assert.equal(out.status, 'open');
    assert.equal(out.amount, '150000.00', 'a Decimal with the currency’s minor units');
    assert.equal(out.amount_is_decimal, true);
    assert.equal(out.secret_shown, true, 'the create answer carries the client_secret');
    assert.equal(out.create.status, 201);
    assert.match(out.create.idempotency_key ?? '', /^tributary-python-/, 'create is keyed');
    assert.deepEqual(out.retrieved, { id: out.id, has_secret: false }, 'the secret is shown once');
    // Both made at the same (test clock) instant: every open checkout once, one page each, in either order.
    assert.deepEqual([...out.listed].sort(), [out.id, out.second].sort());
    assert.deepEqual(out.wrong_secret, { class: 'AuthenticationError', code: 'client_secret_invalid' });
    const s = out.selected;
    assert.equal(s.id, out.id);
    assert.equal(s.status, 'open');
    assert.match(s.payment_id, /^pay_/);
    assert.equal(s.payment_status, 'pending');
    assert.equal(s.channel, 'bank');
    assert.equal(s.amount, '150000.00');
    assert.equal(s.amount_is_decimal, true);
    assert.equal(s.instructions, true, 'select answers with payment expanded, instructions included');
    assert.deepEqual(s.payments, [s.payment_id]);
    assert.equal(s.meta.status, 200);
    assert.match(s.meta.idempotency_key ?? '', /^tributary-python-/, 'select is retried as keyed');
    assert.deepEqual(out.async, { payment: s.payment_id, listed: [out.id, out.second].sort(), expired: 'expired' });
    assert.deepEqual(out.expired, { status: 'expired', closed: true });
    assert.equal(out.payment_after, 'canceled', 'expiry canceled the pending payment');
    assert.equal(await paymentsWithReference(ctx.t, reference), 1, 'one payment for the one selection');
  });

  it('payment links: create (keyed, replayed by key), a visit, retrieve, list, deactivate (sync and async)', async () => {
    const { env } = await freshMerchant();
    type Meta = { status: number; attempts: number; replayed: boolean; idempotency_key: string | null; request_id: string };
    const out = await scenario<{
      id: string;
      bounded: string;
      status: string;
      url: string;
      amount: string;
      amount_is_decimal: boolean;
      bounds: string[];
      create: Meta;
      replay: { id: string; replayed: boolean };
      float_refused: boolean;
      visit: { id: string; amount: string; meta: Meta };
      outside: { class: string; param: string; issue: string };
      entered: string;
      retrieved: { open: number; remaining: number; collected: string };
      listed: string[];
      async: { open: number; listed: string[]; deactivated: string };
      deactivated: { status: string; at: boolean };
      inactive: { class: string; code: string };
    }>('payment_links', { ...env, LINK_KEY: ref('py-plink') });
    assert.match(out.id, /^plink_/);
    assert.equal(out.status, 'active');
    assert.match(out.url, new RegExp(`/pay/${out.id}$`));
    assert.equal(out.amount, '150000.00', 'a Decimal with the currency’s minor units');
    assert.equal(out.amount_is_decimal, true);
    assert.deepEqual(out.bounds, ['50000.00', '2000000.00']);
    assert.equal(out.create.status, 201);
    assert.match(out.create.idempotency_key ?? '', /^tributary-python-/, 'create is keyed');
    assert.deepEqual(out.replay, { id: out.bounded, replayed: true }, 'the same key answers the first link');
    assert.equal(out.float_refused, true, 'a float amount is refused before sending');
    assert.match(out.visit.id, /^cs_/);
    assert.equal(out.visit.amount, '150000.00');
    assert.equal(out.visit.meta.status, 201);
    assert.equal(out.visit.meta.idempotency_key, null, 'a visit is not keyed: each call is a new visit');
    assert.deepEqual(out.outside, { class: 'InvalidRequestError', param: 'amount', issue: 'amount_outside_bounds' });
    assert.equal(out.entered, '75000.50');
    assert.deepEqual(out.retrieved, { open: 1, remaining: 1, collected: '0.00' });
    const both = [out.id, out.bounded].sort();
    assert.deepEqual(out.listed, both, 'every link once, one per page');
    assert.deepEqual(out.async, { open: 1, listed: both, deactivated: 'inactive' });
    assert.deepEqual(out.deactivated, { status: 'inactive', at: true });
    assert.deepEqual(out.inactive, { class: 'ConflictError', code: 'payment_link_inactive' });
    const links = await ctx.t.testStore.store.query('SELECT id FROM payment_links WHERE id IN ($1, $2)', [out.id, out.bounded]);
    assert.equal(links.length, 2, 'two links: the replay made none');
  });

  it('reaches every resource: payment methods, sandbox, settlements, reconciliation, refunds, balance, endpoints, events, callback secret', async () => {
    const { key, env } = await freshMerchant();
    ctx.clock.advance(2 * DAY_MS);
    const from = ctx.clock.now();
    const { id } = await ctx.t.paidBankPayment(key);
    const out = await scenario<Record<string, Record<string, unknown>>>('resources', {
      ...env,
      PAID_PAYMENT_ID: id,
      FROM: from.toISOString(),
      TO: new Date(from.getTime() + DAY_MS).toISOString(),
    });
    assert.deepEqual(out['payment_methods'], ['bank', 'counter', 'ewallet']);
    assert.equal(out['simulate']?.['outcome'], 'settled');
    assert.equal(out['payment']?.['status'], 'succeeded');
    assert.equal(out['payment']?.['fee_is_decimal'], true);
    assert.deepEqual(out['settlements']?.['ids'], [out['payment']?.['settlement_id']], 'the payment’s settlement, the only one');
    assert.equal(out['settlements']?.['gross'], '150000.00');
    const rec = out['reconciliation']!;
    assert.equal(rec['keyed'], true);
    assert.equal(rec['retrieved'], true);
    assert.deepEqual(rec['lines'], [{ payment_id: id, result: 'matched' }]);
    assert.equal(rec['csv_has_payment'], true);
    assert.equal(out['refund']?.['amount'], '50000.00');
    assert.equal(out['refund']?.['retrieved'], true);
    const refunds = await ctx.t.testStore.store.query<{ id: string }>('SELECT id FROM refunds WHERE payment_id = $1', [id]);
    assert.deepEqual(
      refunds.map((r) => r.id),
      [out['refund']?.['id']],
    );
    assert.equal(out['balance']?.['verification'], 'ok');
    assert.deepEqual(out['webhook_endpoints'], {
      secret_shown_once: true,
      description: 'orders',
      rotated: true,
      listed: true,
      deleted: true,
    });
    assert.deepEqual(out['events'], { types: ['payment.pending'], retrieved: true, resent: 'list', deliveries: true });
    assert.deepEqual(out['callback_secret'], { object: 'callback_secret', rotated: 'callback_secret' });
    assert.deepEqual(out['audit_log'], {
      endpoint: [
        'webhook_endpoint.deleted',
        'webhook_endpoint.secret_rotated',
        'webhook_endpoint.updated',
        'webhook_endpoint.created',
      ],
      rotation_by_key: ['api_key'],
      object: 'audit_entry',
    });
    assert.deepEqual(out['async'], { retrieved: true, canceled: 'canceled' });
  });
});

describe(`Python SDK webhooks.verify on a real delivery (${TEST_STORE})`, () => {
  let tb: WebhookTestbed;
  let dir: string;

  before(async () => {
    tb = await createWebhookTestbed();
    dir = mkdtempSync(join(tmpdir(), 'tributary-sdk-python-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await tb.close();
  });

  it('verifies what the server signed and sent, refuses tampering and stale timestamps, agrees with standardwebhooks', async () => {
    const endpoint = await tb.createEndpoint({ url: tb.receiver.url('/py-hook'), enabled_events: ['payment.pending'] });
    const created = await tb.t.call('POST', '/payment/create', {
      body: { amount: 150000.0, currency: 'IDR', reference_no: ref('py-wh') },
    });
    assert.equal(created.statusCode, 201, created.body);
    const paymentId = (JSON.parse(created.body) as { id: string }).id;
    await tb.dispatcher.drain();
    const received = tb.receiver.requests.filter((r) => r.path === '/py-hook');
    assert.equal(received.length, 1, 'one delivery of payment.pending');
    const delivery = received[0]!;

    // Signatures made by the Standard Webhooks reference package, for Python to verify and re-make.
    const wh = new Webhook(endpoint.secret);
    const nowSeconds = Math.floor(tb.clock.now().getTime() / 1000);
    const samples = ['{"test": 2432232314}', JSON.stringify({ id: 'evt_x', amount: 10.1, note: 'é ü 支払い' }), ''].map(
      (body, i) => {
        const timestamp = nowSeconds - i * 100;
        const id = `msg_py_${i}`;
        return { id, timestamp, body, secret: endpoint.secret, signature: wh.sign(id, new Date(timestamp * 1000), body) };
      },
    );
    const fixture = join(dir, 'delivery.json');
    writeFileSync(
      fixture,
      JSON.stringify({ delivery: { body: delivery.body, headers: delivery.headers }, now: nowSeconds, samples }),
    );
    const out = await scenario<{
      id: string;
      type: string;
      object_id: string;
      amount: string;
      amount_is_decimal: boolean;
      verdicts: Record<string, boolean>;
      library: { ours_sign: string; verified: boolean }[];
    }>('webhook', {
      TRIBUTARY_BASE_URL: tb.t.baseUrl,
      TRIBUTARY_API_KEY: tb.t.a.sandboxKey,
      WEBHOOK_SECRET: endpoint.secret,
      WEBHOOK_FIXTURE: fixture,
    });
    assert.equal(out.id, header(delivery.headers['webhook-id']));
    assert.equal(out.type, 'payment.pending');
    assert.equal(out.object_id, paymentId);
    assert.equal(out.amount, '150000.00');
    assert.equal(out.amount_is_decimal, true);
    assert.deepEqual(out.verdicts, {
      tampered: true,
      other_secret: true,
      at_plus_300: true,
      at_plus_301: true,
      at_minus_301: true,
    });
    assert.deepEqual(
      out.library,
      samples.map((s) => ({ ours_sign: s.signature, verified: s.body !== '' })),
      'same signatures as standardwebhooks; an empty body is no event',
    );
  });
});
