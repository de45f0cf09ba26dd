import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createProviderHttp } from '../../src/connectors/core/provider-http.ts';
import { timestampedSignatureHeader, verifyTimestampedSignatureHeader } from '../../src/lib/hmac-signature.ts';
import { createLogger, redactSecrets } from '../../src/lib/logger.ts';
import { instructionTtlMs, parseMerchantSettings } from '../../src/modules/merchants/merchant-settings.ts';
import { classifyHealth, ConnectorHealthTracker } from '../../src/modules/routing/connector-health.ts';
import { sandboxBankCapabilities } from '../../src/connectors/sandbox-bank/sandbox-bank.connector.ts';
import { nextSyncGapMs } from '../../src/jobs/status-sync.ts';

describe('timestamped HMAC signatures', () => {
  const at = new Date('2026-11-21T10:00:00Z');
  const body = '{"id":"evt_1"}';
  it('verifies its own signature and accepts any of several secrets (rotation)', () => {
    const header = timestampedSignatureHeader('secret-b', body, at);
    assert.match(header, /^t=1795255200,v1=[0-9a-f]{64}$/);
    assert.deepEqual(verifyTimestampedSignatureHeader(['secret-a', 'secret-b'], header, body, at), { ok: true });
  });
  it('refuses a changed body, a wrong secret, a malformed header, and an old or future time', () => {
    const header = timestampedSignatureHeader('s', body, at);
    assert.deepEqual(verifyTimestampedSignatureHeader(['s'], header, `${body} `, at), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyTimestampedSignatureHeader(['x'], header, body, at), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyTimestampedSignatureHeader(['s'], 'v1=abc', body, at), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyTimestampedSignatureHeader(['s'], undefined, body, at), { ok: false, reason: 'missing_signature' });
    assert.deepEqual(verifyTimestampedSignatureHeader(['s'], header, body, new Date(at.getTime() + 301_000)), {
      ok: false,
      reason: 'stale_timestamp',
    });
    assert.deepEqual(verifyTimestampedSignatureHeader(['s'], header, body, new Date(at.getTime() - 301_000)), {
      ok: false,
      reason: 'stale_timestamp',
    });
    assert.deepEqual(verifyTimestampedSignatureHeader(['s'], header, body, new Date(at.getTime() + 299_000)), { ok: true });
    // The time is inside the MAC: moving it breaks the signature even inside the window.
    const moved = header.replace(/^t=(\d+)/, (_m, t: string) => `t=${Number(t) + 1}`);
    assert.deepEqual(verifyTimestampedSignatureHeader(['s'], moved, body, at), { ok: false, reason: 'bad_signature' });
  });
});

describe('redactSecrets', () => {
  it('masks sandbox provider API keys and signing secrets', () => {
    assert.equal(redactSecrets('auth sbx_sk_0123abcd and sbx_whsec_99ff'), 'auth [redacted] and [redacted]');
  });
});

describe('merchant settings', () => {
  it('reads valid entries and ignores invalid ones', () => {
    const s = parseMerchantSettings({
      late_payment_policy: 'accept',
      instruction_ttl_seconds: { bank: 3600, ewallet: -5, wire: 10 },
      routing: { channel_order: ['ewallet', 'fax'], excluded_connectors: 'all', instruments: { sandbox_bank: 'BNI', x: 3 } },
    });
    assert.equal(s.latePaymentPolicy, 'accept');
    assert.deepEqual(s.instructionTtlMs, { bank: 3_600_000 });
    assert.deepEqual(s.routing, { channelOrder: ['ewallet'], instruments: { sandbox_bank: 'BNI' } });
    assert.equal(parseMerchantSettings({ late_payment_policy: 'keep' }).latePaymentPolicy, 'refund');
    assert.equal(parseMerchantSettings(null).latePaymentPolicy, 'refund');
  });
  it('clamps the instruction expiry to the connector bounds', () => {
    const ttl = (seconds: number) =>
      instructionTtlMs(parseMerchantSettings({ instruction_ttl_seconds: { bank: seconds } }), sandboxBankCapabilities);
    assert.equal(ttl(3600), 3_600_000);
    assert.equal(ttl(1), sandboxBankCapabilities.instructionTtl.minMs);
    assert.equal(ttl(10 ** 9), sandboxBankCapabilities.instructionTtl.maxMs);
    assert.equal(
      instructionTtlMs(parseMerchantSettings({}), sandboxBankCapabilities),
      sandboxBankCapabilities.instructionTtl.defaultMs,
    );
  });
});

