import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ConnectorCapabilities } from '../../src/connectors/core/connector.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { routePayment } from '../../src/modules/routing/route-payment.ts';
import { BUILT_IN_CAPABILITIES } from '../../src/runtime.ts';

const caps = [...BUILT_IN_CAPABILITIES];
const channelArb = fc.constantFrom('bank', 'ewallet', 'counter', 'auto' as const);
const currencyArb = fc.constantFrom('IDR', 'PHP', 'VND', 'USD', 'JPY') as fc.Arbitrary<CurrencyCode>;
const amountArb = fc.bigInt({ min: 1n, max: 10_000_000_000_000n });
const subsetArb = fc.subarray(caps, { minLength: 0 });

describe('routePayment (property)', () => {
  it('every candidate supports the channel, the currency and the amount', () => {
    fc.assert(
      fc.property(channelArb, currencyArb, amountArb, subsetArb, (channel, currency, amountMinor, enabled) => {
        const result = routePayment({ channel, currency, amountMinor }, enabled);
        if (!result.ok) return;
        assert.ok(result.candidates.length > 0);
        for (const candidate of result.candidates) {
          const c = enabled.find((e) => e.connector === candidate.connector) as ConnectorCapabilities;
          assert.ok(c, 'candidate is an enabled connector');
          if (channel !== 'auto') assert.equal(c.channel, channel);
          const bounds = c.currencies[currency];
          assert.ok(bounds !== undefined);
          assert.ok(amountMinor >= bounds.minMinor && amountMinor <= bounds.maxMinor);
          assert.ok(c.instruments.some((i) => i.code === candidate.instrument));
        }
      }),
    );
  });

  it('same input, same decision', () => {
    fc.assert(
      fc.property(channelArb, currencyArb, amountArb, subsetArb, (channel, currency, amountMinor, enabled) => {
        assert.deepEqual(
          routePayment({ channel, currency, amountMinor }, enabled),
          routePayment({ channel, currency, amountMinor }, enabled),
        );
      }),
    );
  });

  it('refuses only when no enabled connector could serve the request', () => {
    fc.assert(
      fc.property(channelArb, currencyArb, amountArb, subsetArb, (channel, currency, amountMinor, enabled) => {
        const result = routePayment({ channel, currency, amountMinor }, enabled);
        const capable = enabled.some((c) => {
          const b = c.currencies[currency];
          return (
            (channel === 'auto' || c.channel === channel) &&
            b !== undefined &&
            amountMinor >= b.minMinor &&
            amountMinor <= b.maxMinor
          );
        });
        assert.equal(result.ok, capable);
      }),
    );
  });
});

describe('routePayment refusals', () => {
  const idr = 'IDR' as CurrencyCode;
  it('names the channel, the currency or the bounds', () => {
    const noChannel = routePayment({ channel: 'bank', currency: idr, amountMinor: 1_000_000n }, []);
    assert.equal(noChannel.ok ? 'ok' : noChannel.code, 'channel_unavailable');
    const noCurrency = routePayment({ channel: 'bank', currency: 'USD' as CurrencyCode, amountMinor: 1000n }, caps);
    assert.equal(noCurrency.ok ? 'ok' : noCurrency.code, 'currency_not_supported');
    const outOfRange = routePayment({ channel: 'counter', currency: idr, amountMinor: 100n }, caps);
    assert.equal(outOfRange.ok ? 'ok' : outOfRange.code, 'amount_out_of_range');
    if (!outOfRange.ok)
      assert.deepEqual(outOfRange.details[0], {
        field: 'amount',
        issue: 'amount_out_of_range',
        connector: 'sandbox_counter',
        min: 10000,
        max: 5000000,
        message: 'between 10000 and 5000000 IDR',
      });
  });
  it('auto orders bank, then e-wallet, then counter, with a trace for each', () => {
    const result = routePayment({ channel: 'auto', currency: idr, amountMinor: 2_000_000n }, caps);
    assert.ok(result.ok);
    assert.deepEqual(
      result.candidates.map((c) => c.channel),
      ['bank', 'ewallet', 'counter'],
    );
    assert.equal(result.trace.length, 3);
  });
});
