import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateWebhookSecret, signatureHeader } from '../../src/modules/webhooks/webhook-signature.ts';

// Interop: what we sign, the reference `standardwebhooks` package verifies (and refuses when tampered).
const nowSeconds = () => Math.floor(Date.now() / 1000);

function headers(id: string, ts: number, signature: string) {
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
}

describe('Standard Webhooks signatures', () => {
  const id = 'evt_01M803B842SJRZ1RZ7ETHHPJJQ';
  const body = JSON.stringify({ id, type: 'payment.succeeded', data: { object: { amount: 150000.5, note: 'Ünïcode ✓' } } });

  it('secrets are whsec_ + base64 of 32 random bytes, all different', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    assert.equal(secrets.size, 50);
    for (const s of secrets) {
      assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(s.slice(6), 'base64').length, 32);
    }
  });

  it('is verified by the standardwebhooks package, which returns the payload', () => {
    const secret = generateWebhookSecret();
    const ts = nowSeconds();
    const verified = new Webhook(secret).verify(body, headers(id, ts, signatureHeader([secret], id, ts, body)));
    assert.deepEqual(verified, JSON.parse(body));
  });

  it('during a rotation carries one signature per secret, and each secret alone verifies it', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const ts = nowSeconds();
    const header = signatureHeader([current, previous], id, ts, body);
    assert.equal(header.split(' ').length, 2);
    assert.ok(header.split(' ').every((s) => s.startsWith('v1,')));
    assert.doesNotThrow(() => new Webhook(current).verify(body, headers(id, ts, header)));
    assert.doesNotThrow(() => new Webhook(previous).verify(body, headers(id, ts, header)));
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers(id, ts, header)), WebhookVerificationError);
  });

  it('is refused when the body, the id or the timestamp was tampered with, or the timestamp is stale', () => {
    const secret = generateWebhookSecret();
    const wh = new Webhook(secret);
    const ts = nowSeconds();
    const sig = signatureHeader([secret], id, ts, body);
    assert.throws(() => wh.verify(body.replace('150000.5', '150000.6'), headers(id, ts, sig)), /No matching signature/);
    assert.throws(() => wh.verify(`${body} `, headers(id, ts, sig)), /No matching signature/);
    assert.throws(() => wh.verify(body, headers('evt_01M803B842SJRZ1RZ7ETHHPJJR', ts, sig)), /No matching signature/);
    assert.throws(() => wh.verify(body, headers(id, ts + 1, sig)), /No matching signature/);
    const stale = ts - 6 * 60;
    assert.throws(() => wh.verify(body, headers(id, stale, signatureHeader([secret], id, stale, body))), /too old/);
    const future = ts + 6 * 60;
    assert.throws(() => wh.verify(body, headers(id, future, signatureHeader([secret], id, future, body))), /too new/);
  });

  it('matches the package signer for any body and id (property)', () => {
    const secret = generateWebhookSecret();
    const wh = new Webhook(secret);
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.stringMatching(/^evt_[0-9A-Z]{1,26}$/),
        fc.integer({ min: 0, max: 2 ** 32 }),
        (text, msgId, ts) => {
          assert.equal(signatureHeader([secret], msgId, ts, text), wh.sign(msgId, new Date(ts * 1000), text));
        },
      ),
    );
  });
});
