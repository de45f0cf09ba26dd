import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createExampleBankConnector } from '../../src/connectors/template/template.connector.ts';
import { EXAMPLE_STATUS_MAP, EXAMPLE_WIRE_STATUSES } from '../../src/connectors/template/transformers.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { timestampedSignatureHeader } from '../../src/lib/hmac-signature.ts';
import { createLogger } from '../../src/lib/logger.ts';

/**
 * The connector template (src/connectors/template) is copied to start real connectors, so it must
 * stay correct: this drives it against a fake "Example Bank" and checks the mapping both ways.
 */
describe('connector template (Example Bank)', () => {
  const at = new Date('2026-11-21T10:00:00Z');
  const paymentRequest = (status: string, revision: number) => ({
    id: 'pr_1',
    reference: 'att_1',
    status,
    revision,
    va_number: '7001234567890',
    bank: 'EXB',
    bank_name: 'Example Bank',
    holder: 'Shop',
    amount_minor: '15000000',
    paid_minor: status === 'PAID' ? '15000000' : '0',
    currency: 'IDR',
    expires_at: '2026-11-22T10:00:00.000Z',
    paid_at: status === 'PAID' ? '2026-11-21T11:00:00.000Z' : null,
    decline_reason: null,
    metadata: { tributary_merchant_id: 'mer_1', tributary_environment: 'sandbox', tributary_payment_id: 'pay_1' },
  });
  const sent: { url: string; body: unknown; key: string | undefined }[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    sent.push({ url, body: JSON.parse(String(init.body)), key: (init.headers as Record<string, string>)['idempotency-key'] });
    return new Response(JSON.stringify(paymentRequest('OPEN', 1)), { status: 201 });
  }) as unknown as typeof fetch;
  const connector = createExampleBankConnector({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'k',
    webhookSecrets: ['whsec_example'],
    log: createLogger('silent'),
    http: { fetchImpl, retryBackoffMs: 0 },
  });

  it('maps every wire status', () => {
    assert.deepEqual(Object.keys(EXAMPLE_STATUS_MAP).sort(), [...EXAMPLE_WIRE_STATUSES].sort());
  });

  it('creates a charge with our attempt id as the idempotency key and reads the instructions back', async () => {
    const outcome = await connector.createCharge(
      {
        attemptId: 'att_1',
        paymentId: 'pay_1',
        merchantId: 'mer_1',
        merchantName: 'Shop',
        environment: 'sandbox',
        amountMinor: 15_000_000n,
        currency: 'IDR' as CurrencyCode,
        instrument: 'EXB',
        referenceNo: 'o-1',
        description: null,
        email: null,
        expiresAt: new Date('2026-11-22T10:00:00Z'),
      },
      { signal: AbortSignal.timeout(2_000), now: at },
    );
    assert.deepEqual(outcome, {
      kind: 'issued',
      providerReference: 'pr_1',
      expiresAt: new Date('2026-11-22T10:00:00Z'),
      instructions: {
        type: 'virtual_account',
        bank_code: 'EXB',
        bank_name: 'Example Bank',
        account_number: '7001234567890',
        account_holder_name: 'Shop',
      },
    });
    assert.equal(sent[0]?.url, 'http://127.0.0.1:9/v2/payment_requests');
    assert.equal(sent[0]?.key, 'att_1');
    assert.equal((sent[0]?.body as { amount_minor: string }).amount_minor, '15000000');
  });

  it('verifies and parses a notification', () => {
    const rawBody = JSON.stringify({ event_id: 'ev_9', payment_request: paymentRequest('PAID', 2) });
    const headers = { 'example-signature': timestampedSignatureHeader('whsec_example', rawBody, at) };
    assert.deepEqual(connector.verifyNotification({ rawBody, headers }, at), { ok: true });
    const parsed = connector.parseNotification(rawBody);
    assert.ok(parsed.ok);
    if (!parsed.ok) return;
    assert.equal(parsed.eventId, 'ev_9');
    assert.equal(parsed.snapshot.status, 'paid');
    assert.equal(parsed.snapshot.sequence, 2);
    assert.equal(parsed.snapshot.amountPaidMinor, 15_000_000n);
    assert.deepEqual(parsed.snapshot.owner, { merchantId: 'mer_1', environment: 'sandbox', paymentId: 'pay_1' });
  });
});
