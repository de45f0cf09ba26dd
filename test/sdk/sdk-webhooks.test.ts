import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { Tributary, verifyWebhook, WebhookVerificationError, webhooks } from '../../sdk/src/index.ts';
import { ref } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';
import { createWebhookTestbed, type WebhookTestbed } from '../harness/webhook-testbed.ts';
import type { ReceivedRequest } from '../harness/webhook-receiver.ts';

/**
 * `webhooks.verify` on real deliveries: the server signs and sends them (its dispatcher) to a
 * loopback receiver that keeps the exact bytes; the SDK verifies them, and the standardwebhooks
 * package is the second opinion on every verdict.
 */

const refused = (e: unknown) => e instanceof WebhookVerificationError && e.code === 'webhook_verification_failed';

describe(`SDK webhooks.verify on real deliveries (${TEST_STORE})`, () => {
  let tb: WebhookTestbed;
  let client: Tributary;
  let secret: string;
  let endpointId: string;
  let delivery: ReceivedRequest;
  let paymentId: string;

  before(async () => {
    tb = await createWebhookTestbed();
    client = new Tributary(tb.t.a.sandboxKey, { baseUrl: tb.t.baseUrl });
    const endpoint = await client.webhookEndpoints.create({ url: tb.receiver.url('/hook'), enabled_events: ['payment.pending'] });
    secret = endpoint.secret;
    endpointId = endpoint.id;
    const payment = await client.payments.create({ amount: 150000, currency: 'IDR', reference_no: ref('sdk-wh') });
    paymentId = payment.id;
    await tb.dispatcher.drain();
    const received = tb.receiver.requests.filter((r) => r.path === '/hook');
    assert.equal(received.length, 1, 'one delivery of payment.pending');
    delivery = received[0]!;
  });
  after(() => tb.close());

  it('accepts a real delivery and returns its event, as standardwebhooks does', async () => {
    const event = client.webhooks.verify(delivery.body, delivery.headers, secret, { now: tb.clock.now() });
    assert.equal(event.type, 'payment.pending');
    if (event.type !== 'payment.pending') return;
    assert.equal(event.data.object.id, paymentId, 'typed: data.object is a Payment');
    assert.equal(event.data.object.status, 'pending');
    const library = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    assert.deepEqual(event, library);
    // The same event as the API serves it.
    const served = await client.events.retrieve(event.id);
    assert.deepEqual({ ...served }, event);
    // Bytes and a fetch Headers object work too.
    const headers = new Headers(delivery.headers as Record<string, string>);
    assert.deepEqual(webhooks.verify(Buffer.from(delivery.body), headers, secret, { now: tb.clock.now() }), event);
  });

  it('refuses a tampered body, a wrong secret and a missing header (both libraries)', () => {
    const tampered = delivery.body.replace('"pending"', '"succeeded"');
    assert.notEqual(tampered, delivery.body);
    const now = { now: tb.clock.now() };
    assert.throws(() => verifyWebhook(tampered, delivery.headers, secret, now), refused);
    assert.throws(() => new Webhook(secret).verify(tampered, delivery.headers as Record<string, string>));
    const other = 'whsec_' + Buffer.from('another secret of 32 bytes......').toString('base64');
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, other, now), refused);
    assert.throws(() => new Webhook(other).verify(delivery.body, delivery.headers as Record<string, string>));
    const { 'webhook-signature': _dropped, ...unsigned } = delivery.headers;
    assert.throws(() => verifyWebhook(delivery.body, unsigned, secret, now), refused);
    const v2 = { ...delivery.headers, 'webhook-signature': String(delivery.headers['webhook-signature']).replace('v1,', 'v2,') };
    assert.throws(() => verifyWebhook(delivery.body, v2, secret, now), refused, 'only v1 signatures count');
  });

  it('refuses a delivery outside the 300 s tolerance, either way, and accepts one inside it', () => {
    const sentSeconds = Number(delivery.headers['webhook-timestamp']);
    const at = (s: number) => ({ now: new Date(s * 1000) });
    assert.ok(verifyWebhook(delivery.body, delivery.headers, secret, at(sentSeconds + 300)));
    assert.ok(verifyWebhook(delivery.body, delivery.headers, secret, at(sentSeconds - 300)));
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, secret, at(sentSeconds + 301)), refused);
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, secret, at(sentSeconds - 301)), refused);
  });

  it('agrees with standardwebhooks on payloads it signs at old, current and future times', () => {
    const wh = new Webhook(secret);
    const id = 'msg_sdk_interop';
    const body = JSON.stringify({ id, type: 'payment.succeeded', data: { object: { id: 'pay_x' }, previous_attributes: {} } });
    const nowMs = Date.now();
    for (const [offsetSeconds, ok] of [
      [0, true],
      [-200, true],
      [200, true],
      [-400, false],
      [400, false],
    ] as const) {
      const sentAt = new Date(nowMs + offsetSeconds * 1000);
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': wh.sign(id, sentAt, body),
      };
      const ours = (() => {
        try {
          verifyWebhook(body, headers, secret);
          return true;
        } catch (e) {
          assert.ok(refused(e));
          return false;
        }
      })();
      const theirs = (() => {
        try {
          wh.verify(body, headers);
          return true;
        } catch {
          return false;
        }
      })();
      assert.equal(ours, ok, `ours at ${offsetSeconds} s`);
      assert.equal(theirs, ok, `standardwebhooks at ${offsetSeconds} s`);
    }
  });

  it('during a secret rotation a resent delivery carries two signatures; the old and the new secret both verify it', async () => {
    const rotated = await client.webhookEndpoints.rotateSecret(endpointId, { expire_previous_in_seconds: 3600 });
    const event = client.webhooks.verify(delivery.body, delivery.headers, secret, { now: tb.clock.now() });
    await client.events.resend(event.id, { endpoint_id: endpointId });
    const before = tb.receiver.requests.length;
    await tb.dispatcher.drain();
    const again = tb.receiver.requests.slice(before).find((r) => r.headers['webhook-id'] === event.id);
    assert.ok(again !== undefined, 'the resent delivery arrived');
    assert.equal(String(again.headers['webhook-signature']).split(' ').length, 2);
    for (const s of [secret, rotated.secret]) {
      assert.equal(verifyWebhook(again.body, again.headers, s, { now: tb.clock.now() }).id, event.id);
      assert.equal((new Webhook(s).verify(again.body, again.headers as Record<string, string>) as { id: string }).id, event.id);
    }
  });
});