describe('connector health', () => {
  const policy = { downAfter: 3, coolDownMs: 60_000 };
  it('is down after consecutive failures until the cool-down, and healthy after a success', () => {
    assert.deepEqual(classifyHealth({ consecutiveFailures: 0, lastFailureAtMs: null }, 0, policy), {
      state: 'healthy',
      consecutiveFailures: 0,
    });
    assert.equal(classifyHealth({ consecutiveFailures: 2, lastFailureAtMs: 0 }, 1, policy).state, 'degraded');
    assert.equal(classifyHealth({ consecutiveFailures: 3, lastFailureAtMs: 0 }, 59_999, policy).state, 'down');
    assert.equal(classifyHealth({ consecutiveFailures: 3, lastFailureAtMs: 0 }, 60_000, policy).state, 'degraded');
    const tracker = new ConnectorHealthTracker(policy);
    const at = new Date(0);
    for (let i = 0; i < 3; i += 1) tracker.record('x', false, at);
    assert.equal(tracker.snapshot(at)['x']?.state, 'down');
    tracker.record('x', true, at);
    assert.equal(tracker.snapshot(at)['x']?.state, 'healthy');
  });
});

describe('status sync schedule', () => {
  it('doubles the gap and caps it at six hours', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((n) => nextSyncGapMs(300_000, n)),
      [300_000, 600_000, 1_200_000, 2_400_000],
    );
    assert.equal(nextSyncGapMs(300_000, 50), 6 * 3_600_000);
  });
});

describe('provider HTTP client', () => {
  type Call = { method: string; headers: Record<string, string> };
  const fakeFetch = (answers: (() => Response | Promise<Response>)[], calls: Call[]) =>
    (async (_url: string, init: RequestInit) => {
      calls.push({ method: String(init.method), headers: init.headers as Record<string, string> });
      const next = answers.shift();
      if (next === undefined) throw new Error('no more answers');
      return next();
    }) as unknown as typeof fetch;
  const json = (status: number, body: unknown) => () => new Response(JSON.stringify(body), { status });
  const make = (answers: (() => Response | Promise<Response>)[], calls: Call[]) =>
    createProviderHttp({
      connector: 'x',
      baseUrl: () => 'http://127.0.0.1:1',
      apiKey: 'sbx_sk_secret',
      log: createLogger('silent'),
      maxRetries: 2,
      retryBackoffMs: 0,
      fetchImpl: fakeFetch(answers, calls),
    });
  const signal = () => AbortSignal.timeout(5_000);

  it('retries a keyed POST on 503 and on transport errors with the same key, boundedly', async () => {
    const calls: Call[] = [];
    const http = make([json(503, {}), () => Promise.reject(new Error('ECONNRESET')), json(201, { id: 'c1' })], calls);
    const res = await http.send({ method: 'POST', path: '/c', body: {}, idempotencyKey: 'att_1' }, signal());
    assert.deepEqual(res, { kind: 'response', status: 201, body: { id: 'c1' } });
    assert.deepEqual(
      calls.map((c) => c.headers['idempotency-key']),
      ['att_1', 'att_1', 'att_1'],
    );
    const bounded: Call[] = [];
    const down = await make([json(503, {}), json(503, {}), json(503, {}), json(201, {})], bounded).send(
      { method: 'POST', path: '/c', body: {}, idempotencyKey: 'att_2' },
      signal(),
    );
    assert.equal(down.kind, 'unknown');
    assert.equal(bounded.length, 3, 'one try and two retries, no more');
  });

  it('never retries a POST without an idempotency key, nor a definite 4xx answer', async () => {
    const unkeyed: Call[] = [];
    assert.equal(
      (await make([json(503, {}), json(201, {})], unkeyed).send({ method: 'POST', path: '/c' }, signal())).kind,
      'unknown',
    );
    assert.equal(unkeyed.length, 1);
    const refused: Call[] = [];
    const res = await make([json(400, { error_code: 'DECLINED' }), json(201, {})], refused).send(
      { method: 'POST', path: '/c', idempotencyKey: 'k' },
      signal(),
    );
    assert.deepEqual(res, { kind: 'response', status: 400, body: { error_code: 'DECLINED' } });
    assert.equal(refused.length, 1);
  });

  it('keeps secrets out of the error message it returns', async () => {
    const echo = json(500, { echo: 'Bearer sbx_sk_secret' });
    const res = await make([echo, echo, echo], []).send({ method: 'GET', path: '/c' }, signal());
    assert.equal(res.kind, 'unknown');
    if (res.kind !== 'unknown') return;
    assert.match(res.message, /^status 500: .*\[redacted\]/);
    assert.equal(res.message.includes('sbx_sk_secret'), false);
  });
});

