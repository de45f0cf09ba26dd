import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ConnectorRegistry } from '../../src/connectors/core/registry.ts';
import {
  chargeBodyText,
  fromMidtransTime,
  grossToMinor,
  midtransSignature,
  toMidtransTime,
  toWholeRupiah,
} from '../../src/connectors/midtrans/transformers.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { redactSecrets } from '../../src/lib/logger.ts';
import { builtInConnectors } from '../../src/runtime.ts';

const names = (list: { capabilities: { connector: string } }[]) => list.map((c) => c.capabilities.connector);

describe('Midtrans registration', () => {
  const base = { sandboxBaseUrl: () => 'http://127.0.0.1:1', sandboxSecret: 'x'.repeat(32), log: createLogger('silent') };

  it('reads MIDTRANS_SERVER_KEY and MIDTRANS_BASE_URL (production by default)', () => {
    const none = loadConfig({});
    assert.equal(none.midtransServerKey, undefined);
    assert.equal(none.midtransBaseUrl, 'https://api.midtrans.com');
    const set = loadConfig({ MIDTRANS_SERVER_KEY: 'SB-Mid-server-abc', MIDTRANS_BASE_URL: 'https://api.sandbox.midtrans.com/' });
    assert.equal(set.midtransServerKey, 'SB-Mid-server-abc');
    assert.equal(set.midtransBaseUrl, 'https://api.sandbox.midtrans.com');
  });

  it('registers the Midtrans connectors only with a server key; production keys reach them only when listed', () => {
    assert.ok(!names(builtInConnectors(base)).some((n) => n.startsWith('midtrans_')));
    const all = builtInConnectors({ ...base, midtrans: { serverKey: 'SB-Mid-server-abc', baseUrl: 'http://127.0.0.1:1' } });
    assert.deepEqual(
      names(all).filter((n) => n.startsWith('midtrans_')),
      ['midtrans_bank', 'midtrans_counter'],
    );
    const unlisted = new ConnectorRegistry(all, []);
    assert.ok(!names(unlisted.enabledFor('production').map((capabilities) => ({ capabilities }))).includes('midtrans_bank'));
    assert.ok(!unlisted.enabledFor('sandbox').some((c) => c.connector.startsWith('midtrans_')), 'never for sandbox keys');
    const listed = new ConnectorRegistry(all, ['midtrans_bank']);
    assert.deepEqual(
      listed.enabledFor('production').map((c) => c.connector),
      ['midtrans_bank'],
    );
  });
});

describe('Midtrans transformers', () => {
  it('converts whole rupiah exactly, both ways, and refuses sen', () => {
    assert.equal(toWholeRupiah(15_000_000n), 150_000n);
    assert.equal(toWholeRupiah(15_000_050n), undefined);
    assert.equal(toWholeRupiah(0n), undefined);
    assert.equal(grossToMinor('145000.00'), 14_500_000n);
    assert.equal(grossToMinor('9999999999.00'), 999_999_999_900n);
    assert.equal(grossToMinor('999999999999999'), undefined, 'beyond the largest amount Tributary holds');
    assert.equal(grossToMinor('1e5'), undefined);
    assert.equal(grossToMinor(145000), undefined, 'a number on the wire is not read through a float');
  });

  it('writes gross_amount as a JSON integer from the bigint, whatever the text around it', () => {
    const text = chargeBodyText({
      payment_type: 'bank_transfer',
      bank_transfer: { bank: 'bca' },
      transaction_details: { order_id: 'att_1', gross_amount: 9_007_199_254_740_993n },
      customer_details: { email: '"gross_amount":"x"@example.com' },
      custom_expiry: { order_time: '2026-11-21 17:00:00 +0700', expiry_duration: 60, unit: 'second' },
      custom_field1: 'mer_1',
      custom_field2: 'production',
      custom_field3: 'pay_1',
    });
    assert.match(text, /"transaction_details":\{"order_id":"att_1","gross_amount":9007199254740993\}/);
    assert.ok(text.includes('"email":"\\"gross_amount\\":\\"x\\"@example.com"'));
  });

  it("reads and writes Midtrans' GMT+7 clock", () => {
    const at = new Date('2026-11-21T10:00:05Z');
    assert.equal(toMidtransTime(at), '2026-11-21 17:00:05');
    assert.equal(fromMidtransTime('2026-11-21 17:00:05')?.toISOString(), at.toISOString());
    assert.equal(fromMidtransTime('2026-11-21T17:00:05'), undefined);
  });

  it('signs as Midtrans documents: SHA512(order_id + status_code + gross_amount + server key), hex', () => {
    const sig = midtransSignature('1111', '200', '100000.00', 'askvnoibnosifnboseofinbofinfgbiufglnbfg');
    assert.match(sig, /^[0-9a-f]{128}$/);
    assert.notEqual(sig, midtransSignature('1111', '200', '100001.00', 'askvnoibnosifnboseofinbofinfgbiufglnbfg'));
  });

  it('redacts Midtrans server keys from logged text', () => {
    assert.equal(
      redactSecrets('key SB-Mid-server-TOq1a2AVuiyhhOjvfs3U_KeO and Mid-server-abc-123'),
      'key [redacted] and [redacted]',
    );
  });
});