describe('provider HTTP client over the real transport (node:http, loopback listener)', () => {
  it('sends body and headers, refuses a redirect without following it, treats a cut-off or oversized body as no answer, and cuts a hung answer at the per-try deadline', async () => {
    const seen: { url: string; body: string; auth: string | undefined; key: string | undefined }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', body, auth: req.headers.authorization, key: req.headers['idempotency-key'] as string });
        if (req.url === '/ok') res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"ch_1"}');
        else if (req.url === '/moved') res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
        else if (req.url === '/huge')
          res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(2 * 1024 * 1024)}"`);
        else if (req.url === '/cut') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"id":', () => res.destroy());
        }
        // '/hang': never answers
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const http = createProviderHttp({
        connector: 'x',
        baseUrl: () => `http://127.0.0.1:${port}`,
        apiKey: 'sbx_sk_secret',
        log: createLogger('silent'),
        maxRetries: 0,
        perTryTimeoutMs: 200,
      });
      const ok = await http.send(
        { method: 'POST', path: '/ok', body: { amount: 1 }, idempotencyKey: 'att_1' },
        AbortSignal.timeout(5_000),
      );
      assert.deepEqual(ok, { kind: 'response', status: 201, body: { id: 'ch_1' } });
      assert.deepEqual(seen[0], { url: '/ok', body: '{"amount":1}', auth: 'Bearer sbx_sk_secret', key: 'att_1' });

      const moved = await http.send({ method: 'GET', path: '/moved' }, AbortSignal.timeout(5_000));
      assert.equal(moved.kind, 'unknown');
      assert.equal(moved.kind === 'unknown' && moved.code, 'network_error');
      assert.equal(seen.filter((s) => s.url === '/elsewhere').length, 0, 'the redirect was not followed');

      const cut = await http.send({ method: 'GET', path: '/cut' }, AbortSignal.timeout(5_000));
      assert.equal(cut.kind === 'unknown' && cut.code, 'network_error', 'a body cut off mid-way is no answer');

      const huge = await http.send({ method: 'GET', path: '/huge' }, AbortSignal.timeout(5_000));
      assert.equal(huge.kind === 'unknown' && huge.code, 'network_error', 'a body over 1 MiB is refused, not held');

      const started = Date.now();
      const hung = await http.send({ method: 'GET', path: '/hang' }, AbortSignal.timeout(5_000));
      assert.equal(hung.kind === 'unknown' && hung.code, 'timeout');
      assert.ok(Date.now() - started < 2_000, 'cut by the 200 ms per-try deadline, not the caller’s 5 s');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
